import Foundation
import VersolaCrypto
import VersolaJOSE

/// Where the engine keeps providers' metadata and key sets between processes (A16), so that a
/// new process signs in or refreshes without asking for them again.
///
/// One file per issuer and kind, user-only (a 0700 directory, 0600 files, L4): a file or
/// directory that another user owns or that others may write is ignored with a log message
/// (L8), as is a file that does not parse; the next fetch replaces it. An entry is used until
/// the `Cache-Control: max-age` of the answer it came from has passed (a day when the answer
/// gives none, a week at most; never with `no-store` or `no-cache`), on the environment's wall
/// clock, and only for the issuer it was fetched for: the document is checked again (A1) when
/// it is read. A key set is fetched again when a token names a key it lacks (A7).
///
/// ```swift
/// let environment = EngineEnvironment(providerCache: ProviderCache.standard())
/// let client = try OpenIDClient(configuration: configuration, environment: environment)
/// print(try await client.metadata().issuer)
/// ```
public struct ProviderCache: Sendable, Hashable {
    /// The directory holding the files.
    public let directory: URL

    /// How long an entry is kept when the answer gives no `max-age`: a day.
    public static let defaultLifetime: Duration = .seconds(86_400)
    /// The longest an entry is kept, whatever `max-age` says: a week.
    public static let longestLifetime: Duration = .seconds(604_800)

    /// A cache in `directory` (created 0700 when first written).
    public init(directory: URL) {
        self.directory = directory
    }

    /// The user's cache named by `environment`: `$XDG_CACHE_HOME/versola/providers` (when that
    /// is an absolute path), else `$HOME/.cache/versola/providers`.
    /// - Returns: nil when `environment` names neither (nothing is kept: a cache is only ever a
    ///   saving), or the one named is not UTF-8 (L3).
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> ProviderCache? {
        func intact(_ path: String?) -> String? {
            guard let path, path.hasPrefix("/"), !path.unicodeScalars.contains("\u{FFFD}") else { return nil }
            return path
        }
        guard let base = intact(environment["XDG_CACHE_HOME"]) ?? intact(environment["HOME"]).map({ $0 + "/.cache" })
        else { return nil }
        return ProviderCache(directory: URL(fileURLWithPath: base + "/versola/providers", isDirectory: true))
    }

    /// How long an answer may be kept, from its `Cache-Control` field (RFC 9111 §5.2.2).
    static func lifetime(cacheControl: String?) -> Duration {
        guard let cacheControl else { return defaultLifetime }
        var maxAge: Int64?
        for directive in cacheControl.split(separator: ",") {
            let name = directive.trimmingCharacters(in: .whitespaces).lowercased()
            if name == "no-store" || name == "no-cache" { return .zero }
            if name.hasPrefix("max-age=") {
                maxAge = Int64(name.dropFirst("max-age=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
            }
        }
        guard let maxAge, maxAge >= 0 else { return defaultLifetime }
        return min(.seconds(maxAge), longestLifetime)
    }

    /// What a file holds.
    enum Kind: String, Sendable {
        /// The provider's metadata.
        case metadata
        /// The provider's key set.
        case keySet = "jwks"
    }

    /// The file of `kind` for `issuer`: named after a digest of the issuer, so any issuer
    /// makes a plain file name.
    func path(_ kind: Kind, issuer: String) -> String {
        let digest = SHA256.hash(utf8: issuer).prefix(16).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        return directory.path + "/\(kind.rawValue)-\(digest).json"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
