import Foundation
import Testing
import VersolaJOSE
import VersolaTestIdP
import VersolaTesting

@testable import VersolaCommand

/// The adapters of issue 41 as docker, the Python keyring backend and cargo run them: real
/// processes (the front, its `docker-credential-versola` link, the engine, the agent) against
/// the test provider. Tokens are compared outside `#expect`, never printed.
@Suite("docker, Python and cargo adapters, as processes", .serialized)
struct AdapterCommandScenarios {
    /// `docker-credential-versola`: the link `make install` puts beside an installed `versola`,
    /// else one made here to the front under test.
    static func dockerHelper(_ cli: CLIHarness) throws -> String {
        let installed = (CLIHarness.executable as NSString).deletingLastPathComponent + "/docker-credential-versola"
        if FileManager.default.fileExists(atPath: installed) { return installed }
        let made = cli.home.path + "/docker-credential-versola"
        if !FileManager.default.fileExists(atPath: made) {
            try FileManager.default.createSymbolicLink(atPath: made, withDestinationPath: CLIHarness.executable)
        }
        return made
    }

    /// Runs docker's helper with `operation` and `input` on standard input.
    static func docker(_ cli: CLIHarness, _ operation: String, input: String, extra: [String: String] = [:]) async throws
        -> CLIHarness.Outcome
    {
        let stem = cli.home.path + "/docker-" + UUID().uuidString.prefix(8)
        _ = FileManager.default.createFile(atPath: stem + ".in", contents: Data(input.utf8))
        let child = try cli.spawn(try dockerHelper(cli), [operation], extraEnvironment: extra, stem: stem, input: stem + ".in")
        return await cli.finished(child, stem: stem)
    }

    /// The token the session serves now.
    static func token(_ cli: CLIHarness) async throws -> String {
        String(try await cli.run(["token"]).stdout.dropLast())
    }

    @Test func dockerGetServesTheRegistryAndNothingElse() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            let setup = try await cli.run(["setup-docker", "--host", "127.0.0.1:5000"])
            #expect(setup.status == 0, "\(setup.stderr)")
            #expect(setup.stdout == #"{"credHelpers":{"127.0.0.1:5000":"versola"}}"# + "\n")
            let token = try await Self.token(cli)

            // Twice: the first may start nothing (the agent runs since login), the second is warm.
            for _ in 0..<2 {
                let get = try await Self.docker(cli, "get", input: "127.0.0.1:5000")
                #expect(get.status == 0, "\(get.stderr)")
                let answer = try JSONValue(parsing: Array(get.stdout.utf8))
                #expect(answer["ServerURL"]?.string == "127.0.0.1:5000")
                #expect(answer["Username"]?.string == "oauth2")
                let served = answer["Secret"]?.string == token
                #expect(served)
            }
            // Without the agent the engine reads the address itself and answers from a session of
            // its own (which holds no access token yet, P4, so it refreshes).
            let alone = try await Self.docker(cli, "get", input: "127.0.0.1:5000", extra: ["VERSOLA_NO_AGENT": "1"])
            #expect(alone.status == 0, "\(alone.stderr)")
            let aloneAnswer = try JSONValue(parsing: Array(alone.stdout.utf8))
            #expect(aloneAnswer["Username"]?.string == "oauth2" && aloneAnswer["Secret"]?.string?.isEmpty == false)
            // With a scheme, as docker hands over some registries.
            let schemed = try await Self.docker(cli, "get", input: "https://127.0.0.1:5000\n")
            #expect(schemed.status == 0)
            #expect(try JSONValue(parsing: Array(schemed.stdout.utf8))["ServerURL"]?.string == "https://127.0.0.1:5000")

            // Not mine: exit 1 and docker's line alone, so the client goes on anonymously.
            let other = try await Self.docker(cli, "get", input: "registry.example.com")
            #expect(other.status == 1)
            #expect(other.stdout == DockerCredentialCommand.notFound + "\n")

