import Foundation
import Testing
import Versola
import VersolaTestIdP

@testable import VersolaCommand
@testable import VersolaHTTP

/// `versola -v`: each HTTP exchange on standard error, with nothing secret in it.
@Suite("versola -v", .serialized)
struct VerboseTests {
    @Test func aURLKeepsOnlyWhatIsNotSecret() throws {
        let url = try #require(URL(string: "https://user:pw@idp.example:8443/cb/x?code=SECRET&state=S2#frag"))
        #expect(ExchangeTrace.redacted(url) == "https://idp.example:8443/cb/x?code=…&state=…")
        #expect(ExchangeTrace.redacted(try #require(URL(string: "http://127.0.0.1:1/token"))) == "http://127.0.0.1:1/token")
    }

    @Test func aTraceLineSaysWhatHappenedAndWhatIsNext() {
        let trace = ExchangeTrace(
            kind: .refresh, attempt: 2, method: "POST", target: "https://idp/token", outcome: "503",
            duration: .milliseconds(35), repeatsAfter: .milliseconds(1500))
        #expect(trace.line == "POST https://idp/token → 503 (35 ms, refresh, attempt 2); repeated after 1.5 s")
        let json = ExchangeReport.text(trace, json: true)
        #expect(json.contains(#""outcome":"503""#) && json.contains(#""repeatsAfterMs":1500"#))
    }

    @Test func everyExchangeIsShownAndNoSecret() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let login = try await cli.login(["-v"])
            #expect(login.stderr.contains("GET \(cli.idp.issuer)/.well-known/openid-configuration → 200"), "\(login.stderr)")
            #expect(login.stderr.contains("/token → 200"), "\(login.stderr)")
            #expect(login.stderr.contains("codeExchange"))
            // A refused attempt and the rule's repeat are shown; the refresh goes on.
            await cli.idp.provider.arm(TestFaultRule(.token, .respond(status: 503, headers: ["Retry-After": "1"])))
            let refreshed = try await cli.run(["token", "--force-refresh", "--verbose"])
            #expect(refreshed.status == 0, "\(refreshed.stderr)")
            #expect(refreshed.stderr.contains("/token → 503"), "\(refreshed.stderr)")
            #expect(refreshed.stderr.contains("repeated after 1.0 s"))
            #expect(refreshed.stderr.contains("/token → 200 (") && refreshed.stderr.contains("attempt 2"))
            // Nothing secret: not the access token printed, not the refresh tokens or code sent.
            let tokenRequests = await cli.idp.provider.requests(to: .token)
            let secrets = [refreshed.stdout.trimmingBlanks]
                + tokenRequests.compactMap { $0.formValue("refresh_token") }
                + tokenRequests.compactMap { $0.formValue("code") } + tokenRequests.compactMap { $0.formValue("code_verifier") }
            #expect(secrets.count >= 4)
            for secret in secrets where !secret.isEmpty {
                #expect(!login.stderr.contains(secret) && !refreshed.stderr.contains(secret))
            }
        }
    }
}
