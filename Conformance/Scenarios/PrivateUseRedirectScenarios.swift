import Foundation
import Synchronization
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// A browser that signs in at the test provider and stops where the provider sends it to a
/// private-use scheme, as a real browser stops to hand that URL to the desktop (L7). The
/// redirect it ends on is kept for the scenario to deliver like the desktop's handler would.
final class PrivateUseBrowser: BrowserLauncher {
    private let landed = Mutex<[String]>([])
    var redirects: [String] { landed.withLock { $0 } }

    func open(_ url: String) async -> Bool {
        Task {
            if let redirect = try? await Self.follow(url) { landed.withLock { $0.append(redirect) } }
        }
        return true
    }

    /// Follows the provider's http(s) redirects and returns the first Location that is not http(s).
    static func follow(_ url: String) async throws -> String {
        var next = try #require(URL(string: url))
        let transport = CurlTransport(idleHandles: 0)
        for _ in 0..<10 {
            let response = try await transport.send(HTTPRequest(url: next), options: TransportOptions())
            let location = try #require(response.headers["Location"], "the provider did not redirect")
            let target = try #require(URL(string: location, relativeTo: next)?.absoluteURL)
            guard target.scheme == "http" || target.scheme == "https" else { return location }
            next = target
        }
        throw HeadlessUserAgentError.transport("too many redirects")
    }
}

/// The handler process's session opens no browser.
struct NeverOpens: BrowserLauncher {
    func open(_ url: String) async -> Bool { false }
}

@Suite(.serialized) struct PrivateUseRedirectScenarios {
    static let redirect = "com.example.versola:/callback"

    /// The rig's profile with a session that signs in through the private-use scheme.
    static func session(_ rig: SessionRig, browser: any BrowserLauncher) throws -> Session {
        var client = rig.configuration.client
        client.privateUseRedirect = try PrivateUseRedirect(redirect)
        return try SessionRig.makeSession(
            configuration: SessionConfiguration(client: client), storage: rig.storage, clock: rig.clock, browser: browser)
    }

