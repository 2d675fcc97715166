import Foundation
import Testing
import Versola
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// The command as a Linux user meets it: version, profiles, exit statuses scripts test,
/// suggestions, a shell that reads the completion script, a terminal for `request`.
@Suite("Command line, end to end")
struct CommandLineEndToEndTests {
    @Test func statusExitsOneWhenSignedOutWithTheSameJSON() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let signedIn = try await cli.run(["status", "--json"])
            #expect(signedIn.status == 0)
            #expect(try await cli.run(["logout"]).status == 0)
            let text = try await cli.run(["status"])
            #expect(text.status == ExitStatus.signedOut.rawValue)
            #expect(text.stdout.contains("unauthenticated"), "\(text.stdout)")
            let json = try await cli.run(["status", "--json"])
            #expect(json.status == 1)
            let object = try JSONValue(parsing: String(json.stdout.dropLast()))
            #expect(object["signedIn"] == false)
            #expect(json.stderr.isEmpty)
        }
    }

    @Test func requestFailExitsTwentyTwoOnAnHTTPError() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            await cli.idp.provider.arm(TestFaultRule(.resource, .respond(status: 403, body: "forbidden"), times: 2))
            let plain = try await cli.run(["request", cli.idp.resourceURL])
            #expect(plain.status == 0)
            #expect(plain.stderr.contains("HTTP 403"))
            let failing = try await cli.run(["request", "--fail", cli.idp.resourceURL])
            #expect(failing.status == ExitStatus.httpFailure.rawValue)
            #expect(failing.status == 22)
            #expect(failing.stdout == "forbidden")
            let good = try await cli.run(["request", "--fail", cli.idp.resourceURL])
            #expect(good.status == 0, "\(good.stderr)")
        }
    }

    // On a terminal the body ends with a newline, so the prompt starts on a line of its own;
    // into a pipe it stays byte for byte what the server sent.
    @Test func requestEndsItsLineOnATerminal() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let piped = try await cli.run(["request", cli.idp.resourceURL])
            #expect(!piped.stdout.hasSuffix("\n"))
            let command = [CLIHarness.executable, "request", cli.idp.resourceURL].map { ShellWord.quoted($0) }
                .joined(separator: " ")
            let stem = cli.home.path + "/tty"
            // script(1) gives the command a real pseudo-terminal.
            let child = try cli.spawn("script", ["-qec", command + "; printf END", "/dev/null"], stem: stem)
            let onTerminal = await cli.finished(child, stem: stem)
            #expect(onTerminal.status == 0, "\(onTerminal.stderr)")
            #expect(onTerminal.stdout.contains("}\r\nEND"), "\(onTerminal.stdout)")
        }
    }

    @Test func profilesListsNameIssuerAndState() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            try await cli.login(["--profile", "work"])
            #expect(try await cli.run(["logout", "--profile", "work"]).status == 0)
            let listing = try await cli.run(["profiles"])
            #expect(listing.status == 0, "\(listing.stderr)")
            let lines = listing.stdout.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines.first?.hasPrefix("default") == true && lines.first?.contains(cli.idp.issuer) == true)
            #expect(lines.first?.contains("authenticated") == true)
            #expect(lines.last?.hasPrefix("work") == true && lines.last?.contains("unauthenticated") == true)
            let json = try JSONValue(parsing: String(try await cli.run(["profiles", "--json"]).stdout.dropLast()))
            #expect(json.array?.compactMap { $0["profile"]?.string } == ["default", "work"])
            // VERSOLA_PROFILE picks the profile when --profile is not given.
            let viaVariable = try await cli.run(["status"], extraEnvironment: ["VERSOLA_PROFILE": "work"])
            #expect(viaVariable.status == 1)
            #expect(viaVariable.stdout.hasPrefix("work: "))
        }
    }

    @Test func plainMessagesForCommonMistakes() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let version = try await cli.run(["--version"])
            #expect(version.status == 0)
            #expect(version.stdout == "versola \(VersolaVersion.current)\n")
            let typo = try await cli.run(["stauts"])
            #expect(typo.status == 2)
            #expect(typo.stderr.contains("did you mean 'status'?"))
            let missing = try await cli.run(["login", "--issuer", cli.idp.issuer])
            #expect(missing.status == 6)
            #expect(missing.stderr.contains("--client-id is missing"), "\(missing.stderr)")
            #expect(!missing.stderr.contains("invalidConfiguration"))
            let json = try await cli.run(["login", "--issuer", cli.idp.issuer, "--json"])
            #expect(json.stderr.contains("\"cause\":\"invalidConfiguration\""))
        }
    }

    @Test func bashReadsTheCompletionScriptAndCompletes() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let script = try await cli.run(["completion", "bash"])
            #expect(script.status == 0)
            let file = cli.home.path + "/versola.bash"
            try script.stdout.write(toFile: file, atomically: true, encoding: .utf8)
            // Source it and ask for the completions of `versola token --f` and `versola setup-`.
            let probe = """
                source \(file)
                COMP_WORDS=(versola token --f); COMP_CWORD=2; _versola; echo "${COMPREPLY[*]}"
                COMP_WORDS=(versola setup-); COMP_CWORD=1; _versola; echo "${COMPREPLY[*]}"
                COMP_WORDS=(versola token --format ''); COMP_CWORD=3; _versola; echo "${COMPREPLY[*]}"
                """
            let stem = cli.home.path + "/bash"
            let child = try cli.spawn("bash", ["--norc", "-c", probe], stem: stem)
            let outcome = await cli.finished(child, stem: stem)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(
                outcome.stdout == "--force-refresh --format\nsetup-git setup-kubectl setup-docker setup-pip setup-cargo\nraw json k8s\n",
                "\(outcome.stdout)")
        }
    }

    // fish and zsh are checked by the shells themselves where installed (Debian: fish, zsh).
    @Test func fishCompletesAndZshParsesTheirScripts() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            for shell in ["fish", "zsh"] {
                let candidates: [String] = ["/usr/bin/" + shell, "/bin/" + shell]
                guard let program = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                    print("\(shell) is not installed; its completion script is checked only against the table")
                    continue
                }
                let script = try await cli.run(["completion", shell])
                let file = cli.home.path + "/completion." + shell
                try script.stdout.write(toFile: file, atomically: true, encoding: .utf8)
                let probe =
                    shell == "fish"
                    ? "source \(file); complete -C 'versola token --format '; complete -C 'versola git-credential '"
                    : ""
                let stem = cli.home.path + "/" + shell
                let child = try cli.spawn(program, shell == "fish" ? ["--no-config", "-c", probe] : ["-n", file], stem: stem)
                let outcome = await cli.finished(child, stem: stem)
                #expect(outcome.status == 0, "\(shell): \(outcome.stderr)")
                if shell == "fish" {
                    let lines: [Substring] = outcome.stdout.split(separator: "\n")
                    let words: [String] = lines.map { line in String(line.prefix { $0 != "\t" }) }
                    #expect(words == ["json", "k8s", "raw", "erase", "get", "store"], "\(outcome.stdout)")
                }
            }
        }
    }
}
