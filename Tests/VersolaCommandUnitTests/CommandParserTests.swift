import Testing
import Versola
import VersolaHTTP

@testable import VersolaCommand

@Suite("Command parser")
struct CommandParserTests {
    private func parse(_ arguments: String..., environment: [String: String] = [:]) throws -> Invocation {
        try CommandParser.parse(arguments, environment: environment)
    }

    @Test func loginTakesEveryOption() throws {
        let invocation = try parse(
            "login", "--issuer", "https://id.example", "--client-id=cli", "--scope", "openid profile", "--scope",
            "offline_access", "--profile", "work", "--no-dpop", "--browser-command", "curl -s %s", "--no-browser",
            "--port", "8765", "--redirect-path", "/cb", "--ca-file", "/ca.pem", "--acr-values", "urn:mfa urn:hw",
            "--max-age", "30", "--json")
        var expected = LoginOptions(issuer: "https://id.example", clientID: "cli")
        expected.scopes = ["openid", "profile", "offline_access"]
        expected.dpop = .off
        expected.browserCommand = "curl -s %s"
        expected.noBrowser = true
        expected.port = 8765
        expected.redirectPath = "/cb"
        expected.caFile = "/ca.pem"
        expected.acrValues = ["urn:mfa", "urn:hw"]
        expected.maxAge = 30
        #expect(invocation.command == .login(expected))
        #expect(invocation.global.profile == "work")
        #expect(invocation.global.json)
    }

    @Test func keySourceAndPassphraseDescriptor() throws {
        let login = try parse("login", "--key-source", "secret-service", "--passphrase-fd=3")
        #expect(login.command == .login(LoginOptions(keySource: .secretService, passphraseDescriptor: 3)))
        #expect(try parse("login", "--key-source", "file").command == .login(LoginOptions(keySource: .keyFile)))
        #expect(try parse("unlock").command == .unlock(UnlockOptions()))
        #expect(try parse("unlock", "--passphrase-fd", "0").command == .unlock(UnlockOptions(passphraseDescriptor: 0)))
        for bad in [["login", "--key-source", "keyring"], ["unlock", "--passphrase-fd", "-1"], ["unlock", "extra"]] {
            #expect(throws: UsageError.self) { try CommandParser.parse(bad) }
        }
    }

    // A11: `--dpop MODE`, with `--dpop` alone and `--no-dpop` as aliases of require and off.
    @Test func dpopModes() throws {
        func mode(_ arguments: String...) throws -> DPoPMode? {
            guard case .login(let options) = try CommandParser.parse(["login"] + arguments).command else { return nil }
            return options.dpop
        }
        #expect(try mode() == nil)
        #expect(try mode("--dpop", "auto") == .auto)
        #expect(try mode("--dpop=off") == .off)
        #expect(try mode("--dpop", "require") == .require)
        #expect(try mode("--dpop") == .require)
        #expect(try mode("--dpop", "--no-browser") == .require, "a following flag is not the mode")
        #expect(try mode("--no-dpop") == .off)
        #expect(throws: UsageError.self) { try mode("--dpop=sometimes") }
        #expect(throws: UsageError.self) { try mode("--dpop", "sometimes") }
    }

    @Test func tokenFormatsAndGlobalFlagsAnywhere() throws {
        let invocation = try parse("--json", "token", "--force-refresh", "--format", "k8s", "--no-agent")
        #expect(invocation.command == .token(TokenOptions(forceRefresh: true, format: .k8s)))
        #expect(invocation.global.json)
        #expect(invocation.global.noAgent)
        #expect(throws: UsageError.self) { try parse("token", "--format", "yaml") }
    }

    @Test func environmentDisablesColourAndAgent() throws {
        let invocation = try parse("status", environment: ["NO_COLOR": "1", "VERSOLA_NO_AGENT": "1"])
        #expect(invocation.command == .status(StatusOptions()))
        #expect(!invocation.global.color)
        #expect(invocation.global.noAgent)
        let plain = try parse("status", "--watch", environment: ["NO_COLOR": ""])
        #expect(plain.global.color)
        #expect(plain.command == .status(StatusOptions(watch: true)))
    }

    @Test func requestLikeCurl() throws {
        let invocation = try parse(
            "request", "-X", "put", "-H", "Content-Type: application/json", "-H", "X-A:b", "-d", "{}",
            "https://api.example/v1")
        let expected = RequestOptions(
            method: "PUT",
            headers: [HeaderArgument(name: "Content-Type", value: "application/json"), HeaderArgument(name: "X-A", value: "b")],
            data: "{}", url: "https://api.example/v1")
        #expect(invocation.command == .request(expected))
        #expect(RequestOptions(url: "u").effectiveMethod == "GET")
        #expect(RequestOptions(data: "x", url: "u").effectiveMethod == "POST")
        #expect(throws: UsageError.self) { try parse("request", "-H", "novalue", "https://a") }
        #expect(throws: UsageError.self) { try parse("request") }
        #expect(throws: UsageError.self) { try parse("request", "-X", "GE T", "https://a") }
    }

    @Test func otherCommands() throws {
        #expect(try parse("userinfo").command == .userInfo)
        #expect(try parse("logout", "--end-session").command == .logout(LogoutOptions(endSession: true)))
        #expect(try parse("handle-redirect", "http://127.0.0.1:1/cb?code=x").command
            == .handleRedirect(url: "http://127.0.0.1:1/cb?code=x"))
        #expect(try parse("verify", "--issuer", "https://i", "--audience", "api", "-").command
            == .verify(VerifyOptions(issuer: "https://i", audience: "api", token: "-")))
        #expect(try parse("agent", "--idle-timeout", "5").command == .agent(AgentOptions(idleTimeoutSeconds: 5)))
        #expect(try parse("agent", "--stop").command == .agent(AgentOptions(stop: true)))
        #expect(try parse("verify", "--", "-token-with-dash").command == .verify(VerifyOptions(token: "-token-with-dash")))
    }

    @Test func helpEverywhere() throws {
        #expect(try parse("--help").command == .help(nil))
        #expect(try parse("help", "token").command == .help(.token))
        for name in CommandName.allCases {
            #expect(try parse(name.rawValue, "--help").command == .help(name))
            #expect(HelpText.text(for: name).hasPrefix("usage: versola \(name.rawValue)"))
        }
    }

    @Test func usageErrors() {
        #expect(throws: UsageError("no command given")) { try parse() }
        #expect(throws: UsageError("unknown command 'frob' (versola --help lists them)")) { try parse("frob") }
        #expect(throws: UsageError("unknown option --frob for 'token'", command: .token)) { try parse("token", "--frob") }
        #expect(throws: UsageError("--profile needs a value", command: .status)) { try parse("status", "--profile") }
        #expect(throws: UsageError.self) { try parse("login", "--port", "70000") }
        #expect(throws: UsageError.self) { try parse("login", "--max-age", "soon") }
        #expect(throws: UsageError.self) { try parse("status", "extra") }
        #expect(throws: UsageError.self) { try parse("token", "--force-refresh=yes") }
    }
}
