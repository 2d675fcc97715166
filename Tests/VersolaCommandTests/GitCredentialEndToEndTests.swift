import Foundation
import Testing
import VersolaTestIdP
import VersolaTesting

@testable import VersolaCommand

/// Real `git clone` and `git fetch` over smart HTTP, the credential coming from
/// `versola git-credential` as `versola setup-git` configured it; the git config is the
/// harness's own (`GIT_CONFIG_GLOBAL`), never the user's.
@Suite("git credential helper, end to end", .serialized)
struct GitCredentialEndToEndTests {
    /// What git needs to run isolated: its own global config, no system config, no prompts.
    static func gitEnvironment(_ cli: CLIHarness) -> [String: String] {
        [
            "GIT_CONFIG_GLOBAL": cli.home.path + "/gitconfig", "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
            "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "test@example.com", "GIT_ASKPASS": "/bin/false",
        ]
    }

    static func git(_ cli: CLIHarness, _ arguments: [String], extra: [String: String] = [:]) async throws
        -> CLIHarness.Outcome
    {
        let stem = cli.home.path + "/git-" + UUID().uuidString.prefix(8)
        let child = try cli.spawn(
            "git", arguments, extraEnvironment: gitEnvironment(cli).merging(extra) { $1 }, stem: stem)
        return await cli.finished(child, stem: stem)
    }

