import Foundation
import Testing
@testable import Versola
import VersolaTesting
import VersolaHTTP

@Suite struct PKCETests {
    // RFC 7636 appendix B.
    @Test("A2: S256 challenge of the RFC 7636 appendix B verifier")
    func rfc7636AppendixB() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
        #expect(!pkce.description.contains(pkce.verifier))
    }

    @Test("A2: verifier from 32 random bytes, 43 characters")
    func verifierLength() {
        let pkce = PKCE(random: SeededRandomSource(seed: 7))
        #expect(pkce.verifier.utf8.count == 43)
        #expect(PKCE(random: SeededRandomSource(seed: 8)).verifier != pkce.verifier)
    }
}

@Suite struct AuthorizationRedirectTests {
    static let pending = PendingAuthorization(
        state: "state-123", nonce: "nonce-1", codeVerifier: "v", redirectURI: "http://127.0.0.1:5000/callback",
        issuer: "https://idp.example", clientID: "cli", scope: "openid", createdAt: Date(timeIntervalSince1970: 0))

    @Test("A5: a matching state and iss yield the code")
    func validRedirect() throws {
        let redirect = try AuthorizationRedirect(
            url: "http://127.0.0.1:5000/callback?code=abc&state=state-123&iss=https%3A%2F%2Fidp.example")
        #expect(try redirect.validatedCode(for: Self.pending, issuerParameterRequired: true) == "abc")
    }

    @Test("A5 E12: a different state is stateMismatch, even on an error response")
    func stateMismatch() throws {
        for url in ["/callback?code=abc&state=other", "/callback?code=abc", "/callback?error=access_denied&state=x"] {
            let redirect = try AuthorizationRedirect(url: url)
            #expect(throws: VersolaError.configuration(.stateMismatch)) {
                try redirect.validatedCode(for: Self.pending, issuerParameterRequired: false)
            }
        }
        #expect(throws: VersolaError.configuration(.stateMismatch)) { try AuthorizationRedirect(url: "/callback") }
    }

    @Test("A5 E12: a wrong iss, or none where the provider advertises it, is issuerMismatch")
    func issuerMismatch() throws {
        let wrong = try AuthorizationRedirect(url: "/cb?code=abc&state=state-123&iss=https%3A%2F%2Fevil.example")
        #expect(throws: VersolaError.configuration(.issuerMismatch)) {
            try wrong.validatedCode(for: Self.pending, issuerParameterRequired: false)
        }
        let missing = try AuthorizationRedirect(url: "/cb?code=abc&state=state-123")
        #expect(throws: VersolaError.configuration(.issuerMismatch)) {
            try missing.validatedCode(for: Self.pending, issuerParameterRequired: true)
        }
        #expect(try missing.validatedCode(for: Self.pending, issuerParameterRequired: false) == "abc")
    }

    @Test("E9: authorization errors map by code, never by description")
    func errorMapping() throws {
        let cases: [(String, VersolaError)] = [
            ("access_denied", .reauthenticate(.authorizationDenied)),
            ("login_required", .reauthenticate(.interactionRequired)),
            ("interaction_required", .reauthenticate(.interactionRequired)),
            ("consent_required", .reauthenticate(.interactionRequired)),
            ("account_selection_required", .reauthenticate(.interactionRequired)),
        ]
        for (code, expected) in cases {
            let redirect = try AuthorizationRedirect(
                url: "/cb?error=\(code)&error_description=access_denied+login_required&state=state-123")
            #expect(throws: expected) { try redirect.validatedCode(for: Self.pending, issuerParameterRequired: false) }
        }
        let other = try AuthorizationRedirect(url: "/cb?error=server_error&state=state-123")
        #expect {
            try other.validatedCode(for: Self.pending, issuerParameterRequired: false)
        } throws: { error in
            if case .configuration(.authorizationRejected) = error as? VersolaError { true } else { false }
        }
    }

    @Test("P2: a pending request expires after 10 minutes")
    func pendingExpiry() {
        let created = Self.pending.createdAt
        #expect(!Self.pending.isExpired(at: created.addingTimeInterval(599)))
        #expect(Self.pending.isExpired(at: created.addingTimeInterval(600)))
        #expect(!Self.pending.description.contains("v)"))
    }
}

