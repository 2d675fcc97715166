import Foundation
import Versola

/// The command's side of private-use scheme redirects (L7): `versola login --redirect-scheme`
/// registers `versola --profile P handle-redirect %u` as the desktop's handler for the scheme
/// before the browser opens, and `handle-redirect` says plainly why a redirect was not taken.
enum SchemeHandlerSetup {
    /// The desktop entry for `redirect` on `profile`, running `executable`.
    static func entry(for redirect: PrivateUseRedirect, profile: String, executable: String) throws(VersolaError)
        -> SchemeHandlerEntry
    {
        try SchemeHandlerEntry(
            redirect: redirect, name: "versola-" + redirect.scheme, displayName: "Versola sign-in (\(redirect.scheme))",
            command: [executable, "--profile", profile, "handle-redirect"])
    }

    /// Installs the handler when the settings use a private-use redirect.
    /// - Throws: `.configuration(.invalidConfiguration)` when it cannot be installed (no
    ///   `xdg-mime`, no known executable, an unwritable directory).
    static func installIfUsed(_ settings: ProfileSettings, context: CommandContext) throws(VersolaError) {
        guard let redirect = settings.redirectScheme else { return }
        guard let executable = VersolaCommandLine.userCommand(executable: context.executable) else {
            throw .configuration(
                .invalidConfiguration("the path of the versola program is unknown, so no handler for \(redirect.scheme): can be registered"))
        }
        try entry(for: redirect, profile: context.profile, executable: executable).install(environment: context.environment)
    }

    /// Why `handle-redirect` cannot hand `url` to the profile's pending request, in plain
    /// words; nil when it may try. Nothing is changed for any of these (L2, L6). With no
    /// pending request at all the command fails `pendingRequestExpired` instead (P2).
    /// - Parameters:
    ///   - overLiveSession: the stored record holds a grant beside the pending request (a
    ///     re-login, whose DPoP key only the waiting process holds, P9): a private-use redirect
    ///     cannot be finished here, and opening a session would drop that request (P3).
    static func refusal(_ url: String, pending: PendingAuthorization?, profile: String, overLiveSession: Bool = false)
        -> String?
    {
        guard let redirect = try? AuthorizationRedirect(url: url), redirect.isAuthorizationResponse else {
            return "\(RedirectRefusal.notAResponse.description); nothing changed"
        }
        guard let pending else { return nil }
        guard redirect.carries(state: pending.state) else {
            return "\(RedirectRefusal.otherRequest.description); the waiting sign-in goes on waiting"
        }
        let privateUse = (try? PrivateUseRedirect(pending.redirectURI)) != nil
        guard !(overLiveSession && privateUse) else {
            let flag = profile == "default" ? "" : " --profile \(ShellWord.quoted(profile))"
            return "this sign-in was started while signed in, and only the waiting versola login can finish it "
                + "through a private-use scheme; cancel it, sign out (versola logout\(flag)), then sign in again"
        }
        return nil
    }
}
