import VersolaHTTP
import Foundation

/// The one login a profile may have waiting (P1): a browser authorization waiting for its
/// redirect, or a device authorization waiting for the person's approval (A14).
///
/// ```swift
/// if case .device(let device)? = record.pendingRequest { print(device.userCode) }
/// ```
public enum PendingRequest: Sendable, Hashable, CustomStringConvertible {
    /// An authorization code flow request waiting for its redirect.
    case browser(PendingAuthorization)
    /// A device authorization waiting to be approved on another device.
    case device(PendingDeviceAuthorization)

    /// Whether it can no longer complete at `now` (P2: 10 minutes for a browser request,
    /// the provider's `expires_in` for a device request).
    public func isExpired(at now: Date) -> Bool {
        switch self {
        case .browser(let request): request.isExpired(at: now)
        case .device(let request): request.isExpired(at: now)
        }
    }

    /// The browser request, when it is one.
    public var browser: PendingAuthorization? {
        if case .browser(let request) = self { request } else { nil }
    }

    /// The device request, when it is one.
    public var device: PendingDeviceAuthorization? {
        if case .device(let request) = self { request } else { nil }
    }

    /// The issuer the request went to.
    public var issuer: String {
        switch self {
        case .browser(let request): request.issuer
        case .device(let request): request.issuer
        }
    }

    /// The client id it was made for.
    public var clientID: String {
        switch self {
        case .browser(let request): request.clientID
        case .device(let request): request.clientID
        }
    }

    /// The wrapped request's description (never a secret).
    public var description: String {
        switch self {
        case .browser(let request): request.description
        case .device(let request): request.description
        }
    }
}
