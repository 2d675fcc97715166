import Foundation

/// How long the held grant lasts without a person signing in again.
///
/// ```swift
/// switch session.grantLifetime {
/// case .renewable?: print("renewed as needed")
/// case .endsAt(let date)?: print("no refresh token; ends at \(date)")
/// case .unbounded?: print("no refresh token; does not expire")
/// case nil: print("signed out")
/// }
/// ```
public enum GrantLifetime: Sendable, Hashable {
    /// The grant has a refresh token: its access tokens are renewed as needed.
    case renewable
    /// The grant has no refresh token (P13): it ends when its access token expires.
    case endsAt(Date)
    /// The grant has no refresh token and its access token states no expiry: it is served until
    /// a resource refuses it (P13).
    case unbounded

    /// The lifetime of `held` (nil when it holds no credential at all).
    init?(_ held: HeldGrant) {
        if held.grant.refreshToken != nil {
            self = .renewable
        } else if let end = held.grant.expiresAt ?? held.token?.expiration {
            self = .endsAt(end)
        } else if held.token != nil {
            self = .unbounded
        } else {
            return nil
        }
    }
}
