import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// What a hostile provider or resource can put in front of the person: terminal escapes in
/// claims, a step-up challenge built to break out of shell quoting, time claims no computer
/// holds. The real `versola` binary against the test provider.
@Suite("Provider text scenarios", .serialized)
struct ProviderTextScenarios {
    /// Sets the terminal title, writes the clipboard (OSC 52) and moves the cursor up.
    static let hostileName = "Alice\u{1B}]0;owned\u{07}\u{1B}]52;c;dG91Y2ggL3RtcC9wd25lZA==\u{07}\u{1B}[2A\u{9B}31m"

    @Test("L5: claims with terminal escapes are shown made visible by login, status and userinfo")
    func escapesInClaimsAreMadeVisible() async throws {
        let cli = try await CLIHarness(configure: {
            $0.user.name = Self.hostileName
            $0.user.email = "alice@example.com\r\u{1B}[Kroot@example.com"
        })
        try await withHarness(cli) { cli in
            let login = try await cli.login()
            let status = try await cli.run(["status"])
            let userInfo = try await cli.run(["userinfo"])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(userInfo.status == 0, "\(userInfo.stderr)")
            for outcome in [login, status, userInfo] {
                let printed = outcome.stdout + outcome.stderr
                #expect(!printed.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B || $0.value == 0x0D })
            }
            #expect(login.stdout.contains(#"Alice\x1B]0;owned\x07"#))
            #expect(status.stdout.contains(#"\x1B]52;c;"#))
            #expect(status.stdout.contains(#"alice@example.com\x0D\x1B[Kroot@example.com"#))
            #expect(userInfo.stdout.contains(#"name: Alice\x1B]0;owned\x07"#))
            // Data for scripts stays exact: --json carries the claim as the provider sent it.
            let json = try JSONValue(parsing: try await cli.run(["userinfo", "--json"]).stdout)
            #expect(json["name"]?.string == Self.hostileName)
        }
    }

    @Test("L5 A10: a step-up challenge whose acr_values would break out of shell quoting is refused")
    func hostileStepUpIsRefused() async throws {
        let marker = "/tmp/versola-pwned-" + UUID().uuidString.prefix(8)
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            await cli.idp.provider.arm(
                TestFaultRule(.resource, .stepUp(acrValues: "x'; touch \(marker); echo '", maxAge: nil), times: nil))
            let outcome = try await cli.run(["request", cli.idp.resourceURL])
            await cli.idp.provider.clearFaults()
            // Not a step-up the person is told to act on: no login advice carries the value.
            #expect(outcome.status != 5, "\(outcome.stderr)")
            #expect(!outcome.stderr.contains("--acr-values"))
            #expect(!outcome.stderr.contains("touch"))
            #expect(!FileManager.default.fileExists(atPath: marker))
        }
    }

    @Test("L5 A10: the advice for a genuine step-up is a command line the shell reads back exactly")
    func stepUpAdviceIsQuoted() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            await cli.idp.provider.arm(
                TestFaultRule(.resource, .stepUp(acrValues: "urn:mace:incommon:iap:silver http://id.example/mfa#2", maxAge: 60)))
            let outcome = try await cli.run(["request", cli.idp.resourceURL])
            #expect(outcome.status == 5, "\(outcome.stderr)")
            let advice = try #require(outcome.stderr.range(of: "versola login").map { String(outcome.stderr[$0.lowerBound...]) })
            #expect(advice.contains("--acr-values 'urn:mace:incommon:iap:silver http://id.example/mfa#2' --max-age 60"))
            // What the shell makes of the printed line: exactly the words intended.
            let words = try ShellWordTests.shellWords(advice.trimmingCharacters(in: .newlines))
            #expect(words == ["versola", "login", "--acr-values", "urn:mace:incommon:iap:silver http://id.example/mfa#2", "--max-age", "60"])
        }
    }

    @Test("A7: a validly signed token with exp 1e300, -1e300 or beyond Int64 is a claim error, never a trap")
    func outOfRangeTimesAreClaimErrors() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let issuer = cli.idp.issuer
            let now = Int(Date().timeIntervalSince1970)
            let cases = [
                #""exp":1e300,"iat":\#(now)"#, #""exp":-1e300,"iat":\#(now)"#, #""exp":1.8e19,"iat":\#(now)"#,
                #""exp":99999999999999999999999,"iat":\#(now)"#, #""exp":\#(now + 600),"iat":-1e300"#,
                #""exp":\#(now + 600),"nbf":1e308,"iat":\#(now)"#, #""exp":"1e300","iat":\#(now)"#,
            ]
            for members in cases {
                let token = await cli.idp.provider.signedToken(
                    payload: #"{"iss":"\#(issuer)","sub":"alice","aud":"versola-test",\#(members)}"#)
                let outcome = try await cli.run(["verify", "--json", "--issuer", issuer, "--audience", "versola-test", token])
                #expect(outcome.status == 6, "\(members): exit \(outcome.status) \(outcome.stderr)")
                let error = try JSONValue(parsing: outcome.stderr)["error"]
                #expect(error?["cause"] == "idTokenRejected", "\(members)")
            }
            // A sane token signed the same way passes: the refusals above are about the numbers.
            let good = await cli.idp.provider.signedToken(
                payload: #"{"iss":"\#(issuer)","sub":"alice","aud":"versola-test","exp":\#(now + 600),"iat":\#(now)}"#)
            let accepted = try await cli.run(["verify", "--issuer", issuer, "--audience", "versola-test", good])
            #expect(accepted.status == 0, "\(accepted.stderr)")
            #expect(!accepted.stderr.contains("warning"))
        }
    }

    @Test("A7: verify without --audience warns that any client's token passes; --type at+jwt checks RFC 9068 typ")
    func audienceWarningAndTokenType() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let issuer = cli.idp.issuer
            let now = Int(Date().timeIntervalSince1970)
            let payload = #"{"iss":"\#(issuer)","sub":"alice","aud":"api","exp":\#(now + 600),"iat":\#(now)}"#
            let idTyped = await cli.idp.provider.signedToken(payload: payload, type: "JWT")
            let accessTyped = await cli.idp.provider.signedToken(payload: payload, type: "at+jwt")
            let mediaTyped = await cli.idp.provider.signedToken(payload: payload, type: "application/AT+JWT")

            let unscoped = try await cli.run(["verify", "--issuer", issuer, idTyped])
            #expect(unscoped.status == 0, "\(unscoped.stderr)")
            #expect(unscoped.stderr.contains("warning: no --audience"))
            #expect(unscoped.stderr.contains("any client"))

            let wrongType = try await cli.run(["verify", "--json", "--issuer", issuer, "--audience", "api", "--type", "at+jwt", idTyped])
            #expect(wrongType.status == 6)
            #expect(try JSONValue(parsing: wrongType.stderr)["error"]?["reason"]?.string?.contains("RFC 9068") == true)
            for token in [accessTyped, mediaTyped] {
                let typed = try await cli.run(["verify", "--issuer", issuer, "--audience", "api", "--type", "at+jwt", token])
                #expect(typed.status == 0, "\(typed.stderr)")
            }
            #expect(try await cli.run(["verify", "--type", "id", idTyped]).status == 2)
        }
    }
}
