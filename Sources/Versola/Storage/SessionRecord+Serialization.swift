import VersolaHTTP
import Foundation
import VersolaJOSE

extension SessionRecord {
    /// The largest serialization a store is given: ``FileSessionStore/maximumRecordSize``
    /// less room for the seal (magic, GCM nonce and tag), so a saved record always reads back.
    public static let maximumSerializedSize = FileSessionStore.maximumRecordSize - 256

    /// The record as JSON bytes (deterministic: members in a fixed order, nonces sorted).
    ///
    /// Every member is always written; an absent item is `null`. The pending request is
    /// `pendingAuthorization` for a browser request, `pendingDeviceAuthorization` for a device
    /// one (the other `null`). Byte strings are base64url,
    /// times are seconds since Foundation's reference date (2001-01-01), which round-trips a
    /// `Date` exactly. The bytes hold secrets: seal them before they leave memory.
    ///
    /// Never larger than ``maximumSerializedSize`` because of what is only a cache: when the
    /// whole record would be, the DPoP nonces are left out (each costs at most one
    /// `use_dpop_nonce` retry later), so a record that would not read back never replaces a
    /// good one and never costs the session.
    public func serialized() -> [UInt8] {
        let bytes = jsonValue.serializedBytes()
        guard bytes.count > Self.maximumSerializedSize, !dpopNonces.isEmpty else { return bytes }
        var trimmed = self
        trimmed.dpopNonces = [:]
        return trimmed.jsonValue.serializedBytes()
    }

    /// Decodes bytes written by ``serialized()``.
    ///
    /// Strict: an unknown `version`, a missing, extra or mistyped member, two pending requests,
    /// or a DPoP key that is not 32 bytes is an error. `pendingDeviceAuthorization` and
    /// `accessToken` alone may be missing (records written before the device flow, or before
    /// P13 existed): they read as `null`.
    /// - Throws: `.reauthenticate(.credentialsInvalidated)` (E9): stored data that cannot be
    ///   read is a sign-out, not a crash.
    public init(serialized bytes: [UInt8]) throws(VersolaError) {
        do {
            self = try Self.decode(bytes)
        } catch {
            throw .reauthenticate(.credentialsInvalidated)
        }
    }