@Suite struct BrowserCommandTests {
    @Test("L1: %s is replaced by the URL, else the URL is appended")
    func substitution() {
        #expect(SystemBrowser.arguments(of: "firefox --new-tab %s", url: "U") == ["firefox", "--new-tab", "U"])
        #expect(SystemBrowser.arguments(of: "firefox", url: "U") == ["firefox", "U"])
        #expect(SystemBrowser.arguments(of: "echo '100%%' \"a b\"", url: "U") == ["echo", "100%", "a b", "U"])
        #expect(SystemBrowser.arguments(of: "  ", url: "U") == [])
    }

    @Test("L1: $BROWSER entries in order, else xdg-open only with a display")
    func candidates() {
        let browser = SystemBrowser(environment: ["BROWSER": "w3m:firefox %s"])
        #expect(browser.candidates(for: "U") == [["w3m", "U"], ["firefox", "U"]])
        #expect(SystemBrowser(environment: ["DISPLAY": ":0"]).candidates(for: "U") == [["xdg-open", "U"]])
        #expect(SystemBrowser(environment: [:]).candidates(for: "U").isEmpty)
        #expect(SystemBrowser(command: "my-open", environment: ["BROWSER": "x"]).candidates(for: "U") == [["my-open", "U"]])
    }

    @Test("L1: a command that cannot start reports false; one that exits 0 reports true")
    func launching() async {
        #expect(await SystemBrowser(command: "false").open("http://x") == false)
        #expect(await SystemBrowser(command: "true").open("http://x") == true)
        #expect(await SystemBrowser(command: "versola-no-such-program-xyz").open("http://x") == false)
        #expect(await SystemBrowser(environment: [:]).open("http://x") == false)
    }
}

@Suite struct LoopbackListenerTests {
    /// Runs `body` with `listener`, then stops it, also when `body` throws (a failed `#require`
    /// or an unexpected error), so a failing test never leaves it listening.
    static func withListener(_ listener: LoopbackListener, _ body: (LoopbackListener) async throws -> Void) async throws {
        try await withStopping(listener, stop: { await $0.stop() }, body)
    }

