import Foundation
import Testing
import VersolaCrypto

@testable import Versola
import VersolaHTTP
import VersolaTesting

enum StorageSamples {
    static let createdAt = Date(timeIntervalSinceReferenceDate: 786_000_123.456_789)

    static let pending = PendingAuthorization(
        state: "state-value", nonce: "nonce-value", codeVerifier: "verifier-SECRET-0123456789",
        redirectURI: "http://127.0.0.1:49152/callback", issuer: "https://id.example", clientID: "cli",
        scope: "openid offline_access", acrValues: ["urn:mfa", "urn:pwd"], maxAge: 300, dpopThumbprint: "thumb-123",
        createdAt: createdAt)

    /// A record with every field set.
    static let full = SessionRecord(
        issuer: "https://id.example", clientID: "cli", subject: "user-42", refreshToken: "refresh-SECRET-abc",
        idToken: "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.sig-SECRET", dpopPrivateKey: [UInt8](1...32),
        pendingAuthorization: pending,
        dpopNonces: ["https://id.example": "nonce-1", "https://api.example:8443": "nonce-2"],
        refreshInFlight: RefreshInFlight(refreshToken: "refresh-SECRET-abc", startedAt: createdAt.addingTimeInterval(7)))

    /// A record with only the required fields.
    static let minimal = SessionRecord(issuer: "https://id.example", clientID: "cli")

    static let key = SymmetricKey.generate()

    static func store(_ directory: TemporaryDirectory, profile: String = "team", key: SymmetricKey = key) throws
        -> FileSessionStore
    {
        try FileSessionStore(profile: profile, directory: directory.url, keySource: FixedKeySource(key: key))
    }
}

/// The permission bits of `path` (without following a final symbolic link).
func permissions(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o777
}

/// A key source whose lock a test controls.
final class SwitchableKeySource: KeySource, @unchecked Sendable {
    private let lock = NSLock()
    private var locked: Bool
    private let key: SymmetricKey

    init(key: SymmetricKey = StorageSamples.key, locked: Bool) {
        self.key = key
        self.locked = locked
    }

    func setLocked(_ value: Bool) { lock.withLock { locked = value } }

    func dataKey() async throws(VersolaError) -> SymmetricKey {
        if lock.withLock({ locked }) { throw .recoverable(.unlockRequired) }
        return key
    }
}

/// Expects `body` to throw exactly `expected`.
func expectError<R>(
    _ expected: VersolaError, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws(VersolaError) -> R
) async {
    do {
        _ = try await body()
        Issue.record("expected \(expected), nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        #expect(error == expected, sourceLocation: sourceLocation)
    }
}

/// Expects `body` to throw an `invalidConfiguration` whose text contains `fragment`.
/// Expects a storage failure naming `fragment`: `recoverable(storageUnavailable)` (P10).
func expectStorageUnavailable<R>(
    containing fragment: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws(VersolaError) -> R
) async {
    do {
        _ = try await body()
        Issue.record("expected storageUnavailable, nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        guard case .recoverable(.storageUnavailable(let reason)) = error else {
            Issue.record("expected storageUnavailable, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.contains(fragment), "\(reason)", sourceLocation: sourceLocation)
    }
}

func expectInvalidConfiguration<R>(
    containing fragment: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws(VersolaError) -> R
) async {
    do {
        _ = try await body()
        Issue.record("expected invalidConfiguration, nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        guard case .configuration(.invalidConfiguration(let reason, _)) = error else {
            Issue.record("expected invalidConfiguration, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.contains(fragment), "\(reason)", sourceLocation: sourceLocation)
    }
}