    var jsonValue: JSONValue {
        var object = JSONObject()
        object["version"] = .integer(Int64(Self.formatVersion))
        object["issuer"] = .string(issuer)
        object["clientID"] = .string(clientID)
        object["subject"] = Self.optional(subject)
        object["refreshToken"] = Self.optional(refreshToken)
        object["idToken"] = Self.optional(idToken)
        object["dpopPrivateKey"] = dpopPrivateKey.map { .string(Base64URL.encode($0)) } ?? .null
        object["pendingAuthorization"] = pendingAuthorization.map(Self.encode) ?? .null
        object["pendingDeviceAuthorization"] = pendingDeviceAuthorization.map(Self.encode) ?? .null
        object["dpopNonces"] = .object(
            JSONObject(dpopNonces.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
        object["refreshInFlight"] = refreshInFlight.map(Self.encode) ?? .null
        object["accessToken"] = accessToken.map(Self.encode) ?? .null
        return .object(object)
    }

    /// Decodes with a reason for the failure (for tests and diagnostics; names no value).
    static func decode(_ bytes: [UInt8]) throws(SessionRecordFormatError) -> SessionRecord {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw SessionRecordFormatError("not JSON (\(error.reason))")
        }
        var reader = try MemberReader(value, what: "record")
        guard let version = try reader.take("version").int64 else {
            throw SessionRecordFormatError("\"version\" is not an integer")
        }
        guard version == Int64(formatVersion) else { throw SessionRecordFormatError("unknown version \(version)") }
        var key: [UInt8]?
        if let text = try reader.optionalString("dpopPrivateKey") {
            key = try decodeBytes(text, member: "dpopPrivateKey", count: 32)
        }
        let pendingValue = try reader.take("pendingAuthorization")
        let deviceValue = reader.takeIfPresent("pendingDeviceAuthorization") ?? .null
        if !pendingValue.isNull && !deviceValue.isNull {
            throw SessionRecordFormatError("the record holds two pending requests")
        }
        let inFlightValue = try reader.take("refreshInFlight")
        let accessTokenValue = reader.takeIfPresent("accessToken") ?? .null
        let record = SessionRecord(
            issuer: try reader.string("issuer"),
            clientID: try reader.string("clientID"),
            subject: try reader.optionalString("subject"),
            refreshToken: try reader.optionalString("refreshToken"),
            idToken: try reader.optionalString("idToken"),
            dpopPrivateKey: key,
            pendingAuthorization: pendingValue.isNull ? nil : try decodePending(pendingValue),
            dpopNonces: try decodeNonces(try reader.take("dpopNonces")),
            refreshInFlight: inFlightValue.isNull ? nil : try decodeInFlight(inFlightValue),
            pendingDeviceAuthorization: deviceValue.isNull ? nil : try decodeDevice(deviceValue),
            accessToken: accessTokenValue.isNull ? nil : try decodeAccessToken(accessTokenValue))
        try reader.finish()
        return record
    }

    // MARK: - Parts

    private static func optional(_ text: String?) -> JSONValue {
        text.map { .string($0) } ?? .null
    }

    private static func encode(_ pending: PendingAuthorization) -> JSONValue {
        var object = JSONObject()
        object["state"] = .string(pending.state)
        object["nonce"] = .string(pending.nonce)
        object["codeVerifier"] = .string(pending.codeVerifier)
        object["redirectURI"] = .string(pending.redirectURI)
        object["issuer"] = .string(pending.issuer)
        object["clientID"] = .string(pending.clientID)
        object["scope"] = .string(pending.scope)
        object["acrValues"] = .array(pending.acrValues.map { .string($0) })
        object["maxAge"] = pending.maxAge.map { .integer(Int64($0)) } ?? .null
        object["dpopThumbprint"] = optional(pending.dpopThumbprint)
        object["createdAt"] = .double(pending.createdAt.timeIntervalSinceReferenceDate)
        return .object(object)
    }

    private static func decodePending(_ value: JSONValue) throws(SessionRecordFormatError) -> PendingAuthorization {
        var reader = try MemberReader(value, what: "pendingAuthorization")
        guard let acrArray = try reader.take("acrValues").array else {
            throw SessionRecordFormatError("\"acrValues\" is not an array")
        }
        var acrValues: [String] = []
        for element in acrArray {
            guard let text = element.string else { throw SessionRecordFormatError("\"acrValues\" holds a non-string") }
            acrValues.append(text)
        }
        let maxAgeValue = try reader.take("maxAge")
        var maxAge: Int?
        if !maxAgeValue.isNull {
            guard let number = maxAgeValue.int64, let small = Int(exactly: number), small >= 0 else {
                throw SessionRecordFormatError("\"maxAge\" is not a non-negative integer")
            }
            maxAge = small
        }
        let pending = PendingAuthorization(
            state: try reader.string("state"),
            nonce: try reader.string("nonce"),
            codeVerifier: try reader.string("codeVerifier"),
            redirectURI: try reader.string("redirectURI"),
            issuer: try reader.string("issuer"),
            clientID: try reader.string("clientID"),
            scope: try reader.string("scope"),
            acrValues: acrValues,
            maxAge: maxAge,
            dpopThumbprint: try reader.optionalString("dpopThumbprint"),
            createdAt: try reader.date("createdAt"))
        try reader.finish()
        return pending
    }

    private static func encode(_ pending: PendingDeviceAuthorization) -> JSONValue {
        var object = JSONObject()
        object["deviceCode"] = .string(pending.deviceCode)
        object["userCode"] = .string(pending.userCode)
        object["verificationURI"] = .string(pending.verificationURI)
        object["verificationURIComplete"] = optional(pending.verificationURIComplete)
        object["interval"] = .integer(Int64(pending.interval))
        object["expiresAt"] = .double(pending.expiresAt.timeIntervalSinceReferenceDate)
        object["issuer"] = .string(pending.issuer)
        object["clientID"] = .string(pending.clientID)
        object["scope"] = .string(pending.scope)
        object["dpopThumbprint"] = optional(pending.dpopThumbprint)
        object["createdAt"] = .double(pending.createdAt.timeIntervalSinceReferenceDate)
        return .object(object)
    }

    private static func decodeDevice(_ value: JSONValue) throws(SessionRecordFormatError) -> PendingDeviceAuthorization {
        var reader = try MemberReader(value, what: "pendingDeviceAuthorization")
        guard let interval = try reader.take("interval").int64, let seconds = Int(exactly: interval), seconds > 0 else {
            throw SessionRecordFormatError("\"interval\" is not a positive integer")
        }
        let pending = PendingDeviceAuthorization(
            deviceCode: try reader.string("deviceCode"),
            userCode: try reader.string("userCode"),
            verificationURI: try reader.string("verificationURI"),
            verificationURIComplete: try reader.optionalString("verificationURIComplete"),
            interval: seconds,
            expiresAt: try reader.date("expiresAt"),
            issuer: try reader.string("issuer"),
            clientID: try reader.string("clientID"),
            scope: try reader.string("scope"),
            dpopThumbprint: try reader.optionalString("dpopThumbprint"),
            createdAt: try reader.date("createdAt"))
        try reader.finish()
        return pending
    }

    private static func encode(_ marker: RefreshInFlight) -> JSONValue {
        [
            "startedAt": .double(marker.startedAt.timeIntervalSinceReferenceDate),
            "tokenDigest": .string(Base64URL.encode(marker.tokenDigest)),
        ]
    }

    private static func decodeInFlight(_ value: JSONValue) throws(SessionRecordFormatError) -> RefreshInFlight {
        var reader = try MemberReader(value, what: "refreshInFlight")
        let marker = RefreshInFlight(
            tokenDigest: try decodeBytes(try reader.string("tokenDigest"), member: "tokenDigest", count: 32),
            startedAt: try reader.date("startedAt"))
        try reader.finish()
        return marker
    }

    private static func encode(_ token: StoredAccessToken) -> JSONValue {
        [
            "value": .string(token.value),
            "expiresAt": token.expiresAt.map { .double($0.timeIntervalSinceReferenceDate) } ?? .null,
            "scope": optional(token.scope),
        ]
    }

    private static func decodeAccessToken(_ value: JSONValue) throws(SessionRecordFormatError) -> StoredAccessToken {
        var reader = try MemberReader(value, what: "accessToken")
        let token = StoredAccessToken(
            value: try reader.string("value"),
            expiresAt: try reader.optionalDate("expiresAt"),
            scope: try reader.optionalString("scope"))
        try reader.finish()
        guard !token.value.isEmpty else { throw SessionRecordFormatError("\"accessToken\" is empty") }
        return token
    }

    private static func decodeNonces(_ value: JSONValue) throws(SessionRecordFormatError) -> [String: String] {
        guard let object = value.object else { throw SessionRecordFormatError("\"dpopNonces\" is not an object") }
        var nonces: [String: String] = [:]
        for member in object {
            guard let nonce = member.value.string else {
                throw SessionRecordFormatError("\"dpopNonces\" holds a non-string")
            }
            nonces[member.name] = nonce
        }
        return nonces
    }

    private static func decodeBytes(_ text: String, member: String, count: Int) throws(SessionRecordFormatError) -> [UInt8] {
        guard let decoded = try? Base64URL.decode(text), decoded.count == count else {
            throw SessionRecordFormatError("\"\(member)\" is not \(count) base64url bytes")
        }
        return decoded
    }
}

/// Takes the members of one JSON object by name, then checks that none is left over.
private struct MemberReader {
    private var remaining: JSONObject
    private let what: String

