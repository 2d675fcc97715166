import Glibc
import Versola
import VersolaJOSE

/// What every `setup-*` command does first: checks that the profile can serve a Bearer-only
/// tool and records the target in the table. Running it again changes nothing; running it for
/// another profile moves the target there.
enum TargetSetup {
    /// Records `target` (for the command's profile) in the caller's table.
    /// - Throws: no such profile, a profile that requires DPoP (the flag that makes a Bearer one
    ///   is named), or a table that cannot be written.
    static func record(_ target: CredentialTarget, _ context: CommandContext) throws(CommandFailure) {
        do throws(VersolaError) {
            let settings = try context.profileFiles().require(target.profile)
            guard settings.dpop != .require else { throw target.tool.bearerTool.dpopRefused(profile: target.profile) }
            let configHome = try context.directories().configHome.path
            // One setup at a time reads and writes the table, so that two at once both land.
            let lock = open(TargetTable.path(configHome: configHome) + ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            defer { if lock >= 0 { close(lock) } }
            if lock >= 0 { while flock(lock, LOCK_EX) != 0 && errno == EINTR {} }
            var table = try TargetTable.load(configHome: configHome)
            guard !table.targets.contains(target) else { return }
            table.put(target)
            try table.save(configHome: configHome)
        } catch {
            throw .versola(error)
        }
    }

    /// The key a setup command's flag gives.
    /// - Parameter missing: the usage error when the flag was not given.
    static func key(_ text: String?, for tool: TargetTool, flag: String, missing: UsageError) throws(CommandFailure) -> TargetKey {
        guard let text else { throw .usage(missing) }
        do throws(VersolaError) { return try TargetKey.parse(text, for: tool, flag: flag) } catch { throw .versola(error) }
    }

    /// The `--json` summary of a recorded target.
    static func summary(_ target: CredentialTarget, extra: [(String, JSONValue)] = []) -> String {
        var members: [(String, JSONValue)] = [
            ("profile", .string(target.profile)), ("tool", .string(target.tool.rawValue)), ("match", .string(target.key.description)),
            ("token", .string(target.token.rawValue)),
        ]
        if let username = target.username { members.append(("username", .string(username))) }
        return JSONValue.object(JSONObject(members + extra)).serialized() + "\n"
    }

    /// `--profile P` for a printed command line, nothing for the default profile.
    static func profileFlag(_ profile: String) -> String {
        profile == "default" ? "" : " --profile " + ShellWord.quoted(profile)
    }
}
