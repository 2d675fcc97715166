import Foundation
import Versola
import VersolaJOSE

/// `versola unlock`: a locked session (S10) is unlocked in the session agent, which keeps it
/// so. A passphrase profile's passphrase is read here (`--passphrase-fd`,
/// `VERSOLA_PASSPHRASE_FD`, or the terminal without echo) and handed over; a secret-service
/// profile has the agent read the keyring again (on a desktop, the keyring shows its unlock
/// prompt). A key file never locks.
struct UnlockCommand {
    let context: CommandContext
    let options: UnlockOptions

    func run() async throws(CommandFailure) {
        let profile = context.profile
        let settings: ProfileSettings
        var arguments = AgentUnlockArguments()
        do throws(VersolaError) {
            settings = try context.profileFiles().require(profile)
            if settings.keySource == .keyFile {
                context.console.out(
                    context.invocation.global.json
                        ? (["profile": .string(profile), "keySource": "file"] as JSONValue).serialized() + "\n"
                        : "Profile \(profile) keeps its key in a file, which never locks; nothing to unlock.\n")
                return
            }
            guard context.agentClient() != nil else {
                throw .configuration(
                    .invalidConfiguration(
                        "versola unlock hands the key to the session agent, and --no-agent runs without one; "
                            + "without the agent each command asks for the passphrase itself "
                            + "(or reads it from the descriptor in VERSOLA_PASSPHRASE_FD)"))
            }
            if settings.keySource == .passphrase {
                let directories = try context.directories()
                let source = try PassphraseKeySource(profile: profile, directory: directories.stateHome)
                guard FileManager.default.fileExists(atPath: source.passphraseFile.path) else {
                    let flag = profile == "default" ? "" : " --profile \(ShellWord.quoted(profile))"
                    throw .configuration(
                        .invalidConfiguration(
                            "profile '\(profile)' has no passphrase yet: sign in first (versola login\(flag)), which sets it"))
                }
                let descriptor = PassphraseInput.descriptor(flag: options.passphraseDescriptor, environment: context.environment)
                let passphrase = try await PassphraseInput.read(profile: profile, isNew: false, descriptor: descriptor)
                arguments.passphrase = passphrase
            }
        } catch {
            throw .versola(error)
        }
        let status = try await CommandRunner.call(AgentRequest(.unlock(arguments), profile: profile), context, as: AgentStatus.self)
        context.console.out(
            context.invocation.global.json
                ? status.json.serialized() + "\n" : "Unlocked (profile \(profile), \(status.state.rawValue)).\n")
    }
}
