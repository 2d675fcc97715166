import Foundation
import Testing
import Versola
import VersolaJOSE
import VersolaTesting

@testable import VersolaCommand

/// The target table of issue 41: how targets are named and matched, the user-name conventions,
/// the file, and the answers the adapters print.
@Suite("Target table")
struct TargetTableTests {
    static func key(_ text: String, _ tool: TargetTool) throws -> TargetKey {
        try #require(TargetKey.asked(text, tool: tool))
    }

    @Test func registriesMatchByHostAndPortWhateverTheScheme() throws {
        let registry = try TargetKey.host("127.0.0.1:5000")
        #expect(registry.covers(try Self.key("127.0.0.1:5000", .docker)))
        #expect(registry.covers(try Self.key("https://127.0.0.1:5000/v2/", .docker)))
        #expect(!registry.covers(try Self.key("127.0.0.1:5001", .docker)))
        #expect(!registry.covers(try Self.key("127.0.0.1", .docker)))
        #expect(TargetKey.asked("http://registry.example.com", tool: .docker) == nil)  // a token never in clear
        #expect { try TargetKey.host("") } throws: { VersolaError.isInvalidConfiguration($0, saying: "registry.example.com") }
    }

    @Test func indexesMatchByOriginAndWholeSegments() throws {
        let index = try TargetKey.url("http://127.0.0.1:8080/simple/", flag: "--url")
        #expect(index.covers(try Self.key("http://127.0.0.1:8080/simple/pkg/", .python)))
        #expect(index.covers(try Self.key("http://127.0.0.1:8080/simple", .python)))
        #expect(!index.covers(try Self.key("http://127.0.0.1:8080/simplex/", .python)))
        #expect(!index.covers(try Self.key("http://127.0.0.1:8081/simple/", .python)))
        #expect(!index.covers(try Self.key("https://127.0.0.1:8080/simple/", .python)))
        #expect(try TargetKey.url("sparse+https://crates.example.com/index/", flag: "--index").description
            == "https://crates.example.com/index")
        #expect { try TargetKey.url("https://", flag: "--url") } throws: { VersolaError.isInvalidConfiguration($0, saying: "--url") }
        #expect { try TargetKey.url("http://pypi.example.com/simple/", flag: "--url") } throws: {
            VersolaError.isInvalidConfiguration($0, saying: "--url must be https")
        }
    }

    @Test func userNamesFollowEachRegistrysConvention() throws {
        for (host, user) in [
            ("registry.gitlab.com", "oauth2"), ("gcr.io", "oauth2accesstoken"), ("eu.gcr.io", "oauth2accesstoken"),
            ("europe-west1-docker.pkg.dev", "oauth2accesstoken"),
        ] {
            #expect(CredentialTarget(tool: .docker, key: try TargetKey.host(host), profile: "p").username == user)
        }
        let pip = CredentialTarget(tool: .python, key: try TargetKey.url("https://p.example.com/simple", flag: "--url"), profile: "p")
        #expect(pip.username == "oauth2")
        let cargo = CredentialTarget(tool: .cargo, key: try TargetKey.url("https://c.example.com/index", flag: "--index"), profile: "p")
        #expect(cargo.username == nil && cargo.authorization == .bearer)
        let named = CredentialTarget(tool: .docker, key: try TargetKey.host("gcr.io"), profile: "p", username: "me")
        #expect(named.username == "me")
    }

    @Test func theLongestPrefixWinsAndEachToolHasItsOwnRows() throws {
        var table = TargetTable()
        table.put(CredentialTarget(tool: .python, key: try TargetKey.url("https://p.example.com/", flag: "--url"), profile: "all"))
        table.put(CredentialTarget(tool: .python, key: try TargetKey.url("https://p.example.com/team", flag: "--url"), profile: "team"))
        table.put(CredentialTarget(tool: .docker, key: try TargetKey.host("p.example.com"), profile: "docker"))
        #expect(table.target(for: .python, address: "https://p.example.com/team/simple/")?.profile == "team")
        #expect(table.target(for: .python, address: "https://p.example.com/teams/")?.profile == "all")
        #expect(table.target(for: .docker, address: "p.example.com")?.profile == "docker")
        #expect(table.target(for: .cargo, address: "https://p.example.com/team/") == nil)
        // Set up again for another profile: the row moves.
        table.put(CredentialTarget(tool: .docker, key: try TargetKey.host("p.example.com"), profile: "other"))
        #expect(table.targets(of: .docker).map(\.profile) == ["other"])
    }

    @Test func theFileIsPrivateAndKeepsRowsThisVersionCannotRead() throws {
        let home = try TemporaryDirectory()
        let configHome = home.path + "/config"
        #expect(try TargetTable.load(configHome: configHome).targets.isEmpty)
        let exchange = #"{"tool":"docker","match":"harbor.example.com","profile":"h","token":"access","source":"token-exchange"}"#
        let future = #"{"tool":"helm","match":"charts.example.com","profile":"h","token":"access","source":"session"}"#
        try FileManager.default.createDirectory(atPath: configHome + "/versola", withIntermediateDirectories: true)
        chmod(configHome + "/versola", 0o700)
        try #"{"version":1,"targets":[\#(exchange),\#(future)]}"#.write(
            toFile: TargetTable.path(configHome: configHome), atomically: true, encoding: .utf8)
        chmod(TargetTable.path(configHome: configHome), 0o600)  // whatever the umask of the run
        var table = try TargetTable.load(configHome: configHome)
        // A source this versola does not know is served but unusable, never someone else's.
        #expect(table.target(for: .docker, address: "harbor.example.com")?.unusableSource == "token-exchange")
        table.put(CredentialTarget(tool: .cargo, key: try TargetKey.url("https://c.example.com/index", flag: "--index"), profile: "c", registry: "c"))
        try table.save(configHome: configHome)
        let text = try String(contentsOfFile: TargetTable.path(configHome: configHome), encoding: .utf8)
        #expect(text.contains(#""tool":"helm""#))
        // Written again, the exchange row still asks for its exchange: never served as a session row.
        #expect(text.contains(#""source":"token-exchange""#))
        #expect(try TargetTable.load(configHome: configHome).target(for: .docker, address: "harbor.example.com")?.unusableSource
            == "token-exchange")
        var info = stat()
        #expect(stat(TargetTable.path(configHome: configHome), &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try TargetTable.load(configHome: configHome).target(for: .cargo, address: "sparse+https://c.example.com/index/")?.registry == "c")
    }

    @Test func aDPoPTokenIsNeverHandedToATool() throws {
        let target = CredentialTarget(tool: .docker, key: try TargetKey.host("r.example.com"), profile: "work")
        let arguments = AgentCredentialArguments(tool: .docker, address: "r.example.com", print: true)
        let dpop = AgentTokenResult(kind: .access, value: "t", tokenType: .dpop, expiresAt: 1)
        guard case .failure(let error) = CredentialResolution.finish(.success(dpop.json), target: target, arguments) else {
            Issue.record("a DPoP-bound token was handed out")
            return
        }
        #expect(VersolaError.isInvalidConfiguration(error, saying: "--no-dpop"))
        let bearer = AgentTokenResult(kind: .access, value: "t", expiresAt: 1)
        let printed = CredentialResolution.finish(.success(bearer.json), target: target, arguments)
        #expect(printed == .printed(AgentPrintout(bytes: Array(#"{"ServerURL":"r.example.com","Username":"oauth2","Secret":"t"}"#.utf8) + [10])))
    }

    @Test func cargoAnswersInItsProtocolsShapes() throws {
        let target = CredentialTarget(tool: .cargo, key: try TargetKey.url("https://c.example.com/index", flag: "--index"), profile: "c")
        let token = AgentTokenResult(kind: .access, value: "t", expiresAt: 1_893_456_000)
        #expect(CargoCredentialCommand.success(target: target, token: token).serialized()
            == #"{"Ok":{"kind":"get","token":"Bearer t","cache":"expires","expiration":1893456000,"operation_independent":true}}"#)
        var plain = target
        plain.authorization = .token
        let unknown = AgentTokenResult(kind: .access, value: "t", expiresAt: nil)
        #expect(CargoCredentialCommand.success(target: plain, token: unknown).serialized()
            == #"{"Ok":{"kind":"get","token":"t","cache":"session","operation_independent":true}}"#)
        #expect(CargoCredentialCommand.failure(message: "m").serialized() == #"{"Err":{"kind":"other","message":"m","caused-by":[]}}"#)
    }

    @Test func setupPipNamesTheBackendWhereItIsAndPipsImportMode() {
        #expect(SetupPipCommand.keyringPackage(executable: "/opt/v/libexec/versola/versola") == "/opt/v/share/versola/keyring")
        #expect(SetupPipCommand.keyringPackage(executable: "/src/versola/.build/debug/versola") == "./integrations/keyring")
        let lines = SetupPipCommand.instructions(index: "https://p.example.com/simple/", withUser: "https://u@p.example.com/simple/", package: "/opt/v/share/versola/keyring")
        #expect(lines.contains("pip install 'keyring>=25.2.1' /opt/v/share/versola/keyring\n"))
        // pip's subprocess mode skips a keyring command in pip's own environment: import it is.
        #expect(lines.contains("pip config set global.keyring-provider import\n"))
        #expect(!lines.contains("pip config set global.keyring-provider subprocess"))
    }

    @Test func theLinksNameSaysTheCommand() throws {
        #expect(VersolaCommandLine.arguments(invokedAs: "/usr/bin/docker-credential-versola", ["get"]) == ["docker-credential", "get"])
        #expect(VersolaCommandLine.arguments(invokedAs: "versola", ["token"]) == ["token"])
        // cargo runs a provider as `PATH --cargo-plugin`, the configured `cargo-credential` only in its requests.
        #expect(
            VersolaCommandLine.arguments(invokedAs: "/usr/bin/versola", ["--cargo-plugin"])
                == ["cargo-credential", "--cargo-plugin"])
        #expect(VersolaCommandLine.arguments(invokedAs: "versola", ["token", "--cargo-plugin"]) == ["token", "--cargo-plugin"])
        #expect(try CommandParser.parse(["docker-credential", "list"]).command == .dockerCredential(.list))
        #expect(throws: UsageError.self) { try CommandParser.parse(["docker-credential", "fill"]) }
        #expect(try CommandParser.parse(["setup-cargo", "--registry", "r", "--index", "sparse+https://c/", "--authorization", "token"]).command
            == .setupCargo(SetupCargoOptions(registry: "r", index: "sparse+https://c/", authorization: .token)))
    }
}

