import VersolaHTTP
import Foundation

/// A device authorization (RFC 8628) waiting for the person to approve it on another device
/// (A14): everything needed to go on polling the token endpoint, even in another process
/// after a restart (P1, P2).
///
/// It holds the device code, a secret, so its `description` shows none of its values.
///
/// ```swift
/// let grant = try await client.loginWithDevice(
///     onPending: { pending in
///         // keep `pending` (it holds the device code, a secret) to go on polling after a restart
///         print("waiting for approval until \(pending.expiresAt), polling every \(pending.interval) s")
///     },
///     present: { prompt in print("Open \(prompt.verificationURI) and enter \(prompt.userCode)") })
/// print("signed in as", grant.claims?.subject ?? "(no ID token)")
/// ```
public struct PendingDeviceAuthorization: Sendable, Hashable, CustomStringConvertible {
    /// The device code the token endpoint is polled with. Secret: never logged, never shown.
    public var deviceCode: String
    /// The code the person enters at the verification page.
    public var userCode: String
    /// Where the person enters the user code.
    public var verificationURI: String
    /// The verification page with the user code in it, when the provider gave one (for a
    /// link or a QR code): opening it is enough.
    public var verificationURIComplete: String?
    /// Seconds between two polls: the provider's `interval` (5 when it gave none), plus
    /// 5 for every `slow_down` answer so far (RFC 8628 §3.5).
    public var interval: Int
    /// When the device code expires (`expires_in` after the request, by the local clock).
    public var expiresAt: Date
    /// The issuer the request went to.
    public var issuer: String
    /// The client id.
    public var clientID: String
    /// The scope requested.
    public var scope: String
    /// The RFC 7638 thumbprint of the DPoP key the request was made with, when DPoP is on:
    /// every poll carries a proof by that key.
    public var dpopThumbprint: String?
    /// When the request was made.
    public var createdAt: Date

    /// The poll interval when the provider names none (RFC 8628 §3.2).
    public static let defaultInterval = 5
    /// What every `slow_down` adds to the interval, in seconds (RFC 8628 §3.5).
    public static let slowDownStep = 5

    /// Creates a record.
    public init(
        deviceCode: String, userCode: String, verificationURI: String, verificationURIComplete: String? = nil,
        interval: Int = PendingDeviceAuthorization.defaultInterval, expiresAt: Date, issuer: String, clientID: String,
        scope: String, dpopThumbprint: String? = nil, createdAt: Date
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.interval = interval
        self.expiresAt = expiresAt
        self.issuer = issuer
        self.clientID = clientID
        self.scope = scope
        self.dpopThumbprint = dpopThumbprint
        self.createdAt = createdAt
    }

    /// Whether the device code has expired at `now`; a clock that went back more than five
    /// minutes behind the request counts as expired too, as for ``PendingAuthorization``.
    public func isExpired(at now: Date) -> Bool {
        now >= expiresAt || now < createdAt.addingTimeInterval(-300)
    }

    /// What the person is shown for it.
    public func prompt(resumed: Bool) -> DeviceAuthorizationPrompt {
        DeviceAuthorizationPrompt(
            userCode: userCode, verificationURI: verificationURI, verificationURIComplete: verificationURIComplete,
            expiresAt: expiresAt, resumed: resumed)
    }

    /// The issuer and times; never a code.
    public var description: String {
        "PendingDeviceAuthorization(issuer \(issuer), created \(createdAt), expires \(expiresAt))"
    }
}
