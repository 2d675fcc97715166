import Foundation
import Synchronization
import Testing
import VersolaHTTP

@testable import Versola
import VersolaTesting

/// The one-time loopback page that takes the browser to the end-session page (A15, L6).
@Suite struct OneTimeRedirectTests {
    /// `curl`'s status code and `Location` for `url`, sent with `host` as `Host` when given.
    static func fetch(_ url: String, host: String? = nil) async throws -> String {
        // blocking: curl waits on the in-process page, off the task pool
        try await DedicatedThread.run { Result { try blockingFetch(url, host: host) } }.get()
    }

    private static func blockingFetch(_ url: String, host: String?) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}"] + (host.map { ["-H", "Host: \($0)"] } ?? []) + [url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// A browser that fetches the address the way `curl` does, without following it.
    struct FetchingBrowser: BrowserLauncher {
        let answers: Answers
        func open(_ url: String) async -> Bool {
            answers.record(url, (try? await OneTimeRedirectTests.fetch(url)) ?? "")
            return true
        }
    }

    final class Answers: Sendable {
        private let stored = Mutex<[(String, String)]>([])
        func record(_ url: String, _ answer: String) { stored.withLock { $0.append((url, answer)) } }
        var all: [(String, String)] { stored.withLock { $0 } }
    }

    @Test("A15 L6: the page answers its random path once with 303 to the target; a second visit, another path or Host do not")
    func answersOnce() async throws {
        let target = "https://id.example/logout?id_token_hint=h.p.s&client_id=cli"
        let page = try OneTimeRedirect.start(target: target, random: SeededRandomSource(seed: 7))
        #expect(page.url.hasPrefix("http://127.0.0.1:") && !page.url.contains("h.p.s"))
        let path = String(page.url.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
        #expect(path.count == 44)  // "/" and 32 bytes in base64url
        let port = String(page.url.dropFirst("http://127.0.0.1:".count).prefix { $0 != "/" })
        #expect(try await Self.fetch(page.url, host: "attacker.example:\(port)").hasPrefix("421"))
        #expect(try await Self.fetch("http://127.0.0.1:\(port)/other").hasPrefix("404"))
        #expect(try await Self.fetch(page.url) == "303 \(target)")
        #expect(await page.waitForVisit(timeout: .seconds(60), clock: SystemClock()))
        #expect(try await Self.fetch(page.url).hasPrefix("410"))
        await page.stop()
    }

    @Test("A15: open() reports the visit; a browser that never asks times out on the clock; none started is false at once")
    func openWaitsForTheVisit() async throws {
        let answers = Answers()
        let target = "https://id.example/logout?id_token_hint=h.p.s"
        #expect(
            await OneTimeRedirect.open(
                target, in: FetchingBrowser(answers: answers), random: SystemRandomSource(), clock: ManualClock()))
        #expect(answers.all.first?.1 == "303 \(target)")

        struct SilentBrowser: BrowserLauncher { func open(_ url: String) async -> Bool { true } }
        let clock = ManualClock()
        #expect(!(await OneTimeRedirect.open(target, in: SilentBrowser(), random: SystemRandomSource(), clock: clock)))
        #expect(clock.sleeps == [OneTimeRedirect.defaultTimeout])
        struct NoBrowserAtAll: BrowserLauncher { func open(_ url: String) async -> Bool { false } }
        #expect(!(await OneTimeRedirect.open(target, in: NoBrowserAtAll(), random: SystemRandomSource(), clock: ManualClock())))
    }
}