    init(_ value: JSONValue, what: String) throws(SessionRecordFormatError) {
        guard let object = value.object else { throw SessionRecordFormatError("\(what) is not an object") }
        remaining = object
        self.what = what
    }

    /// The member `name`, removed; missing is an error.
    mutating func take(_ name: String) throws(SessionRecordFormatError) -> JSONValue {
        guard let value = remaining[name] else { throw SessionRecordFormatError("\(what) lacks \"\(name)\"") }
        remaining[name] = nil
        return value
    }

    /// The member `name`, removed, or nil when it is missing.
    mutating func takeIfPresent(_ name: String) -> JSONValue? {
        defer { remaining[name] = nil }
        return remaining[name]
    }

    mutating func string(_ name: String) throws(SessionRecordFormatError) -> String {
        guard let text = try take(name).string else { throw SessionRecordFormatError("\"\(name)\" is not a string") }
        return text
    }

    mutating func optionalString(_ name: String) throws(SessionRecordFormatError) -> String? {
        let value = try take(name)
        if value.isNull { return nil }
        guard let text = value.string else { throw SessionRecordFormatError("\"\(name)\" is not a string or null") }
        return text
    }

    mutating func date(_ name: String) throws(SessionRecordFormatError) -> Date {
        guard let date = try optionalDate(name) else { throw SessionRecordFormatError("\"\(name)\" is not a number") }
        return date
    }

    /// A date member that may be `null`.
    mutating func optionalDate(_ name: String) throws(SessionRecordFormatError) -> Date? {
        let value = try take(name)
        if value.isNull { return nil }
        guard let seconds = value.double, seconds.isFinite else {
            throw SessionRecordFormatError("\"\(name)\" is not a number or null")
        }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// Fails when a member was never taken (an unknown member).
    func finish() throws(SessionRecordFormatError) {
        if let extra = remaining.names.first {
            throw SessionRecordFormatError("\(what) has an unknown member \"\(extra)\"")
        }
    }
}
