import VersolaHTTP
import Foundation

/// What the person is shown while a device flow login waits (A14): the code to enter and
/// where, on any device with a browser. It holds no secret (the device code stays inside the
/// engine).
///
/// ```swift
/// try await session.loginWithDevice { prompt in
///     print("Open \(prompt.verificationURI) and enter \(prompt.userCode)")
/// }
/// ```
public struct DeviceAuthorizationPrompt: Sendable, Hashable {
    /// The code to enter at ``verificationURI``.
    public var userCode: String
    /// Where to enter the code.
    public var verificationURI: String
    /// The verification page with the code in it, when the provider gave one: opening it
    /// alone is enough.
    public var verificationURIComplete: String?
    /// When the code stops working.
    public var expiresAt: Date
    /// Whether this continues a device login an earlier process started (P2): the code is the
    /// one shown then.
    public var resumed: Bool

    /// Creates a prompt.
    public init(
        userCode: String, verificationURI: String, verificationURIComplete: String? = nil, expiresAt: Date,
        resumed: Bool = false
    ) {
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresAt = expiresAt
        self.resumed = resumed
    }
}