            let list = try await Self.docker(cli, "list", input: "")
            #expect(list.stdout == #"{"127.0.0.1:5000":"oauth2"}"# + "\n")
            let store = try await Self.docker(
                cli, "store", input: #"{"ServerURL":"127.0.0.1:5000","Username":"oauth2","Secret":"typed"}"#)
            #expect(store.status == 0 && store.stdout.isEmpty)
            let foreign = try await Self.docker(cli, "store", input: #"{"ServerURL":"elsewhere","Username":"u","Secret":"s"}"#)
            #expect(foreign.status == 1 && foreign.stdout.isEmpty && !foreign.stderr.contains("\"s\""))
            #expect(try await Self.docker(cli, "erase", input: "127.0.0.1:5000").status == 0)
        }
    }

    @Test func dockerGetWithoutASessionIsNotFoundWithTheReason() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            #expect(try await cli.run(["setup-docker", "--host", "registry.example.com", "--profile", "default"]).status == 0)
            #expect(try await cli.run(["setup-pip", "--url", "https://pypi.example.com/simple/"]).status == 0)
            #expect(try await cli.run(["logout"]).status == 0)
            let served = try await cli.run(["credential", "--url", "https://pypi.example.com/simple/pkg/"])
            #expect(served.status == 4 && served.stdout.isEmpty)
            #expect(served.stderr.contains("versola login"), "\(served.stderr)")
            let get = try await Self.docker(cli, "get", input: "registry.example.com")
            #expect(get.status == 1)
            #expect(get.stdout == DockerCredentialCommand.notFound + "\n")
            #expect(get.stderr.contains("versola login"), "\(get.stderr)")
            let credential = try await cli.run(["credential", "--url", "https://registry.example.com/"])
            #expect(credential.status == 1 && credential.stdout.isEmpty)
        }
    }

    @Test func setupDockerWriteMergesDockersConfig() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            let directory = cli.home.path + "/docker"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try #"{"auths":{"x":{}},"credHelpers":{"other":"pass"}}"#.write(
                toFile: directory + "/config.json", atomically: true, encoding: .utf8)
            let env = ["DOCKER_CONFIG": directory]
            let write = try await cli.run(["setup-docker", "--host", "europe-docker.pkg.dev", "--write"], extraEnvironment: env)
            #expect(write.status == 0, "\(write.stderr)")
            let config = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/config.json"))))
            #expect(config["auths"]?["x"] != nil)
            #expect(config["credHelpers"]?["other"]?.string == "pass")
            #expect(config["credHelpers"]?["europe-docker.pkg.dev"]?.string == "versola")
            let list = try await Self.docker(cli, "list", input: "")
            #expect(list.stdout == #"{"europe-docker.pkg.dev":"oauth2accesstoken"}"# + "\n")
        }
    }

    @Test func credentialAnswersTheLongestPrefixAndRefreshes() async throws {
        // A lifetime under the 2-minute margin (T1): every request renews the token.
        let cli = try await CLIHarness(configure: { $0.accessTokenLifetime = 60 })
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            #expect(try await cli.run(["setup-pip", "--url", "http://127.0.0.1:8080/simple/"]).status == 0)
            #expect(try await cli.run(["setup-pip", "--url", "http://127.0.0.1:8080/simple/private", "--username", "me"]).status == 0)
            let first = try await cli.run(["credential", "--url", "http://127.0.0.1:8080/simple/private/pkg/"])
            #expect(first.status == 0, "\(first.stderr)")
            let answer = try JSONValue(parsing: Array(first.stdout.utf8))
            #expect(answer["username"]?.string == "me")
            #expect(answer["expires_at"]?.int64 != nil)
            let second = try JSONValue(parsing: Array(try await cli.run(["credential", "--url", "http://127.0.0.1:8080/simple/"]).stdout.utf8))
            #expect(second["username"]?.string == "oauth2")
            let renewed = second["password"]?.string != answer["password"]?.string
            #expect(renewed)
            for other in ["http://127.0.0.1:8081/simple/", "http://127.0.0.1:8080/simplex/", "https://127.0.0.1:8080/simple/"] {
                let miss = try await cli.run(["credential", "--url", other])
                #expect(miss.status == 1 && miss.stdout.isEmpty, "\(other)")
            }
        }
    }

    @Test func cargoSpeaksTheProviderProtocol() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            let setup = try await cli.run(["setup-cargo", "--registry", "mine", "--index", "sparse+http://127.0.0.1:8000/index/"])
            #expect(setup.status == 0, "\(setup.stderr)")
            #expect(setup.stdout.contains("[registries.mine]\nindex = \"sparse+http://127.0.0.1:8000/index/\"\n"))
            #expect(setup.stdout.contains(#""cargo-credential"]"#))
            let token = try await Self.token(cli)
            let requests = [
                #"{"v":1,"registry":{"index-url":"sparse+http://127.0.0.1:8000/index/","name":"mine"},"kind":"get","operation":"read","args":[]}"#,
                #"{"v":1,"registry":{"index-url":"sparse+http://127.0.0.1:9000/index/","name":"other"},"kind":"get","operation":"read","args":[]}"#,
                #"{"v":1,"registry":{"index-url":"sparse+http://127.0.0.1:8000/index/","name":"mine"},"kind":"login","token":null,"args":[]}"#,
            ]
            let run = try await cli.run(["--cargo-plugin"], stdin: requests.joined(separator: "\n") + "\n")
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 4)
            #expect(lines.first == #"{"v":[1]}"#)
            let get = try JSONValue(parsing: Array(lines[1].utf8))["Ok"]
            #expect(get?["kind"]?.string == "get" && get?["cache"]?.string == "expires")
            #expect(get?["expiration"]?.int64 != nil && get?["operation_independent"]?.bool == true)
            let bearer = get?["token"]?.string == "Bearer " + token
            #expect(bearer)
            #expect(lines[2] == #"{"Err":{"kind":"url-not-supported"}}"#)
            #expect(lines[3] == #"{"Err":{"kind":"operation-not-supported"}}"#)
        }
    }

    @Test func aDPoPBoundProfileIsRefusedNamingTheFlag() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--dpop", "require"])
            for setup in [
                ["setup-docker", "--host", "registry.example.com"], ["setup-pip", "--url", "https://pypi.example.com/simple/"],
                ["setup-cargo", "--registry", "r", "--index", "sparse+https://crates.example.com/index/"],
            ] {
                let refused = try await cli.run(setup)
                #expect(refused.status == 6)
                #expect(refused.stderr.contains("--no-dpop"), "\(refused.stderr)")
            }
        }
    }
}

