import Foundation
import Testing
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// S15 with real processes: callers that need a sign-in for one profile at once (kubectl-style
/// `versola token --format k8s`, interactive) share one browser tab, one authorization request
/// and one code exchange; a killed owner frees its waiters; a waiter's own limit ends only it.
@Suite("S15: one sign-in per profile at a time", .serialized)
struct SingleSignInScenarios {
    static let interactive = KubectlCredentialTests.execInfo(.v1, interactive: true)

    /// A browser command that notes each launch (its pid, a line in `$HOME/launches`), then
    /// follows the provider's redirects as ``CLIHarness/browser`` does, or, once, when
    /// `$HOME/hang` exists, never finishes (a person who has not signed in yet).
    static func countingBrowser(_ cli: CLIHarness) throws -> String {
        let path = cli.home.path + "/browser.sh"
        let script = """
            #!/bin/sh
            echo "$$" >> "$HOME/launches"
            if [ -e "$HOME/hang" ]; then rm -f "$HOME/hang"; exec sleep 300; fi
            exec curl -sL -o /dev/null "$1"

            """
        try CLIHarness.writeExecutable(Array(script.utf8), to: path)
        return path + " %s"
    }

    /// Signs in once with `browser` saved in the profile, then out: a profile that needs a sign-in.
    static func signedOutProfile(_ cli: CLIHarness) async throws {
        let login = try await cli.run(
            ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--no-dpop", "--browser-command",
             try countingBrowser(cli)])
        try #require(login.status == 0, "login failed: \(login.stderr)")
        try #require(try await cli.run(["logout"]).status == 0)
        unlink(cli.home.path + "/launches")
    }

    /// The pids of the browser launches so far.
    static func launches(_ cli: CLIHarness) -> [Int32] {
        let text = (try? String(contentsOfFile: cli.home.path + "/launches", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { Int32($0) }
    }

    /// The access token of an ExecCredential printed on standard output.
    static func token(_ outcome: CLIHarness.Outcome) -> String? {
        (try? JSONValue(parsing: outcome.stdout))?["status"]?["token"]?.string
    }

    @Test("S15: callers that need a sign-in at once share one browser tab, request and code exchange, and leave one live grant",
          arguments: [2, 6, 20])
    func callersShareOneSignIn(callers: Int) async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await Self.signedOutProfile(cli)
            let par = await cli.requestCount(.par), authorize = await cli.requestCount(.authorize)
            let exchanges = await cli.requestCount(.token)
            let outcomes = try await withThrowingTaskGroup(of: CLIHarness.Outcome.self) { group in
                for _ in 0..<callers {
                    group.addTask { try await cli.run(["token", "--format", "k8s"], extraEnvironment: Self.interactive) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for outcome in outcomes { #expect(outcome.status == 0, "\(outcome.stderr)") }
            let tokens = outcomes.compactMap(Self.token)
            #expect(tokens.count == callers)
            #expect(Set(tokens).count == 1, "every caller got the one session's token")
            let launches = Self.launches(cli).count
            let pushed = await cli.requestCount(.par) - par, authorized = await cli.requestCount(.authorize) - authorize
            let exchanged = await cli.requestCount(.token) - exchanges
            let live = await cli.idp.provider.liveFamilyCount
            print("S15 \(callers) callers: \(launches) browser launches, \(pushed) PAR, \(authorized) authorize, \(exchanged) token, \(live) live grant")
            #expect(launches == 1, "browser launches")
            #expect(pushed <= 1 && authorized == 1, "authorization requests: \(pushed) pushed, \(authorized) at authorize")
            #expect(exchanged == 1, "code exchanges")
            #expect(live == 1, "live grants at the provider: the session's alone")
        }
    }

    @Test("S15: a waiter's own limit ends only it; killing the owner lets a waiter sign in")
    func killedOwnerFreesWaiters() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await Self.signedOutProfile(cli)
            try #require(FileManager.default.createFile(atPath: cli.home.path + "/hang", contents: Data()))
            defer { for pid in Self.launches(cli) { kill(pid, SIGKILL) } }
            let ownerStem = cli.home.path + "/owner"
            let owner = try cli.spawn(
                CLIHarness.executable, ["token", "--format", "k8s"], extraEnvironment: Self.interactive, stem: ownerStem)
            // The owner's browser is open (and never finishes).
            let opened = await cli.contents(of: cli.home.path + "/launches", containing: "\n")
            try #require(opened != nil, "the owner opened no browser")

            var limited = Self.interactive
            limited[SignInGate.waitVariable] = "1"
            let impatient = try await cli.run(["token", "--format", "k8s"], extraEnvironment: limited)
            #expect(impatient.status != 0 && impatient.stdout.isEmpty, "\(impatient.stderr)")
            #expect(impatient.stderr.contains("waiting for the sign-in already running for profile default (pid \(owner))"))
            #expect(impatient.stderr.contains("gave up after 1 s"))
            #expect(kill(owner, 0) == 0, "the owner runs on")
            // Ctrl-C ends a waiter alone.
            let interruptedStem = cli.home.path + "/interrupted"
            let interrupted = try cli.spawn(
                CLIHarness.executable, ["token", "--format", "k8s"], extraEnvironment: Self.interactive, stem: interruptedStem)
            #expect(await cli.contents(of: interruptedStem + ".err", containing: "waiting for the sign-in") != nil)
            kill(interrupted, SIGINT)
            #expect(await cli.finished(interrupted, stem: interruptedStem).status == 128 + SIGINT)
            #expect(kill(owner, 0) == 0, "the owner runs on after a waiter's Ctrl-C")
            // A login run by hand waits for the running sign-in too.
            let login = try await cli.run(["login"], extraEnvironment: [SignInGate.waitVariable: "1"])
            #expect(login.status != 0 && login.stderr.contains("waiting for the sign-in already running"), "\(login.stderr)")
            #expect(Self.launches(cli).count == 1, "the impatient waiters opened no browser")

            let waiterStem = cli.home.path + "/waiter"
            let waiter = try cli.spawn(
                CLIHarness.executable, ["token", "--format", "k8s"], extraEnvironment: Self.interactive, stem: waiterStem)
            let waiting = await cli.contents(of: waiterStem + ".err", containing: "waiting for the sign-in already running")
            #expect(waiting != nil, "the waiter said nothing of the owner")
            kill(owner, SIGKILL)
            _ = await cli.finished(owner, stem: ownerStem)
            let taken = await cli.finished(waiter, stem: waiterStem)
            #expect(taken.status == 0, "\(taken.stderr)")
            #expect(Self.token(taken) != nil)
            #expect(Self.launches(cli).count == 2, "the waiter opened the one browser after the owner died")
        }
    }
}
