import Foundation
import Testing
import Versola
import VersolaHTTP

/// L8 with a real second account: another local user who read the loopback address from a
/// browser's command line gains nothing, and the person's own browser still gets through.
@Suite("loopback pages answer only the person, with a second user", .serialized)
struct LoopbackOwnerProcessScenarios {
    /// The second account needs root to create and to switch to (CI runs as root).
    static var canSwitchUser: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") }

    /// GET as this process's user, without following redirects: the status.
    static func ownStatus(_ url: String) async throws -> Int {
        try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", url]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Int(String(decoding: data, as: UTF8.self)) ?? 0
        }
    }

    @Test(
        "L8 L6 A4: another user's request with the right state neither completes nor consumes the sign-in",
        .enabled(if: canSwitchUser, "switching to a second account needs root"))
    func redirectListenerRefusesAnotherUser() async throws {
        let other = try await onOwnThread { try SecondUser.ensure() }
        let listener = try LoopbackListener.start(LoopbackRedirect())
        listener.expect(state: "s1")
        let url = listener.redirectURI + "?code=stolen&state=s1"
        let refused = try await other.fetch(url)
        #expect(refused == 22, "another user's request: curl's exit status \(refused) (0: answered below 400)")
        #expect(try await Self.ownStatus(listener.redirectURI + "?code=genuine&state=s1") == 200)
        let redirect = try await listener.waitForRedirect(timeout: .seconds(30), clock: SystemClock())
        #expect(redirect.code == "genuine")
        await listener.stop()
    }

    @Test(
        "L8 A15: the one-time sign-out page does not hand the ID token hint to another user; the person's browser still gets it",
        .enabled(if: canSwitchUser, "switching to a second account needs root"))
    func oneTimePageRefusesAnotherUser() async throws {
        let other = try await onOwnThread { try SecondUser.ensure() }
        let page = try OneTimeRedirect.start(target: "https://op.example/logout?id_token_hint=SECRET", random: SystemRandomSource())
        let refused = try await other.fetch(page.url)
        #expect(refused == 22, "another user's visit: curl's exit status \(refused) (0: sent on to the sign-out address)")
        #expect(try await Self.ownStatus(page.url) == 303)
        #expect(await page.waitForVisit(timeout: .seconds(5), clock: SystemClock()))
        await page.stop()
    }
}