    /// GET `url` with curl on a thread of its own (never blocking Swift's cooperative pool,
    /// which the listener's handler needs), returning the status and body.
    static func get(_ url: String) async throws -> (Int, String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try blockingGet(url) })
            }
        }
    }

    /// GET `url` with extra curl arguments (`-H "Host: …"`, `-D -` for the header lines).
    static func get(_ url: String, curl extra: [String]) async throws -> (Int, String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try blockingGet(url, extra: extra) })
            }
        }
    }

    private static func blockingGet(_ url: String, extra: [String] = []) throws -> (Int, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s", "-g", "-w", "\n%{http_code}"] + extra + [url]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let status = Int(text.split(separator: "\n").last ?? "") ?? 0
        return (status, text)
    }

    @Test("A4 L6: bound on 127.0.0.1 with an ephemeral port; other requests get an error page and do not consume it")
    func acceptsExactlyOneRedirect() async throws {
        let listener = try LoopbackListener.start(LoopbackRedirect())
        try await Self.withListener(listener) { listener in
            listener.expect(state: "s1")
            #expect(listener.redirectURI == "http://127.0.0.1:\(listener.port)/callback")
            #expect(try await Self.get("http://127.0.0.1:\(listener.port)/other?code=x&state=s1").0 == 404)
            #expect(try await Self.get("http://127.0.0.1:\(listener.port)/callback").0 == 400)
            #expect(try await Self.get("http://127.0.0.1:\(listener.port)/callback?foo=bar&state=s1").0 == 400)
            #expect(try await Self.get(listener.redirectURI + "?code=forged&state=s2").0 == 400)
            #expect(try await Self.get(listener.redirectURI + "?error=access_denied").0 == 400)
            let (status, body) = try await Self.get(listener.redirectURI + "?code=the-code&state=s1")
            #expect(status == 200)
            #expect(body.contains("You can close this window"))
            #expect(!body.contains("the-code"))
            // A second redirect is refused: exactly one is accepted.
            #expect(try await Self.get(listener.redirectURI + "?code=second&state=s1").0 == 400)
            let redirect = try await listener.waitForRedirect(timeout: .seconds(30), clock: SystemClock())
            #expect(redirect.code == "the-code")
        }
    }

    @Test("A4: IPv6 loopback and a custom path")
    func ipv6() async throws {
        let listener = try LoopbackListener.start(LoopbackRedirect(address: .ipv6, path: "/oauth/done"))
        try await Self.withListener(listener) { listener in
            listener.expect(state: "s")
            #expect(listener.redirectURI == "http://[::1]:\(listener.port)/oauth/done")
            #expect(try await Self.get(listener.redirectURI + "?error=access_denied&state=s").0 == 200)
            let redirect = try await listener.waitForRedirect(timeout: .seconds(30), clock: SystemClock())
            #expect(redirect.error == "access_denied")
        }
    }

    @Test("A4: a fixed port that is taken is a clear error naming it")
    func takenPort() async throws {
        let first = try LoopbackListener.start(LoopbackRedirect())
        try await Self.withListener(first) { first in
            do throws(VersolaError) {
                _ = try LoopbackListener.start(LoopbackRedirect(port: first.port))
                Issue.record("a second listener bound a taken port")
            } catch {
                #expect(error.cause == "invalidConfiguration")
                #expect(error.description.contains("port \(first.port)"))
            }
        }
    }

    @Test("L2 L6: a pasted redirect completes the wait; one of another sign-in, and the browser's later one, are refused")
    func pastedRedirect() async throws {
        let listener = try LoopbackListener.start(LoopbackRedirect())
        try await Self.withListener(listener) { listener in
            listener.expect(state: "s")
            #expect(listener.offer("not a url") == .notAResponse)
            #expect(listener.offer("http://127.0.0.1:\(listener.port)/callback?code=other&state=t") == .otherRequest)
            #expect(listener.offer("http://127.0.0.1:\(listener.port)/callback?error=access_denied") == .otherRequest)
            #expect(listener.deliver("http://127.0.0.1:\(listener.port)/callback?code=pasted&state=s"))
            #expect(listener.offer("http://127.0.0.1:\(listener.port)/callback?code=again&state=s") == .alreadyFinished)
            let redirect = try await listener.waitForRedirect(timeout: .seconds(30), clock: SystemClock())
            #expect(redirect.code == "pasted")
        }
    }

    @Test("L6: only a request whose Host is the listener's address and port is answered (DNS rebinding)")
    func hostIsChecked() async throws {
        let listener = try LoopbackListener.start(LoopbackRedirect())
        try await Self.withListener(listener) { listener in
            listener.expect(state: "s")
            let port = listener.port
            for host in ["attacker.example:\(port)", "localhost:\(port)", "127.0.0.1:\(port &+ 1)", "127.0.0.1"] {
                let (status, _) = try await Self.get(listener.redirectURI + "?code=c&state=s", curl: ["-H", "Host: \(host)"])
                #expect(status == 421, "Host \(host)")
            }
            #expect(listener.offer(listener.redirectURI + "?code=c&state=s") == nil, "still waiting after the refusals")
        }
    }

    @Test("L6: every page is sent with no-store, no-referrer and DENY framing")
    func protectiveHeaders() async throws {
        let listener = try LoopbackListener.start(LoopbackRedirect())
        try await Self.withListener(listener) { listener in
            listener.expect(state: "s")
            for query in ["?code=x&state=forged", "?code=c&state=s", "?code=again&state=s"] {
                let (_, text) = try await Self.get(listener.redirectURI + query, curl: ["-D", "-"])
                let head = text.lowercased()
                #expect(head.contains("cache-control: no-store"))
                #expect(head.contains("referrer-policy: no-referrer"))
                #expect(head.contains("x-frame-options: deny"))
            }
            let (_, other) = try await Self.get("http://127.0.0.1:\(listener.port)/favicon.ico", curl: ["-D", "-"])
            #expect(other.lowercased().contains("x-frame-options: deny"))
        }
    }

    @Test("E7: cancel is userCancelled; a timeout is systemCancelled")
    func cancellation() async throws {
        let cancelled = try LoopbackListener.start(LoopbackRedirect())
        try await Self.withListener(cancelled) { cancelled in
            cancelled.cancel()
            await #expect(throws: VersolaError.recoverable(.userCancelled)) {
                try await cancelled.waitForRedirect(timeout: .seconds(30), clock: SystemClock())
            }
        }

        let timedOut = try LoopbackListener.start(LoopbackRedirect())
        try await Self.withListener(timedOut) { timedOut in
            // The manual clock's sleep returns at once: the timeout passes immediately.
            await #expect(throws: VersolaError.recoverable(.systemCancelled)) {
                try await timedOut.waitForRedirect(timeout: .seconds(300), clock: ManualClock())
            }
        }
    }
}
