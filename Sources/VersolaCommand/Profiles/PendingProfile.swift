import Foundation
import Versola
import VersolaHTTP

/// The settings of a login in progress, kept beside the saved profile until the login
/// succeeds (P11): a login with a mistyped issuer or any other failure leaves the saved
/// profile byte for byte as it was, while `versola handle-redirect` in another process can
/// still finish the login with the settings it was started with (L2).
///
/// The file is `<profiles>/<name>.json+pending` (never a profile's name: `+` is not allowed
/// in one), 0600 like the profile; a successful login renames it over the profile, in one step.
struct PendingProfile: Sendable {
    let files: ProfileFiles
    let profile: String

    /// The pending file.
    /// - Throws: `.configuration(.invalidConfiguration)` for an invalid profile name.
    func path() throws(VersolaError) -> String {
        try files.path(of: profile) + "+pending"
    }

    /// Keeps `settings` as the login's, beside the profile.
    /// - Throws: `.configuration(.invalidConfiguration)` when the file cannot be written.
    func save(_ settings: ProfileSettings) throws(VersolaError) {
        try files.write(settings, to: try path())
    }

    /// The settings of the login in progress, or nil when none is kept.
    func load() throws(VersolaError) -> ProfileSettings? {
        try files.read(at: try path())
    }

    /// The login succeeded: its settings become the saved profile, atomically.
    /// Does nothing when no pending file is kept (another process already promoted it).
    /// - Throws: `.configuration(.invalidConfiguration)` when the rename fails.
    func promote() throws(VersolaError) {
        let pending = try path()
        let saved = try files.path(of: profile)
        guard rename(pending, saved) == 0 else {
            if errno == ENOENT { return }
            throw .configuration(.invalidConfiguration("cannot replace \(saved) with the signed-in settings"))
        }
    }

    /// The login failed: its settings go; the saved profile is untouched.
    func discard() {
        guard let pending = try? path() else { return }
        unlink(pending)
    }

    /// After a failed login: the pending settings stay only while the store may still hold
    /// the login's pending request for a later `handle-redirect` (a system cancel, E7);
    /// any other failure ends the login and they go.
    func settle(after error: VersolaError) {
        if error != .recoverable(.systemCancelled) { discard() }
    }

    /// The settings `handle-redirect` finishes a login with: the pending ones when a login is
    /// in progress, else the saved profile's.
    /// - Returns: the settings and whether they are the pending ones (to promote on success).
    /// - Throws: `.configuration(.invalidConfiguration)` when neither exists.
    func settingsForRedirect() throws(VersolaError) -> (settings: ProfileSettings, pending: Bool) {
        if let pending = try load() { return (pending, true) }
        return (try files.require(profile), false)
    }
}
