import Foundation

/// Everything stored for one profile, sealed and written as one record (P8): a session's
/// items move together and are never half-written.
///
/// It holds the refresh token, the raw ID token, the DPoP private key, the pending
/// authorization request, learned DPoP nonces and the refresh-in-flight marker. It never
/// holds the access token nor parsed claims: those live in memory only (P4), and this type
/// has no field for them.
///
/// Its `description` shows which items are present, never their values.
///
/// ```swift
/// var record = SessionRecord(issuer: "https://id.example", clientID: "cli")
/// record.refreshToken = response.refreshToken
/// try await store.save(record)
/// ```
public struct SessionRecord: Sendable, Hashable, CustomStringConvertible {
    /// The version of the serialized form this code writes (and the only one it reads).
    public static let formatVersion = 1

    /// The issuer the session belongs to.
    public var issuer: String
    /// The client id the session belongs to.
    public var clientID: String
    /// The ID token's `sub`, once someone has signed in.
    public var subject: String?
    /// The refresh token, when the grant has one. Secret.
    public var refreshToken: String?
    /// The raw (compact JWS) ID token, when any. Secret.
    public var idToken: String?
    /// The DPoP private key of the grant (the 32-byte P-256 scalar), when DPoP is on. Secret.
    public var dpopPrivateKey: [UInt8]?
    /// The authorization request waiting for its redirect (P1), when any.
    public var pendingAuthorization: PendingAuthorization?
    /// DPoP nonces learned per origin (D3): origin (`https://host:port`) → nonce.
    public var dpopNonces: [String: String]
    /// Set just before a rotating refresh token is spent, cleared when the answer is saved.
    public var refreshInFlight: RefreshInFlight?

    /// Creates a record.
    public init(
        issuer: String, clientID: String, subject: String? = nil, refreshToken: String? = nil,
        idToken: String? = nil, dpopPrivateKey: [UInt8]? = nil, pendingAuthorization: PendingAuthorization? = nil,
        dpopNonces: [String: String] = [:], refreshInFlight: RefreshInFlight? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.subject = subject
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.dpopPrivateKey = dpopPrivateKey
        self.pendingAuthorization = pendingAuthorization
        self.dpopNonces = dpopNonces
        self.refreshInFlight = refreshInFlight
    }

    /// Which items are present, without any value that could be a secret.
    public var description: String {
        var items: [String] = []
        if subject != nil { items.append("subject") }
        if refreshToken != nil { items.append("refresh token") }
        if idToken != nil { items.append("ID token") }
        if dpopPrivateKey != nil { items.append("DPoP key") }
        if pendingAuthorization != nil { items.append("pending authorization") }
        if !dpopNonces.isEmpty { items.append("\(dpopNonces.count) DPoP nonce(s)") }
        if refreshInFlight != nil { items.append("refresh in flight") }
        let held = items.isEmpty ? "nothing" : items.joined(separator: ", ")
        return "SessionRecord(issuer \(issuer), client \(clientID), holding \(held))"
    }
}
