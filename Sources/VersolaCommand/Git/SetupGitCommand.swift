import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// `versola setup-git [--host H]`: adds the host to the profile and points git's credential
/// helper for it at `versola git-credential`, through `git config --global` (so `HOME` and
/// `GIT_CONFIG_GLOBAL` decide the file, as for git itself). Running it again changes nothing.
struct SetupGitCommand {
    let context: CommandContext

    func run(_ options: SetupGitOptions) async throws(CommandFailure) {
        let files: ProfileFiles
        var settings: ProfileSettings
        do throws(VersolaError) {
            files = try context.profileFiles()
            settings = try files.require(context.profile)
            guard settings.dpop != .require else { throw BearerOnlyTool.git.dpopRefused(profile: context.profile) }
            if let text = options.host {
                let host = try GitHost.parse(text)
                if !settings.gitHosts.contains(where: { (try? GitHost.parse($0)) == host }) {
                    settings.gitHosts.append(host.stored)
                    try files.save(settings, as: context.profile)
                }
            }
        } catch {
            throw .versola(error)
        }
        let hosts = settings.gitHosts.compactMap { try? GitHost.parse($0) }
        guard !hosts.isEmpty else {
            throw .usage(UsageError("name the git server: versola setup-git --host git.example.com", command: .setupGit))
        }
        let helper = "!" + ShellWord.quoted(context.executable ?? "versola") + " --profile "
            + ShellWord.quoted(context.profile) + " git-credential"
        for host in hosts {
            let key = "credential.\(host.url).helper"
            // An empty first entry stops helpers configured for every host from answering first.
            try await configure(["config", "--global", "--replace-all", key, ""])
            try await configure(["config", "--global", "--add", key, helper])
            if context.invocation.global.json { continue }
            context.console.out("git asks versola (profile \(context.profile)) for \(host.url)\n")
        }
        if context.invocation.global.json {
            context.console.out(
                JSONValue.object(["profile": .string(context.profile), "hosts": .array(hosts.map { .string($0.url) })])
                    .serialized() + "\n")
        }
    }

    /// Runs git from `PATH` in the command's environment, its standard error passed on to ours.
    private func configure(_ arguments: [String]) async throws(CommandFailure) {
        let command = "git " + arguments.prefix(3).joined(separator: " ")
        let searchPath = context.environment["PATH"] ?? "/usr/bin:/bin"
        guard let git = ChildProcess.find("git", searchPath: searchPath),
            let outcome = await ChildProcess.run(git, arguments: arguments, environment: context.environment)
        else {
            throw .versola(.configuration(.invalidConfiguration("git could not be run (is it installed?): \(command)")))
        }
        if !outcome.errorOutput.isEmpty { context.console.err(String(decoding: outcome.errorOutput, as: UTF8.self)) }
        guard outcome.status == 0 else {
            throw .versola(.configuration(.invalidConfiguration("git config failed: \(command)")))
        }
    }
}
