import VersolaHTTP
import Foundation
import VersolaCrypto
import VersolaJOSE

/// Where client registrations (RFC 7591, A19) are kept: one user-only file per authorization
/// server in a directory of their own (`$XDG_STATE_HOME/versola/registrations` for the command),
/// named by the SHA-256 of the issuer. A registration holds a client id, and at most a secret a
/// server forced on the client: the files are 0600 in a 0700 directory, like the sealed store's.
///
/// ```swift
/// let registrations = FileClientRegistrations(directory: "/home/me/.local/state/versola/registrations")
/// let known = try registrations.registration(for: "https://auth.example.com")
/// print(known?.clientID ?? "not registered yet")
/// ```
public struct FileClientRegistrations: Sendable {
    /// The directory.
    public let directory: String

    /// Uses `directory` (made, 0700, on the first save).
    public init(directory: String) {
        self.directory = directory
    }

    /// The registration kept for `issuer`, or nil: also when its file or the directory belongs
    /// to another user or others may write it (L4, L8), since it could have been planted;
    /// ``problem(for:)`` then says why it was ignored.
    /// - Throws: `.configuration(.invalidConfiguration)` when the file cannot be read.
    public func registration(for issuer: String) throws(VersolaError) -> RegisteredClient? {
        guard problem(for: issuer) == nil else { return nil }
        let result: PrivateFiles.ReadResult
        do { result = try PrivateFiles.read(path(for: issuer), limit: 64 * 1024) } catch { throw error.versolaError }
        guard case .contents(let bytes) = result, let json = try? JSONValue(parsing: bytes),
            let client = RegisteredClient(json: json), client.issuer == issuer
        else { return nil }
        return client
    }

    /// Why the kept registration of `issuer` is not used, in plain words naming the path: the
    /// directory or the file belongs to another user, or others may write it. Nil when it is
    /// the user's own (or there is none).
    public func problem(for issuer: String) -> String? {
        do {
            try OwnedPath.checkIfPresent(directory, what: "registrations directory", access: .notWritableByOthers)
            try OwnedPath.checkIfPresent(path(for: issuer), what: "registration file", access: .privateToOwner)
            return nil
        } catch {
            if case .configuration(.invalidConfiguration(let reason, _)) = error { return reason }
            return "\(error)"
        }
    }

    /// Keeps `client` for its issuer, replacing what was there.
    /// - Throws: `.configuration(.invalidConfiguration)` when it cannot be written.
    /// A directory another user owns is refused, never made private and written into.
    public func save(_ client: RegisteredClient) throws(VersolaError) {
        try OwnedPath.checkIfPresent(directory, what: "registrations directory", access: .notWritableByOthers)
        do {
            try PrivateFiles.ensureDirectory(directory, privateDirectories: [directory])
            try PrivateFiles.writeAtomically(
                Array((client.json.serialized() + "\n").utf8), to: path(for: client.issuer), in: directory)
        } catch {
            throw error.versolaError
        }
    }

    /// Forgets the registration of `issuer` (a server that no longer knows the client).
    public func forget(_ issuer: String) {
        try? PrivateFiles.remove(path(for: issuer))
    }

    private func path(for issuer: String) -> String {
        let digest = SHA256.hash(Array(issuer.utf8)).map { String(format: "%02x", $0) }.joined()
        return directory + "/" + digest + ".json"
    }
}
