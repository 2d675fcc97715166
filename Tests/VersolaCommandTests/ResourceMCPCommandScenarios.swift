import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// A19 as the MCP 2026-07-28 revision states it, through the command alone: each test signs in
/// with `versola login --resource URL` and nothing a person would have to guess, against a
/// stand-in of the server an MCP conformance scenario (`modelcontextprotocol/conformance`,
/// `src/scenarios/client/auth/`) sets up, and ends with the API answering 200.
@Suite("versola resource-first sign-in, MCP shapes", .serialized)
struct ResourceMCPCommandScenarios {
    static func harness(
        separateResourceServer: Bool = true, _ configure: @escaping @Sendable (inout TestProviderConfiguration) -> Void
    ) async throws -> CLIHarness {
        try await CLIHarness(
            configure: {
                $0.metadata = .oauthAuthorizationServer
                $0.requireOpenIDScope = false
                $0.advertiseDPoP = false
                $0.advertisePushedAuthorizationRequests = false
                $0.protectedResourcePaths = ["/mcp"]
                $0.dynamicRegistration = true
                $0.requireResourceIndicator = true
                configure(&$0)
            }, separateResourceServer: separateResourceServer)
    }

    /// A server that offers `tools:read` and asks for `tools:write` too (A20's step-up), and
    /// whatever `configure` adds.
    static func stepUpHarness(
        _ configure: @escaping @Sendable (inout TestProviderConfiguration) -> Void = { _ in }
    ) async throws -> CLIHarness {
        try await harness {
            $0.protectedResourceScopes = ["tools:read"]
            $0.protectedResourceRequiredScopes = ["tools:read", "tools:write"]
            configure(&$0)
        }
    }

    /// Signs in for `mcp` and asks it once; the answer's body.
    static func signInAndAsk(_ cli: CLIHarness, _ mcp: String) async throws -> JSONValue {
        let login = try await cli.run(["login", "--resource", mcp, "--browser-command", CLIHarness.browser])
        try #require(login.status == 0, "\(login.stderr)")
        let answer = try await cli.run(["request", mcp, "--json"])
        try #require(answer.status == 0, "\(answer.stderr)")
        let reply = try JSONValue(parsing: Array(answer.stdout.utf8))
        #expect(reply["status"]?.int64 == 200, "\(answer.stdout)")
        return try JSONValue(parsing: Array((reply["body"]?.string ?? "").utf8))
    }

    @Test("A19: login --resource reads the metadata location the API's 401 names (MCP auth/metadata-var3)")
    func customMetadataLocation() async throws {
        let cli = try await Self.harness { $0.protectedResourceMetadata = .custom("/custom/metadata/location.json") }
        try await withHarness(cli) { cli in
            let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
            let body = try await Self.signInAndAsk(cli, mcp)
            #expect(body["aud"]?.string == mcp)
        }
    }

    @Test("A19: root metadata naming the origin; the origin is the resource the token is for (MCP auth/metadata-var2)")
    func rootMetadata() async throws {
        let cli = try await Self.harness {
            $0.protectedResourceMetadata = .root
            $0.challengeNamesResourceMetadata = false
        }
        try await withHarness(cli) { cli in
            let origin = String(cli.idp.resourceURL.dropLast("/resource".count))
            let body = try await Self.signInAndAsk(cli, origin + "/mcp")
            #expect(body["aud"]?.string == origin)
        }
    }

    @Test("A19: no metadata anywhere: the origin's /authorize, /token, /register, no scope (MCP auth/2025-03-26-oauth-endpoint-fallback, auth/scope-omitted-when-undefined)")
    func endpointFallback() async throws {
        let cli = try await Self.harness(separateResourceServer: false) {
            $0.protectedResourceMetadata = .none
            $0.metadata = .none
            $0.requireResourceIndicator = false
            $0.challengeNamesScope = false
        }
        try await withHarness(cli) { cli in
            let mcp = cli.idp.issuer + "/mcp"
            _ = try await Self.signInAndAsk(cli, mcp)
            #expect(await cli.idp.provider.requests(to: .registration).count == 1)
            let authorize = try #require(await cli.idp.provider.requests(to: .authorize).first)
            #expect(URLComponents(string: authorize.target)?.queryItems?.contains { $0.name == "scope" } == false)
        }
    }

