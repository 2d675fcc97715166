import Foundation
import Testing
import Versola
import VersolaJOSE
import VersolaTestIdP

/// A provider that issues no refresh token and no ID token, as GitHub OAuth apps do (P13),
/// through the real binaries: the sign-in must outlive the agent and the process that made it.
@Suite("sessions without a refresh token, end to end", .serialized)
struct AccessTokenOnlyProcessScenarios {
    /// GitHub's documented OAuth-app answer: `access_token`, `token_type`, `scope`; no refresh
    /// token, no ID token, and with `neverExpire` no `expires_in` either.
    static func harness(neverExpire: Bool) async throws -> CLIHarness {
        try await CLIHarness(configure: {
            $0.issueRefreshTokens = false
            $0.requireOpenIDScope = false
            $0.accessTokensNeverExpire = neverExpire
        })
    }

    @Test("P13 P4: without a refresh token or ID token the sign-in survives the agent, a new process and --no-agent")
    func signInOutlivesTheAgent() async throws {
        let cli = try await Self.harness(neverExpire: false)
        try await withHarness(cli) { cli in
            let login = try await cli.login(["--scope", "profile"])
            #expect(login.stderr.contains("no refresh token"), "\(login.stderr)")
            let exchanges = await cli.requestCount(.token)
            let first = try await cli.run(["token"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.count > 20)
            let status = try await cli.run(["status"])
            #expect(status.stdout.contains("no refresh token; ends at"), "\(status.stdout)")
            let json = try JSONValue(parsing: try await cli.run(["status", "--json"]).stdout)
            #expect(json["renewable"] == false && json["endsAt"]?.string != nil, "\(json)")
            #expect(try await cli.run(["agent", "--stop"]).status == 0)
            let afterStop = try await cli.run(["token"])
            #expect(afterStop.status == 0, "after agent --stop: \(afterStop.stderr)")
            let sameAfterStop = afterStop.stdout == first.stdout
            #expect(sameAfterStop, "the restarted agent serves the stored token")
            let direct = try await cli.run(["token", "--no-agent"])
            #expect(direct.status == 0, "--no-agent: \(direct.stderr)")
            let sameDirect = direct.stdout == first.stdout
            #expect(sameDirect, "a process of its own serves the stored token")
            let request = try await cli.run(["request", cli.idp.resourceURL])
            #expect(request.status == 0, "\(request.stderr)")
            #expect(await cli.requestCount(.token) == exchanges, "nothing was sent to the token endpoint twice")
        }
    }

    @Test("P13 A9: a token that does not expire says so in status; logout revokes it")
    func unboundedTokenAndLogout() async throws {
        let cli = try await Self.harness(neverExpire: true)
        try await withHarness(cli) { cli in
            try await cli.login(["--scope", "profile"])
            #expect(try await cli.run(["agent", "--stop"]).status == 0)
            let status = try await cli.run(["status"])
            #expect(status.stdout.contains("no refresh token; does not expire"), "\(status.stdout)")
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "\(token.stderr)")
            #expect(try await cli.run(["logout"]).status == 0)
            let revocations = await cli.idp.provider.requests(to: .revocation)
            let revokedTheToken = revocations.contains {
                $0.formValue("token") == token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    && $0.formValue("token_type_hint") == "access_token"
            }
            #expect(revokedTheToken, "logout revoked the access token (\(revocations.count) revocation requests)")
            let after = try await cli.run(["token"])
            #expect(after.status == 4, "\(after.stderr)")
        }
    }
}