extension TargetTableTests {
    // The README's one line per tool is a command line this versola takes.
    @Test func theReadmesSetupLinesParse() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let lines = try String(contentsOf: readme, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("versola setup-docker") || $0.hasPrefix("versola setup-pip") || $0.hasPrefix("versola setup-cargo") }
        #expect(lines.count == 3)
        for line in lines {
            let words = line.split(separator: " ").dropFirst().map(String.init)
            #expect(throws: Never.self) { try CommandParser.parse(words) }
        }
    }
}

extension TargetTableTests {
    // The protocol document's credential results read as the typed result and are written back the same.
    @Test func credentialResultsOfTheDocumentRoundTrip() throws {
        let replies = try AgentProtocolDocumentTests.examples("agent-reply").filter { $0.contains("\"served\"") || $0.contains("\"target\"") }
        #expect(replies.count == 2)
        for reply in replies {
            guard case .success(let value)? = AgentReply(line: Array(reply.utf8.dropLast())) else {
                Issue.record("not a reply: \(reply)")
                continue
            }
            let result = try #require(AgentCredentialResult(json: value))
            #expect(result.json == value)
        }
        #expect(AgentCredentialResult(json: ["target": "broken"]) == nil)
        #expect(AgentCredentialResult.notServed.served == nil)
    }
}