    /// A bare `origin.git` under `root` with one commit of `README` saying `text`, pushed
    /// from the work tree `work` (by path, no server involved).
    static func makeOrigin(_ cli: CLIHarness, root: String, work: String) async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(try await git(cli, ["init", "--quiet", "--bare", "-b", "main", root + "/origin.git"]).status == 0)
        #expect(try await git(cli, ["init", "--quiet", "-b", "main", work]).status == 0)
        try await commit(cli, work: work, text: "first\n")
    }

    static func commit(_ cli: CLIHarness, work: String, text: String) async throws {
        try text.write(toFile: work + "/README", atomically: true, encoding: .utf8)
        #expect(try await git(cli, ["-C", work, "add", "README"]).status == 0)
        #expect(try await git(cli, ["-C", work, "commit", "--quiet", "-m", text]).status == 0)
        let pushed = try await git(cli, ["-C", work, "push", "--quiet", work + "/../repos/origin.git", "main"])
        #expect(pushed.status == 0, "\(pushed.stderr)")
    }

    @Test func cloneAndFetchWithTheSessionsToken() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let root = cli.home.path + "/repos"
            let work = cli.home.path + "/work"
            try await Self.makeOrigin(cli, root: root, work: work)
            let forge = try GitSmartHTTPServer(root: root, idp: cli.idp)
            try await withStopping(forge, stop: { await $0.stop() }) { forge in
                try await cli.login(["--no-dpop"])
                let env = Self.gitEnvironment(cli)

                // setup-git writes the helper through git config --global, and again changes nothing.
                let setup = try await cli.run(["setup-git", "--host", forge.baseURL], extraEnvironment: env)
                #expect(setup.status == 0, "\(setup.stderr)")
                let config = try String(contentsOfFile: cli.home.path + "/gitconfig", encoding: .utf8)
                #expect(try await cli.run(["setup-git", "--host", forge.baseURL], extraEnvironment: env).status == 0)
                #expect(try String(contentsOfFile: cli.home.path + "/gitconfig", encoding: .utf8) == config)
                let helpers = try await Self.git(cli, ["config", "--global", "--get-all", "credential.\(forge.baseURL).helper"])
                #expect(helpers.stdout.split(separator: "\n", omittingEmptySubsequences: false).first == "")
                #expect(helpers.stdout.contains("git-credential"))

                // Without a credential the forge refuses; the helper's token lets git through.
                let clone = try await Self.git(cli, ["clone", "--quiet", forge.baseURL + "/origin.git", cli.home.path + "/clone"])
                #expect(clone.status == 0, "git clone failed: \(clone.stderr)")
                #expect(try String(contentsOfFile: cli.home.path + "/clone/README", encoding: .utf8) == "first\n")
                let token = try await cli.run(["token"])
                #expect(!forge.acceptedTokens.isEmpty)
                #expect(forge.acceptedTokens.allSatisfy { $0 + "\n" == token.stdout })

                // A new commit on the server arrives with git fetch (the helper asked again).
                let before = forge.acceptedTokens.count
                try await Self.commit(cli, work: work, text: "second\n")
                let fetch = try await Self.git(cli, ["-C", cli.home.path + "/clone", "fetch", "--quiet", "origin"])
                #expect(fetch.status == 0, "git fetch failed: \(fetch.stderr)")
                #expect(forge.acceptedTokens.count > before)
                let head = try await Self.git(cli, ["-C", work, "rev-parse", "main"])
                let fetched = try await Self.git(cli, ["-C", cli.home.path + "/clone", "rev-parse", "origin/main"])
                #expect(fetched.stdout == head.stdout)

                // Any other credential is refused, and git fails without prompting.
                let refusedBefore = forge.refusedCount
                let forged = forge.baseURL.replacingOccurrences(of: "http://", with: "http://oauth2:not-a-token@")
                let stranger = try await Self.git(
                    cli, ["clone", "--quiet", forged + "/origin.git", cli.home.path + "/stranger"],
                    extra: ["GIT_CONFIG_GLOBAL": "/dev/null"])
                #expect(stranger.status != 0)
                #expect(forge.refusedCount > refusedBefore)
            }
        }
    }

    @Test func getAnswersOnlyTheProfilesHostsAndEraseRefreshes() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            let env = Self.gitEnvironment(cli)
            #expect(try await cli.run(["setup-git", "--host", "git.example.com"], extraEnvironment: env).status == 0)

            let other = try await cli.run(["git-credential", "get"], stdin: "protocol=https\nhost=elsewhere.example\n\n")
            #expect(other.status == 0)
            #expect(other.stdout.isEmpty)
            let plain = try await cli.run(["git-credential", "get"], stdin: "protocol=http\nhost=git.example.com\n\n")
            #expect(plain.stdout.isEmpty)

            let first = try await cli.run(["git-credential", "get"], stdin: "protocol=https\nhost=git.example.com\n\n")
            #expect(first.status == 0, "\(first.stderr)")
            let answer = GitCredentialMessage.read(Self.lines(first.stdout))
            let token = try #require(answer["password"])
            #expect(answer["username"] == GitCredentialCommand.userName)
            #expect(token + "\n" == (try await cli.run(["token"])).stdout)

            // git ≥ 2.46 announces authtype: the token comes back as a Bearer credential.
            let modern = try await cli.run(
                ["git-credential", "get"], stdin: "capability[]=authtype\nprotocol=https\nhost=git.example.com\n\n")
            let bearer = GitCredentialMessage.read(Self.lines(modern.stdout))
            #expect(bearer["authtype"] == "Bearer")
            #expect(bearer["credential"] == token)
            #expect(bearer["password"] == nil)

            #expect(try await cli.run(["git-credential", "store"], stdin: "protocol=https\nhost=git.example.com\n\n").status == 0)
            let erase = try await cli.run(
                ["git-credential", "erase"], stdin: "protocol=https\nhost=git.example.com\npassword=\(token)\n\n")
            #expect(erase.status == 0)
            #expect(erase.stdout.isEmpty)
            let next = try await cli.run(["git-credential", "get"], stdin: "protocol=https\nhost=git.example.com\n\n")
            let renewed = try #require(GitCredentialMessage.read(Self.lines(next.stdout))["password"])
            #expect(renewed != token)
        }
    }

    @Test func aDPoPBoundProfileRefusesToServeGit() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            let env = Self.gitEnvironment(cli)
            #expect(try await cli.run(["setup-git", "--host", "git.example.com"], extraEnvironment: env).status == 0)
            // The same profile signed in again with DPoP keeps its git host but cannot serve it.
            try await cli.login(["--dpop"])
            let get = try await cli.run(["git-credential", "get"], stdin: "protocol=https\nhost=git.example.com\n\n")
            #expect(get.status == ExitStatus.configuration.rawValue)
            #expect(get.stdout.isEmpty)
            #expect(get.stderr.contains("versola login --no-dpop"))
            #expect(!get.stderr.contains("invalidConfiguration"))
            let setup = try await cli.run(["setup-git", "--host", "other.example"], extraEnvironment: env)
            #expect(setup.status == ExitStatus.configuration.rawValue)
            #expect(setup.stderr.contains("--no-dpop"))
        }
    }

    static func lines(_ text: String) -> () -> String? {
        var remaining = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
        return { remaining.popFirst() }
    }
}
