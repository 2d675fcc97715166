import Foundation
import Testing
import Versola
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// The README's provider notes, each line run as written against the stand-in of that provider
/// (`TestStandIn`): the real URLs point at the stand-in, the client id and secret file are the
/// stand-in's. Then a new process refreshes, and nothing printed holds the client secret.
@Suite("versola against the provider stand-ins of the README", .serialized)
struct ProviderStandInScenarios {
    /// The `versola login` line of the README block marked `<!-- stand-in: NAME -->`, as words.
    static func readmeLine(_ name: String) throws -> [String] {
        let readme = try String(contentsOfFile: CommandDocsRoot.path + "/README.md", encoding: .utf8)
        let marker = "<!-- stand-in: \(name) -->\n```sh\n"
        guard let start = readme.range(of: marker), let end = readme[start.upperBound...].range(of: "\n```") else {
            throw StandInError("the README has no stand-in block \(name)")
        }
        let block = readme[start.upperBound..<end.lowerBound].replacingOccurrences(of: "\\\n", with: " ")
        return try Self.words(block)
    }

    /// Shell words: whitespace separates, double quotes group (no escapes inside: the README's lines need none).
    static func words(_ text: String) throws -> [String] {
        var words: [String] = []
        var current: String?
        var quoted = false
        for character in text {
            if character == "\"" {
                quoted.toggle()
                current = current ?? ""
            } else if character.isWhitespace && !quoted {
                if let word = current { words.append(word) }
                current = nil
            } else {
                current = (current ?? "") + String(character)
            }
        }
        if quoted { throw StandInError("unbalanced quote in \(text)") }
        if let current { words.append(current) }
        return words
    }

    /// The README's line pointed at the stand-in.
    static func arguments(_ line: [String], standIn: TestStandIn, cli: CLIHarness, secretFile: String) -> [String] {
        var arguments: [String] = []
        var previous = ""
        for word in line.dropFirst() {
            switch previous {
            case "--client-id": arguments.append(TestStandIn.clientID)
            case "--client-secret-file": arguments.append(secretFile)
            default: arguments.append(standIn.pointed(word, atIssuer: cli.idp.issuer))
            }
            previous = word
        }
        return arguments
    }

    static func profile(of line: [String]) -> String {
        guard let index = line.firstIndex(of: "--profile"), index + 1 < line.count else { return "default" }
        return line[index + 1]
    }

    /// A harness running `standIn`, with its client's secret in a user-only file.
    static func harness(_ standIn: TestStandIn) async throws -> (CLIHarness, String) {
        let cli = try await CLIHarness(configure: { $0 = standIn.configuration }, issuerPath: standIn.issuerPath)
        let secretFile = cli.home.path + "/client-secret"
        guard
            FileManager.default.createFile(
                atPath: secretFile, contents: Data((TestStandIn.clientSecret + "\n").utf8),
                attributes: [.posixPermissions: 0o600])
        else { throw StandInError("cannot write \(secretFile)") }
        return (cli, secretFile)
    }

    @Test(
        "A16 A17 A18: the README's login line signs in at the stand-in, and a new process refreshes",
        arguments: TestStandIn.allCases.filter { $0 != .entraCommon })
    func readmeLineSignsIn(standIn: TestStandIn) async throws {
        let line = try Self.readmeLine(standIn.rawValue)
        #expect(line.first == "versola")
        let (cli, secretFile) = try await Self.harness(standIn)
        try await withHarness(cli) { cli in
            let profile = Self.profile(of: line)
            let login = try await cli.run(
                Self.arguments(line, standIn: standIn, cli: cli, secretFile: secretFile) + ["-v", "--browser-command", CLIHarness.browser])
            try #require(login.status == 0, "\(standIn): \(login.stderr)")
            let settings = try #require(FileManager.default.contents(atPath: cli.home.path + "/config/versola/profiles/\(profile).json"))
            let saved = try JSONValue(parsing: settings)
            #expect((saved["clientSecret"]?.string != nil) == standIn.requiresSecret, "A17: the secret is kept in the profile")
            var outputs = [login.stdout, login.stderr]
            let token = try await cli.run(["token", "--profile", profile, "--format", "json"])
            #expect(token.status == 0, "\(standIn): \(token.stderr)")
            outputs += [token.stdout, token.stderr]
            if standIn.issuesRefreshTokens {
                let exchanges = await cli.requestCount(.token)
                let refreshed = try await cli.run(["token", "--profile", profile, "--force-refresh", "--json", "-v"])
                #expect(refreshed.status == 0, "\(standIn): a refresh in a new process: \(refreshed.stderr)")
                #expect(await cli.requestCount(.token) == exchanges + 1, "\(standIn): one refresh")
                outputs += [refreshed.stdout, refreshed.stderr]
            }
            if standIn == .githubOAuthApp {
                // P13: the token is the session; it outlives the agent and does not expire.
                #expect(try await cli.run(["agent", "--stop"]).status == 0)
                let again = try await cli.run(["token", "--profile", profile, "--format", "json"])
                #expect(again.status == 0 && again.stdout == token.stdout, "after agent --stop: \(again.stderr)")
                let shown = try await cli.run(["status", "--profile", profile])
                #expect(shown.stdout.contains("\(profile): authenticated at "), "the README shows it: \(shown.stdout)")
                #expect(shown.stdout.contains("\n  no refresh token; does not expire\n"), "the README shows it: \(shown.stdout)")
                outputs += [again.stdout, again.stderr, shown.stdout, shown.stderr]
            }
            let status = try await cli.run(["status", "--profile", profile, "--json"])
            outputs += [status.stdout, status.stderr]
            for output in outputs {
                #expect(!output.contains(TestStandIn.clientSecret), "A17: the client secret was printed")
            }
        }
    }

