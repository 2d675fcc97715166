import VersolaHTTP
import Foundation

/// Everything stored for one profile, sealed and written as one record (P8): a session's
/// items move together and are never half-written.
///
/// It holds the refresh token, the raw ID token, the DPoP private key, the pending request
/// (a browser authorization or a device authorization), learned DPoP nonces and the
/// refresh-in-flight marker. It holds the access token only for a grant without a refresh token,
/// where it is the session's only credential (P13); otherwise access tokens and parsed claims
/// live in memory only (P4).
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
    /// The login waiting to complete (P1, A14), when any: a browser request waiting for its
    /// redirect, or a device authorization waiting for its approval.
    public var pendingRequest: PendingRequest?
    /// DPoP nonces learned per origin (D3): origin (`https://host:port`) → nonce.
    public var dpopNonces: [String: String]
    /// Set just before a rotating refresh token is spent, cleared when the answer is saved.
    public var refreshInFlight: RefreshInFlight?
    /// The access token of a grant without a refresh token (P13), its only credential; nil for
    /// a grant that can be renewed (P4). Secret.
    public var accessToken: StoredAccessToken?

    /// Creates a record.
    public init(
        issuer: String, clientID: String, subject: String? = nil, refreshToken: String? = nil,
        idToken: String? = nil, dpopPrivateKey: [UInt8]? = nil, pendingAuthorization: PendingAuthorization? = nil,
        dpopNonces: [String: String] = [:], refreshInFlight: RefreshInFlight? = nil,
        pendingDeviceAuthorization: PendingDeviceAuthorization? = nil, accessToken: StoredAccessToken? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.subject = subject
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.dpopPrivateKey = dpopPrivateKey
        self.pendingRequest = pendingAuthorization.map { .browser($0) } ?? pendingDeviceAuthorization.map { .device($0) }
        self.dpopNonces = dpopNonces
        self.refreshInFlight = refreshInFlight
        self.accessToken = accessToken
    }

    /// Whether the record holds a grant (a refresh token, an ID token, or the access token of
    /// a grant without a refresh token), as opposed to a pending request alone or nothing.
    public var holdsGrant: Bool {
        refreshToken != nil || idToken != nil || accessToken != nil
    }

    /// The browser authorization waiting for its redirect, when that is the pending request.
    /// Setting it replaces the pending request, whatever kind it was.
    public var pendingAuthorization: PendingAuthorization? {
        get { pendingRequest?.browser }
        set { pendingRequest = newValue.map { .browser($0) } }
    }

    /// The device authorization waiting for its approval, when that is the pending request.
    /// Setting it replaces the pending request, whatever kind it was.
    public var pendingDeviceAuthorization: PendingDeviceAuthorization? {
        get { pendingRequest?.device }
        set { pendingRequest = newValue.map { .device($0) } }
    }

    /// Which items are present, without any value that could be a secret.
    public var description: String {
        var items: [String] = []
        if subject != nil { items.append("subject") }
        if refreshToken != nil { items.append("refresh token") }
        if accessToken != nil { items.append("access token") }
        if idToken != nil { items.append("ID token") }
        if dpopPrivateKey != nil { items.append("DPoP key") }
        switch pendingRequest {
        case .browser?: items.append("pending authorization")
        case .device?: items.append("pending device authorization")
        case nil: break
        }
        if !dpopNonces.isEmpty { items.append("\(dpopNonces.count) DPoP nonce(s)") }
        if refreshInFlight != nil { items.append("refresh in flight") }
        let held = items.isEmpty ? "nothing" : items.joined(separator: ", ")
        return "SessionRecord(issuer \(issuer), client \(clientID), holding \(held))"
    }
}