    /// A session of the rig's profile whose login waits, and the redirect its browser ended on.
    static func waitingLogin(_ rig: SessionRig) async throws -> (Session, Task<Void, any Error>, String) {
        let browser = PrivateUseBrowser()
        let session = try Self.session(rig, browser: browser)
        await session.start()
        let login = Task { () async throws -> Void in try await session.login() }
        while browser.redirects.isEmpty { await Task.yield() }
        return (session, login, try #require(browser.redirects.first))
    }

    @Test(
        "L7: a private-use redirect must be a reverse-domain scheme (a dot; not http or https) with one slash and a path",
        arguments: [
            "myapp:/callback", "http:/callback", "https:/callback", "com.example.app://callback", "Com.Example.App:/callback",
            "com..app:/callback", "com.example.app:/callback?x=1", "1com.example:/callback", "com.example.app",
            "com.example.app:callback", ".com.example:/callback", "com.example_app.x:/callback",
        ])
    func validation(uri: String) {
        #expect(throws: VersolaError.self) { try PrivateUseRedirect(uri) }
        do {
            _ = try PrivateUseRedirect(uri)
        } catch {
            guard case .configuration(.invalidConfiguration(let text, _)) = error else {
                Issue.record("\(uri): \(error) is not invalidConfiguration")
                return
            }
            #expect(text.hasPrefix("private-use redirect: "))
        }
    }

    @Test("L7: a reverse-domain private-use redirect is accepted and sent as the redirect_uri")
    func acceptedAndSent() async throws {
        let parsed = try PrivateUseRedirect("com.example.versola:/callback")
        #expect(parsed.scheme == "com.example.versola" && parsed.path == "/callback")
        #expect(parsed.mimeType == "x-scheme-handler/com.example.versola")
        let rig = try await SessionRig(browserFollows: false)
        try await withRig(rig) { rig in
            let (session, login, landed) = try await Self.waitingLogin(rig)
            #expect(landed.hasPrefix(Self.redirect + "?"))
            let pushed = await rig.idp.provider.requests(to: .par).first?.formValue("redirect_uri")
            let query = await rig.idp.provider.requests(to: .authorize).first.flatMap { URLComponents(string: $0.target) }
            #expect((pushed ?? query?.queryItems?.first { $0.name == "redirect_uri" }?.value) == Self.redirect)
            await session.cancelLogin()
            await #expect(throws: VersolaError.recoverable(.userCancelled)) { try await login.value }
        }
    }

    /// `xdg-mime query default` for `redirect`: xdg-mime, a shell script, runs on a thread of its own.
    static func registeredHandler(_ redirect: PrivateUseRedirect, _ environment: [String: String]) async -> String? {
        await DedicatedThread.run { SchemeHandlerEntry.registeredHandler(for: redirect, environment: environment) }
    }

    /// Installs `entry` (its `xdg-mime default` run) on a thread of its own.
    static func install(_ entry: SchemeHandlerEntry, _ environment: [String: String]) async throws {
        try await DedicatedThread.run { Result { () throws(VersolaError) in try entry.install(environment: environment) } }.get()
    }

    @Test("L7: the desktop entry is registered for x-scheme-handler/<scheme> with xdg-mime, and removed on request")
    func handlerRegistration() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("versola-l7-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": root,
            "XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config", "XDG_DATA_DIRS": root + "/none",
        ]
        let redirect = try PrivateUseRedirect(Self.redirect)
        let entry = try SchemeHandlerEntry(
            redirect: redirect, name: "com.example.versola", displayName: "Example $HOME",
            command: ["/bin/echo", "an argument", "--redirect", "100%"])
        #expect(await Self.registeredHandler(redirect, environment) == nil)
        // Another program already handles the scheme: installing makes this entry the default.
        let other = try SchemeHandlerEntry(redirect: redirect, name: "aaa-other", displayName: "Other", command: ["/bin/true"])
        try await Self.install(other, environment)
        #expect(await Self.registeredHandler(redirect, environment) == "aaa-other.desktop")
        try await Self.install(entry, environment)
        let defaults = try String(contentsOfFile: root + "/config/mimeapps.list", encoding: .utf8)
        #expect(defaults.contains("x-scheme-handler/com.example.versola=com.example.versola.desktop"))
        let file = root + "/data/applications/com.example.versola.desktop"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("\nMimeType=x-scheme-handler/com.example.versola;\n"))
        #expect(text.contains("\nExec=/bin/echo \"an argument\" --redirect 100%% %u\n"))
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(await Self.registeredHandler(redirect, environment) == "com.example.versola.desktop")
        try entry.remove(environment: environment)
        #expect(!FileManager.default.fileExists(atPath: file))
        let after = try String(contentsOfFile: root + "/config/mimeapps.list", encoding: .utf8)
        #expect(!after.contains("com.example.versola.desktop"))
        try other.remove(environment: environment)
        #expect(await Self.registeredHandler(redirect, environment) == nil)
        // Bad entries are refused before anything is written.
        #expect(throws: VersolaError.self) {
            try SchemeHandlerEntry(redirect: redirect, name: "../x", displayName: "x", command: ["/bin/true"])
        }
        #expect(throws: VersolaError.self) {
            try SchemeHandlerEntry(redirect: redirect, name: "x", displayName: "x", command: ["relative/run"])
        }
    }

    @Test("L7 L2 S3: the login waits without a listener and finishes when another process delivers the private-use redirect")
    func deliveredByAnotherProcess() async throws {
        let rig = try await SessionRig(browserFollows: false)
        try await withRig(rig) { rig in
            let (session, login, redirect) = try await Self.waitingLogin(rig)
            // The handler's process: a session on the same profile, started fresh.
            let handler = try Self.session(rig, browser: NeverOpens())
            await handler.start()
            #expect(handler.state == .authorizing)
            try await handler.deliverRedirect(redirect)
            #expect(handler.state == .authenticated)
            try await login.value
            #expect(session.state == .authenticated)
            #expect(session.user?.subject == TestUser().subject)
            #expect(await rig.tokenRequests(grant: "authorization_code") == 1)
        }
    }

    @Test("L7 L6 E12: garbage or another sign-in's redirect changes nothing; the login goes on waiting and then finishes")
    func otherStateKeepsWaiting() async throws {
        let rig = try await SessionRig(browserFollows: false)
        try await withRig(rig) { rig in
            let (session, login, redirect) = try await Self.waitingLogin(rig)
            let code = try #require(URLComponents(string: redirect)?.queryItems?.first { $0.name == "code" }?.value)
            let forged = Self.redirect + "?code=\(code)&state=another-sign-in"
            let before = try await rig.storage.store.load()?.pendingAuthorization
            #expect(before != nil)
            let handler = try Self.session(rig, browser: NeverOpens())
            await handler.start()
            await #expect(throws: VersolaError.configuration(.stateMismatch)) { try await handler.deliverRedirect(forged) }
            await #expect(throws: VersolaError.configuration(.stateMismatch)) { try await handler.deliverRedirect("garbage") }
            #expect(await session.offerRedirect(forged) == .otherRequest)
            #expect(await session.offerRedirect("https://elsewhere.example/callback?code=1&state=2") == .notAResponse)
            #expect(try await rig.storage.store.load()?.pendingAuthorization == before)
            #expect(session.state == .authorizing)
            #expect(await rig.tokenRequests(grant: "authorization_code") == 0)
            // The genuine redirect, handed to the waiting login by the application itself.
            #expect(await session.offerRedirect(redirect) == nil)
            try await login.value
            #expect(session.state == .authenticated)
            #expect(await rig.tokenRequests(grant: "authorization_code") == 1)
        }
    }
}
