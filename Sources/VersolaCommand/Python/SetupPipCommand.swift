import Foundation
import Versola
import VersolaJOSE

/// `versola setup-pip --url INDEX_URL`: records the index in the target table and prints what
/// pip, uv and twine need to ask versola for it through the keyring (the `versola-keyring`
/// backend, which runs `versola credential --url`). Nothing of theirs is written.
struct SetupPipCommand {
    let context: CommandContext

    func run(_ options: SetupPipOptions) throws(CommandFailure) {
        let missing = UsageError("name the index: versola setup-pip --url https://packages.example.com/simple/", command: .setupPip)
        let key = try TargetSetup.key(options.url, for: .python, flag: "--url", missing: missing)
        let target = CredentialTarget(
            tool: .python, key: key, profile: context.profile, token: options.token, username: options.username)
        try TargetSetup.record(target, context)
        let index = key.description + "/"
        if context.invocation.global.json {
            context.console.out(TargetSetup.summary(target, extra: [("indexURL", .string(index))]))
            return
        }
        let user = target.username ?? "oauth2"
        context.console.out(
            Self.instructions(index: index, withUser: Self.url(index, user: user)))
        context.console.err("pip, uv and twine ask versola (profile \(context.profile), user \(user)) for \(index) and below\n")
    }

    /// `index` with `user@` before its host, the form uv needs to ask the keyring for a user's password.
    static func url(_ index: String, user: String) -> String {
        guard let range = index.range(of: "://") else { return index }
        return index.replacingCharacters(in: range, with: "://" + user + "@")
    }

    /// Where the keyring backend's package is: `PREFIX/share/versola/keyring` beside an installed
    /// engine (`PREFIX/libexec/versola/versola`, put there by `make install`), else its folder in
    /// versola's source.
    static func keyringPackage(executable: String? = VersolaCommandLine.currentExecutable()) -> String {
        let fallback = "./integrations/keyring"
        guard let executable else { return fallback }
        let directory = (executable as NSString).deletingLastPathComponent
        guard directory.hasSuffix("/libexec/versola") else { return fallback }
        let prefix = ((directory as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
        return prefix + "/share/versola/keyring"
    }

    /// The lines printed: the keyring backend, then each tool's settings. pip asks the keyring
    /// in its own environment only in `import` mode (its `subprocess` mode skips a `keyring`
    /// command found there); uv runs the `keyring` command found on PATH.
    static func instructions(index: String, withUser: String, package: String = keyringPackage()) -> String {
        """
        # the keyring backend, in the environment pip and twine run in (versola-keyring is not on PyPI):
        pip install 'keyring>=25.2.1' \(ShellWord.quoted(package))
        # pip (import mode: the backend beside pip):
        pip config set global.index-url \(ShellWord.quoted(index))
        pip config set global.keyring-provider import
        # uv (the keyring command on PATH; the user in the URL makes uv ask it):
        export UV_INDEX_URL=\(ShellWord.quoted(withUser)) UV_KEYRING_PROVIDER=subprocess
        # twine, to an upload URL this index covers (else set it up too: versola setup-pip --url UPLOAD_URL):
        twine upload --repository-url UPLOAD_URL dist/*

        """
    }
}