    @Test("A19: request with no session prints a non-401 answer as it is and exits as curl would; a 401's scope goes into the sign-in line")
    func noSessionAnswers() async throws {
        let cli = try await Self.harness { _ in }
        try await withHarness(cli) { cli in
            let base = String(cli.idp.resourceURL.dropLast("/resource".count))
            let open = try await cli.run(["request", base + "/open"])
            #expect(open.status == 0, "\(open.stderr)")
            #expect(open.stderr.contains("HTTP 404"), "\(open.stderr)")
            #expect(!open.stderr.contains("no profile"), "\(open.stderr)")
            let failing = try await cli.run(["request", "--fail", base + "/open"])
            #expect(failing.status == 22, "\(failing.stderr)")
            let challenged = try await cli.run(["request", base + "/mcp"])
            #expect(challenged.status == 6, "\(challenged.stderr)")
            #expect(
                challenged.stderr.contains("versola login --resource \(base)/mcp --scope tools:read --scope offline_access"),
                "\(challenged.stderr)")
        }
    }

    @Test("A19: the token signed in for /a_b is never sent to /a/b, whose profile name once folded into the same (issue 40 item 1)")
    func foldedNamesKeepTheirTokens() async throws {
        let cli = try await Self.harness { $0.protectedResourcePaths = ["/a_b", "/a/b"] }
        try await withHarness(cli) { cli in
            let base = String(cli.idp.resourceURL.dropLast("/resource".count))
            let login = try await cli.run(["login", "--resource", base + "/a_b", "--browser-command", CLIHarness.browser])
            try #require(login.status == 0, "\(login.stderr)")
            #expect(try await cli.run(["request", base + "/a_b"]).status == 0)
            for url in [base + "/a/b", base + "/a_b/../a/b"] {
                let other = try await cli.run(["request", url])
                #expect(other.status == 6, "\(url): \(other.stderr)")
                #expect(other.stderr.contains("versola login --resource \(base)/a/b"), "\(other.stderr)")
            }
            let sent = await cli.idp.provider.requests(to: .resource).filter { URLComponents(string: $0.target)?.path == "/a/b" }
            #expect(!sent.isEmpty)
            #expect(sent.allSatisfy { $0.headers["Authorization"] == nil }, "no token went to /a/b")
            let token = try await cli.run(["token", "--resource", base + "/a/b"])
            #expect(token.status == 6, "\(token.stderr)")
        }
    }

    @Test("A20: a 403 insufficient_scope gives the step-up category and the exact login line for the union of scopes; that line then gets the answer (MCP auth/scope-step-up)")
    func stepUpLine() async throws {
        let cli = try await Self.stepUpHarness()
        try await withHarness(cli) { cli in
            let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
            let login = try await cli.run(["login", "--resource", mcp, "--browser-command", CLIHarness.browser])
            try #require(login.status == 0, "\(login.stderr)")
            let refused = try await cli.run(["request", mcp])
            #expect(refused.status == 5, "the step-up category: \(refused.stderr)")
            let profile = try #require(ResourceProfile.name(for: mcp))
            let expected = "versola login --profile \(profile) --scope tools:read --scope offline_access --scope tools:write"
            #expect(refused.stderr.contains(expected), "\(refused.stderr)")
            let json = try await cli.run(["request", mcp, "--json"])
            #expect(json.stderr.contains("\"scopes\":[\"tools:read\",\"offline_access\",\"tools:write\"]"), "\(json.stderr)")
            let words = expected.split(separator: " ").dropFirst().map(String.init)
            let again = try await cli.run(words + ["--browser-command", CLIHarness.browser])
            try #require(again.status == 0, "\(again.stderr)")
            let answer = try await cli.run(["request", mcp])
            #expect(answer.status == 0, "\(answer.stderr)")
            let authorize = try #require(await cli.idp.provider.requests(to: .authorize).last)
            let scope = URLComponents(string: authorize.target)?.queryItems?.first { $0.name == "scope" }?.value
            #expect(scope == "tools:read offline_access tools:write")
        }
    }

    @Test("A20: a 401 insufficient_scope for a held token is the step-up too: no refresh, exit 5 and the same login line, which then gets the answer")
    func stepUpOn401() async throws {
        let cli = try await Self.stepUpHarness {
            $0.protectedResourceInsufficientScopeStatus = 401
        }
        try await withHarness(cli) { cli in
            let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
            let login = try await cli.run(["login", "--resource", mcp, "--browser-command", CLIHarness.browser])
            try #require(login.status == 0, "\(login.stderr)")
            let refused = try await cli.run(["request", mcp])
            #expect(refused.status == 5, "the step-up category, not sessionRejected: \(refused.stderr)")
            let profile = try #require(ResourceProfile.name(for: mcp))
            let expected = "versola login --profile \(profile) --scope tools:read --scope offline_access --scope tools:write"
            #expect(refused.stderr.contains(expected), "\(refused.stderr)")
            let refreshes = await cli.idp.provider.requests(to: .token).filter { $0.formValue("grant_type") == "refresh_token" }
            #expect(refreshes.isEmpty, "a refresh adds no scope")
            let words = expected.split(separator: " ").dropFirst().map(String.init)
            let again = try await cli.run(words + ["--browser-command", CLIHarness.browser])
            try #require(again.status == 0, "\(again.stderr)")
            let answer = try await cli.run(["request", mcp])
            #expect(answer.status == 0, "\(answer.stderr)")
        }
    }

    @Test("A19: signing in again after the metadata names another server registers and signs in there; nothing of the first server reaches it (MCP auth/authorization-server-migration)")
    func serverMigration() async throws {
        let cli = try await Self.harness { _ in }
        var second = TestProviderConfiguration()
        second.autoLogin = true
        second.metadata = .oauthAuthorizationServer
        second.requireOpenIDScope = false
        second.advertiseDPoP = false
        second.advertisePushedAuthorizationRequests = false
        second.dynamicRegistration = true
        let other = try await TestIdentityServer.start(configuration: second)
        try await withHarness(cli) { cli in
            let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
            let login = try await cli.run(["login", "--resource", mcp, "--browser-command", CLIHarness.browser])
            try #require(login.status == 0, "\(login.stderr)")
            #expect(await cli.idp.provider.requests(to: .registration).count == 1)
            await cli.idp.provider.configure { $0.protectedResourceAuthorizationServers = [other.issuer] }
            let profile = try #require(ResourceProfile.name(for: mcp))
            let again = try await cli.run(["login", "--profile", profile, "--browser-command", CLIHarness.browser])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(await other.provider.requests(to: .registration).count == 1, "registered at the new server")
            #expect(await other.provider.requests(to: .token).count == 1, "signed in there")
            let firstTokens = await cli.idp.provider.requests(to: .token).count
            #expect(firstTokens == 1, "nothing more at the first server")
            for request in await other.provider.requests() {
                #expect(request.formValue("refresh_token") == nil, "no refresh token of the first server")
            }
            let authorize = try #require(await other.provider.requests(to: .authorize).first)
            let clientID = URLComponents(string: authorize.target)?.queryItems?.first { $0.name == "client_id" }?.value
            let firstAuthorize = try #require(await cli.idp.provider.requests(to: .authorize).first)
            let firstID = URLComponents(string: firstAuthorize.target)?.queryItems?.first { $0.name == "client_id" }?.value
            #expect(clientID != nil && clientID != firstID, "the new server's own client, not the first's")
        }
        await other.stop()
    }

    @Test("A19: login --client-metadata-url: the document is the client id where the server takes them; nothing is registered (MCP auth/basic-cimd)")
    func clientMetadataDocument() async throws {
        let cli = try await Self.harness { $0.clientIDMetadataDocuments = true }
        // The app's document, served where its URL says (its client_id is that URL).
        let documents = try HTTPServer.start(address: .ipv4Loopback, port: 0) { request in
            let url = "http://" + (request.headers["Host"] ?? "") + request.path
            let document: JSONValue = [
                "client_id": .string(url), "client_name": "versola", "redirect_uris": ["http://127.0.0.1/callback"],
                "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"],
            ]
            return .respond(HTTPServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: document.serializedBytes()))
        }
        try await withHarness(cli) { cli in
            let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
            let documentURL = documents.baseURL + "/client.json"
            let login = try await cli.run([
                "login", "--resource", mcp, "--client-metadata-url", documentURL, "--browser-command", CLIHarness.browser,
            ])
            try #require(login.status == 0, "\(login.stderr)")
            #expect(await cli.idp.provider.requests(to: .registration).isEmpty, "no registration")
            let authorize = try #require(await cli.idp.provider.requests(to: .authorize).first)
            #expect(URLComponents(string: authorize.target)?.queryItems?.first { $0.name == "client_id" }?.value == documentURL)
            let answer = try await cli.run(["request", mcp])
            #expect(answer.status == 0, "\(answer.stderr)")
        }
        await documents.stop()
    }

    /// Signs in for the stand-in's MCP endpoint, then runs `versola request` for it on a
    /// terminal of its own (util-linux script(1)), as a person would.
    static func signedInRequestOnATerminal(_ cli: CLIHarness) async throws -> CLIHarness.Outcome {
        let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
        let login = try await cli.run(["login", "--resource", mcp, "--browser-command", CLIHarness.browser])
        try #require(login.status == 0, "\(login.stderr)")
        let stem = cli.home.path + "/terminal"
        let command = ShellWord.quoted(CLIHarness.executable) + " request " + ShellWord.quoted(mcp)
        let pid = try cli.spawn("/usr/bin/script", ["-qec", command, "/dev/null"], stem: stem)
        return await cli.finished(pid, stem: stem)
    }

    @Test(
        "A20: on a terminal, the 403 insufficient_scope (or a 401 naming more scope) leads to the browser sign-in for the union of scopes and the request once more, answered (MCP auth/scope-step-up)",
        arguments: [403, 401])
    func stepUpOnATerminal(status: Int) async throws {
        let cli = try await Self.stepUpHarness {
            $0.protectedResourceInsufficientScopeStatus = status
        }
        try await withHarness(cli) { cli in
            let outcome = try await Self.signedInRequestOnATerminal(cli)
            #expect(outcome.status == 0, "\(outcome.stdout) \(outcome.stderr)")
            #expect(outcome.stdout.contains("\"resource\":\"ok\""), "the API's answer after the step-up: \(outcome.stdout)")
            let authorize = try #require(await cli.idp.provider.requests(to: .authorize).last)
            let scope = URLComponents(string: authorize.target)?.queryItems?.first { $0.name == "scope" }?.value
            #expect(scope == "tools:read offline_access tools:write")
            #expect(await cli.idp.provider.requests(to: .authorize).count == 2, "one step-up")
        }
    }

    @Test("A20: on a terminal, an API that refuses every token signs in once more at most, then exits with the step-up line (MCP auth/scope-retry-limit)")
    func stepUpRetryLimit() async throws {
        let cli = try await Self.stepUpHarness {
            $0.protectedResourceNeverSatisfied = true
        }
        try await withHarness(cli) { cli in
            let outcome = try await Self.signedInRequestOnATerminal(cli)
            #expect(outcome.status == 5, "the step-up category: \(outcome.stdout)")
            #expect(outcome.stdout.contains("--scope tools:write"), "\(outcome.stdout)")
            #expect(await cli.idp.provider.requests(to: .authorize).count == 2, "one step-up, not a loop")
            let withToken = await cli.idp.provider.requests(to: .resource).filter { $0.headers["Authorization"] != nil }
            #expect(withToken.count == 2, "the request and one retry")
        }
    }

    @Test("A19: a 401 naming metadata on another loopback service: request does not fetch it, login refuses naming it (issue 40 item 3)")
    func metadataOnAnotherLoopbackService() async throws {
        let cli = try await Self.harness { _ in }
        try await withHarness(cli) { cli in
            let elsewhere = cli.idp.issuer + "/.well-known/oauth-protected-resource"
            await cli.idp.provider.configure { $0.protectedResourceMetadata = .custom(elsewhere) }
            let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
            let hint = try await cli.run(["request", mcp + "/tools"])
            #expect(hint.status == 6, "\(hint.stderr)")
            #expect(hint.stderr.contains("versola login --resource \(mcp)/tools"), "the URL asked, not what the metadata says: \(hint.stderr)")
            let login = try await cli.run(["login", "--resource", mcp, "--browser-command", CLIHarness.browser])
            #expect(login.status == 6, "the configuration category: \(login.stderr)")
            #expect(login.stderr.contains(elsewhere), "\(login.stderr)")
            let other = "127.0.0.1:\(cli.idp.port)"
            let fetched = await cli.idp.provider.requests(to: .resourceMetadata).filter { $0.headers["Host"] == other }
            #expect(fetched.isEmpty, "nothing fetched from the other service")
            #expect(await cli.idp.provider.requests(to: .registration).isEmpty)
        }
    }

    @Test("A19: a login for a resource whose profile holds another resource's sign-in refuses without --profile, and replaces it with (issue 40 item 1)")
    func loginDoesNotReplaceAnotherResource() async throws {
        let cli = try await Self.harness { $0.protectedResourcePaths = ["/mcp", "/tools"] }
        try await withHarness(cli) { cli in
            let base = String(cli.idp.resourceURL.dropLast("/resource".count))
            let toolsProfile = try #require(ResourceProfile.name(for: base + "/tools"))
            let first = try await cli.run([
                "login", "--resource", base + "/mcp", "--profile", toolsProfile, "--browser-command", CLIHarness.browser,
            ])
            try #require(first.status == 0, "\(first.stderr)")
            let refused = try await cli.run(["login", "--resource", base + "/tools", "--browser-command", CLIHarness.browser])
            #expect(refused.status == 6, "\(refused.stderr)")
            #expect(refused.stderr.contains("holds the sign-in for \(base)/mcp"), "\(refused.stderr)")
            #expect(refused.stderr.contains("--profile \(toolsProfile)"), "\(refused.stderr)")
            #expect(await cli.idp.provider.requests(to: .authorize).count == 1, "no second sign-in started")
            let replaced = try await cli.run([
                "login", "--resource", base + "/tools", "--profile", toolsProfile, "--browser-command", CLIHarness.browser,
            ])
            #expect(replaced.status == 0, "\(replaced.stderr)")
        }
    }

    @Test("A19: a profile an earlier versola named (folded, no hash) is still found for its own resource, never for one that folds into the same name")
    func earlierProfileNames() async throws {
        let cli = try await Self.harness { $0.protectedResourcePaths = ["/a_b", "/a/b"] }
        try await withHarness(cli) { cli in
            let base = String(cli.idp.resourceURL.dropLast("/resource".count))
            let earlier = try #require(ResourceProfile.earlierName(for: base + "/a_b"))
            #expect(ResourceProfile.earlierName(for: base + "/a/b") == earlier, "the names that once collided")
            let login = try await cli.run([
                "login", "--resource", base + "/a_b", "--profile", earlier, "--browser-command", CLIHarness.browser,
            ])
            try #require(login.status == 0, "\(login.stderr)")
            #expect(try await cli.run(["request", base + "/a_b/tools"]).status == 0)
            #expect(try await cli.run(["token", "--resource", base + "/a_b"]).status == 0)
            let other = try await cli.run(["request", base + "/a/b"])
            #expect(other.status == 6, "\(other.stderr)")
            #expect(try await cli.run(["token", "--resource", base + "/a/b"]).status == 6)
            let sent = await cli.idp.provider.requests(to: .resource).filter { URLComponents(string: $0.target)?.path == "/a/b" }
            #expect(sent.allSatisfy { $0.headers["Authorization"] == nil }, "no token went to /a/b")
        }
    }
}