extension AdapterCommandScenarios {
    @Test func aDPoPTokenOfAnAutoProfileIsNotHandedOut() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()  // auto: the provider advertises ES256, so the tokens are DPoP-bound
            #expect(try await cli.run(["setup-docker", "--host", "registry.example.com"]).status == 0)
            #expect(try await cli.run(["setup-pip", "--url", "https://pypi.example.com/simple/"]).status == 0)
            let get = try await Self.docker(cli, "get", input: "registry.example.com")
            #expect(get.status == 1 && get.stdout == DockerCredentialCommand.notFound + "\n")
            #expect(get.stderr.contains("--no-dpop"), "\(get.stderr)")
            let credential = try await cli.run(["credential", "--url", "https://pypi.example.com/simple/x/"])
            #expect(credential.status == 6 && credential.stdout.isEmpty)
            #expect(credential.stderr.contains("--no-dpop"))
        }
    }

    @Test func setupsRunTogetherAllLand() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            let hosts = (1...6).map { "registry\($0).example.com" }
            let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
                for host in hosts { group.addTask { try await cli.run(["setup-docker", "--host", host]).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 0 })
            let listed = try JSONValue(parsing: Array(try await Self.docker(cli, "list", input: "").stdout.utf8))
            #expect(Set(listed.object?.names ?? []) == Set(hosts))
        }
    }
}
