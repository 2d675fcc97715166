import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// The built `versola` binary with the defaults of issue 14: the DPoP mode, TLS trust, the
/// CA file check and the waiting hint.
@Suite("versola provider defaults", .serialized)
struct ProviderDefaultsCommandTests {
    @Test("A11: login says which tokens it chose, and --dpop MODE is saved in the profile")
    func dpopChoiceShownAndSaved() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let first = try await cli.login()
            #expect(first.stderr.contains("Tokens: DPoP-bound"), "\(first.stderr)")
            let off = try await cli.login(["--dpop", "off"])
            #expect(off.stderr.contains("Tokens: Bearer (--dpop off)"), "\(off.stderr)")
            let saved = try #require(FileManager.default.contents(atPath: cli.home.path + "/config/versola/profiles/default.json"))
            #expect(try JSONValue(parsing: saved)["dpop"] == "off")
            let token = try await cli.run(["token", "--format", "json"])
            #expect(try JSONValue(parsing: token.stdout)["tokenType"] == "Bearer")
        }
    }

    @Test("A11: against a provider without DPoP metadata the default login succeeds with Bearer tokens")
    func defaultLoginWithoutDPoPMetadata() async throws {
        let cli = try await CLIHarness(configure: { $0.advertiseDPoP = false })
        try await withHarness(cli) { cli in
            let login = try await cli.login()
            #expect(login.stderr.contains("Tokens: Bearer (the provider does not advertise DPoP)"), "\(login.stderr)")
            let refused = try await cli.run(
                ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--dpop", "require", "--json",
                 "--browser-command", CLIHarness.browser])
            #expect(refused.status == 6)
            let error = try #require(try JSONValue(parsing: refused.stderr)["error"])
            #expect(error["cause"] == "providerUnsupported")
            #expect(error["reason"]?.string?.contains("--dpop off") == true)
        }
    }

    @Test("issue 13: a --ca-file that does not exist is invalidConfiguration before any request")
    func missingCAFile() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let outcome = try await cli.run(
                ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--ca-file", cli.home.path + "/none.pem",
                 "--json"])
            #expect(outcome.status == 6)
            let error = try #require(try JSONValue(parsing: outcome.stderr)["error"])
            #expect(error["cause"] == "invalidConfiguration")
            #expect(error["reason"]?.string?.contains("--ca-file") == true)
            #expect(await cli.requestCount(.discovery) == 0)
        }
    }

    @Test("E14: the command trusts the CA named by SSL_CERT_FILE; without it the certificate is a configuration error")
    func sslCertFileHonoured() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let certificates = try TestCertificates()
            let server = try TestTLSServer(certificate: certificates.leaf, key: certificates.leafKey)
            defer { server.stop() }
            let arguments = ["login", "--issuer", "https://localhost:\(server.port)", "--client-id", "c", "--no-browser", "--json"]
            let untrusted = try await cli.run(arguments)
            #expect(untrusted.status == 6, "\(untrusted.stderr)")
            let refusal = try #require(try JSONValue(parsing: untrusted.stderr)["error"])
            #expect(refusal["cause"] == "invalidConfiguration")
            #expect(refusal["reason"]?.string?.contains("unknown issuer") == true, "\(untrusted.stderr)")
            let trusted = try await cli.run(arguments, extraEnvironment: ["SSL_CERT_FILE": certificates.authority])
            // Past the handshake: the test server's HTML page is no metadata document, at any location (A16).
            let answer = try #require(try JSONValue(parsing: trusted.stderr)["error"])
            #expect(answer["cause"] == "invalidConfiguration", "\(trusted.stderr)")
            #expect(answer["reason"]?.string?.contains("not a metadata document") == true, "\(trusted.stderr)")
        }
    }

    @Test("The waiting line's redirect URI hint comes after 20 s and names the port to fix")
    func waitingHint() throws {
        let uri = "http://127.0.0.1:53123/callback"
        #expect(LoginNotes.dueHint(waited: 19, redirectURI: uri, fixedPort: false) == nil)
        let hint = try #require(LoginNotes.dueHint(waited: 20, redirectURI: uri, fixedPort: false))
        #expect(hint.contains("--port 53123"))
        #expect(hint.contains(uri))
        let fixed = LoginNotes.dueHint(waited: 25, redirectURI: uri, fixedPort: true)
        #expect(fixed?.contains("--port") == false)
        #expect(fixed?.contains(uri) == true)
        #expect(LoginNotes.dueHint(waited: 60, redirectURI: nil, fixedPort: false) == nil)
        #expect(LoginNotes.port(of: "http://[::1]:8400/cb") == "8400")
        #expect(LoginNotes.port(of: "http://127.0.0.1/cb") == nil)
    }
}