    @Test("A17: without the secret the provider insists on, login is a configuration error naming --client-secret-file")
    func missingSecretIsConfiguration() async throws {
        let line = try Self.readmeLine(TestStandIn.google.rawValue)
        let (cli, secretFile) = try await Self.harness(.google)
        try await withHarness(cli) { cli in
            var arguments = Self.arguments(line, standIn: .google, cli: cli, secretFile: secretFile)
            let index = try #require(arguments.firstIndex(of: "--client-secret-file"))
            arguments.removeSubrange(index...(index + 1))
            let outcome = try await cli.run(arguments + ["--browser-command", CLIHarness.browser])
            #expect(outcome.status == 6, "\(outcome.stderr)")
            #expect(outcome.stderr.contains("--client-secret-file"), "\(outcome.stderr)")
            let json = try await cli.run(arguments + ["--browser-command", CLIHarness.browser, "--json"])
            // The browser's line comes first; the error is the last line.
            let last = json.stderr.split(separator: "\n").last.map(String.init) ?? ""
            #expect((try? JSONValue(parsing: last))?["error"]?["category"] == "configuration", "\(json.stderr)")
        }
    }

    @Test(
        "A17 A18: bad input is a clear error that names the flag, sends nothing and leaves the profile as it was",
        arguments: [
            (["--client-secret-file", "MISSING"], 6, "--client-secret-file"),
            (["--auth-param", "access_type"], 2, "NAME=VALUE"),
            (["--auth-param", "state=x"], 2, "set by versola"),
            (["--auth-param", "prompt=login"], 2, "--prompt"),
            (["--endpoint", "bogus=https://idp.example/x"], 2, "not an endpoint"),
            (["--endpoint", "token=http://idp.example/token"], 6, "https"),
        ] as [([String], Int32, String)])
    func badInputChangesNothing(flags: [String], status: Int32, mention: String) async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let path = cli.home.path + "/config/versola/profiles/default.json"
            let before = FileManager.default.contents(atPath: path)
            let sent = await cli.idp.provider.requests().count
            let given = flags.map { $0 == "MISSING" ? cli.home.path + "/no-such-secret" : $0 }
            let outcome = try await cli.run(
                ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--browser-command", CLIHarness.browser]
                    + given)
            #expect(outcome.status == status, "\(flags): \(outcome.stderr)")
            #expect(outcome.stderr.contains(mention), "\(flags): \(outcome.stderr)")
            #expect(await cli.idp.provider.requests().count == sent, "\(flags): nothing is sent")
            #expect(FileManager.default.contents(atPath: path) == before, "\(flags): the profile is as it was")
        }
    }

    @Test("A1 A16: Entra's multi-tenant endpoint names a template issuer; the login is refused before any browser, saying why")
    func entraCommonRefused() async throws {
        let line = try Self.readmeLine(TestStandIn.entra.rawValue).map {
            $0.replacingOccurrences(of: "/TENANT-ID/", with: "/common/")
        }
        let (cli, secretFile) = try await Self.harness(.entraCommon)
        try await withHarness(cli) { cli in
            let outcome = try await cli.run(
                Self.arguments(line, standIn: .entraCommon, cli: cli, secretFile: secretFile)
                    + ["--browser-command", CLIHarness.browser, "--json"])
            #expect(outcome.status == 6, "\(outcome.stderr)")
            #expect(try JSONValue(parsing: outcome.stderr)["error"]?["cause"] == "discoveryIssuerMismatch", "\(outcome.stderr)")
            #expect(await cli.requestCount(.authorize) == 0)
        }
    }
}

/// Where the package's README is, from this source file.
enum CommandDocsRoot {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}

struct StandInError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
