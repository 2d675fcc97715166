import Foundation
import VersolaTestIdP

// versola-test-idp: a strict OpenID Provider on loopback for tests, demos and conformance runs.
// Prints the issuer URL as its first line, then serves until stopped.

let usage = """
    usage: versola-test-idp [--port N] [--issuer-path PATH] [--auto-login] [--fault-plan FILE]
                            [--require-par] [--require-dpop] [--dpop-nonce] [--separate-resource-server]
                            [--exact-redirect-port] [--refresh-tokens|--no-refresh-tokens]
                            [--access-token-lifetime SECONDS] [--no-dpop-metadata] [--no-offline-access]
                            [--consent-for-offline-access] [--no-code-response-type]
                            [--confidential-client ID:SECRET] [--device-interval SECONDS]
                            [--imitate PROVIDER] [--protected-resources PATH,...]

      --imitate PROVIDER         behave as the stand-in of a provider (google, entra, entra-common, okta,
                                 auth0, keycloak, gitlab, github, github-oauth-app, dex, rfc8414; see
                                 TestStandIn): its metadata, secret rules and quirks, with the client
                                 versola-standin (secret standin-secret-0123 where the provider has
                                 one) and its issuer path; give it first, other flags then adjust it
      --protected-resources P,…  serve these paths of the resource server as RFC 9728 protected
                                 resources, with RFC 7591 registration and RFC 8707 resource required
                                 (implies --separate-resource-server)
      --port N                   listen on port N (0, the default, picks a free port)
      --issuer-path PATH         give the issuer a path, e.g. /tenant
      --auto-login               sign the test user in without a form (for curl -L and headless runs)
      --fault-plan FILE          arm the faults in FILE (JSON; see TestFaultPlan)
      --require-par              refuse authorization requests that were not pushed
      --require-dpop             refuse token requests without a DPoP proof
      --dpop-nonce               demand the server's nonce in DPoP proofs (authorization and resource server)
      --separate-resource-server serve the protected resource on its own port (printed second)
      --exact-redirect-port      match loopback redirect URIs with their port (no RFC 8252 any-port rule)
      --access-token-lifetime S  access token lifetime in seconds (default 300)
      --no-dpop-metadata         omit dpop_signing_alg_values_supported from discovery
      --no-offline-access        omit offline_access from scopes_supported
      --consent-for-offline-access  refuse offline_access without prompt=consent (invalid_request)
      --no-code-response-type    advertise response_types_supported without code
      --confidential-client ID:SECRET
                                 also know client ID, which must authenticate with SECRET at the
                                 token endpoint (HTTP Basic or client_secret; e.g. for oidc-agent)
      --device-interval S        the device flow's poll interval in seconds (default 5)

    The test user is alice / wonderland. Clients: versola-test (RS256 ID tokens) and
    versola-test-es256 (ES256), both public, redirect http://127.0.0.1/callback on any port.
    Device flow (RFC 8628): {issuer}/device_authorization; with --auto-login, opening the
    verification_uri_complete approves the code.
    Administration: POST {issuer}/_admin/faults, POST {issuer}/_admin/clear-faults,
    POST {issuer}/_admin/rotate-keys, GET {issuer}/_admin/requests.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("versola-test-idp: \(message)\n".utf8))
    exit(2)
}

/// What the command line asked for.
struct Options {
    var configuration = TestProviderConfiguration()
    var port: UInt16 = 0
    var issuerPath = ""
    var planFile: String?
    var separateResource = false
}

extension Options {
    /// The flags that take no value, each with the change it makes.
    static let switches: [String: @Sendable (inout Options) -> Void] = [
        "--auto-login": { $0.configuration.autoLogin = true },
        "--require-par": { $0.configuration.requirePushedAuthorizationRequests = true },
        "--require-dpop": { $0.configuration.requireDPoP = true },
        "--no-dpop-metadata": { $0.configuration.advertiseDPoP = false },
        "--no-offline-access": { $0.configuration.advertiseOfflineAccess = false },
        "--consent-for-offline-access": { $0.configuration.requireConsentForOfflineAccess = true },
        "--no-code-response-type": { $0.configuration.responseTypesSupported = ["id_token"] },
        "--dpop-nonce": {
            $0.configuration.requireDPoPNonce = true
            $0.configuration.resourceRequiresDPoPNonce = true
        },
        "--separate-resource-server": { $0.separateResource = true },
        "--exact-redirect-port": { options in
            for index in options.configuration.clients.indices {
                options.configuration.clients[index].allowsAnyLoopbackPort = false
            }
        },
        "--refresh-tokens": { $0.configuration.issueRefreshTokens = true },
        "--no-refresh-tokens": { $0.configuration.issueRefreshTokens = false },
    ]
}

func parseOptions(_ list: [String]) -> Options {
    var options = Options()
    var arguments = list[...]
    func value(after flag: String) -> String {
        guard let next = arguments.popFirst() else { fail("\(flag) needs a value") }
        return next
    }
    while let argument = arguments.popFirst() {
        switch argument {
        case "--port":
            guard let parsed = UInt16(value(after: argument)) else { fail("--port needs a number 0…65535") }
            options.port = parsed
        case "--issuer-path": options.issuerPath = value(after: argument)
        case "--imitate":
            let name = value(after: argument)
            guard let standIn = TestStandIn(rawValue: name) else {
                fail("--imitate takes one of \(TestStandIn.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let autoLogin = options.configuration.autoLogin
            options.configuration = standIn.configuration
            options.configuration.autoLogin = autoLogin || standIn.configuration.autoLogin
            options.issuerPath = standIn.issuerPath
        case "--protected-resources":
            options.configuration.protectedResourcePaths = value(after: argument).split(separator: ",").map(String.init)
            options.configuration.dynamicRegistration = true
            options.configuration.requireResourceIndicator = true
            options.separateResource = true
        case "--fault-plan": options.planFile = value(after: argument)
        case let flag where Options.switches[flag] != nil: Options.switches[flag]?(&options)
        case "--access-token-lifetime":
            guard let seconds = Int(value(after: argument)), seconds > 0 else {
                fail("--access-token-lifetime needs seconds")
            }
            options.configuration.accessTokenLifetime = seconds
        case "--device-interval":
            guard let seconds = Int(value(after: argument)), (1...3600).contains(seconds) else {
                fail("--device-interval needs seconds 1…3600")
            }
            options.configuration.deviceInterval = seconds
        case "--confidential-client":
            let pair = value(after: argument)
            guard let colon = pair.firstIndex(of: ":"), colon != pair.startIndex else {
                fail("--confidential-client needs ID:SECRET")
            }
            options.configuration.clients.append(
                TestClient(id: String(pair[..<colon]), secret: String(pair[pair.index(after: colon)...])))
        case "-h", "--help":
            print(usage)
            exit(0)
        default:
            fail("unknown argument \(argument)\n\(usage)")
        }
    }
    return options
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
let planFile = options.planFile
var plan: TestFaultPlan?
if let planFile {
    guard let text = try? String(contentsOfFile: planFile, encoding: .utf8) else { fail("cannot read \(planFile)") }
    do { plan = try TestFaultPlan(json: text) } catch { fail(error.description) }
}

let server: TestIdentityServer
do {
    server = try await TestIdentityServer.start(
        configuration: options.configuration, port: options.port, issuerPath: options.issuerPath,
        separateResourceServer: options.separateResource)
} catch {
    fail(error.description)
}
if let plan { await server.provider.arm(plan) }
print(server.issuer)
if options.separateResource { print(server.resourceURL) }
fflush(nil)

// Serve until SIGINT or SIGTERM ends the process; the kernel frees the ports.
signal(SIGINT) { _ in _exit(0) }
signal(SIGTERM) { _ in _exit(0) }
while true {
    try? await Task.sleep(for: .seconds(3600))
}
