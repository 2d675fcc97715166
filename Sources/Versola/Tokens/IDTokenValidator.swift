import Synchronization
import VersolaHTTP
import Foundation
import VersolaCrypto
import VersolaJOSE

/// Validates ID tokens as OpenID Connect Core §3.1.3.7 and §12.2 require (A7).
///
/// - The signature must verify with a key of the provider's JWKS: the key named by `kid`, or
///   the only compatible key when the token names none. An unknown `kid` refetches the key set
///   once, rate-limited by ``JWKSCache``.
/// - The algorithm must be in the configuration's allow-list narrowed to what the provider
///   advertises, and permitted by the key; `none` and HMAC are never accepted.
/// - `iss` must equal the issuer exactly; `aud` must contain the client ID; `azp`, required
///   when there are several audiences, must equal the client ID whenever present.
/// - `exp`, `iat` (and `nbf`) are checked on the injected clock with the configured tolerance.
/// - `nonce` must equal the request's when one was sent; `at_hash`, when present, must match
///   the access token.
/// - After a refresh (`previous` given), `iss`, `sub` and `aud` must be those of the previous token.
///
/// Every failure is `.configuration(.idTokenRejected(reason))` with a reason a developer can act on.
///
/// ```swift
/// let validator = IDTokenValidator(configuration: configuration, metadata: metadata, keys: keys, clock: clock)
/// if let idToken = tokens.idToken {
///     let claims = try validator.validate(idToken, keySet: keySet, nonce: pending.nonce, accessToken: tokens.accessToken)
///     print("signed in as", claims.subject)
/// }
/// ```
public struct IDTokenValidator: Sendable {
    /// The client's configuration (issuer, client ID, tolerance, allow-list).
    public let configuration: ClientConfiguration
    /// The algorithms accepted: the allow-list narrowed to what the provider advertises.
    public let allowedAlgorithms: Set<SignatureAlgorithm>
    /// The provider's keys.
    public let keys: JWKSCache
    private let clock: any VersolaClock
    private let toleranceSeconds: Double
    /// `[clientID]`, made once: the audiences of nearly every token.
    private let clientAudience: [String]
    /// ``allowedAlgorithms`` as a mask of ``SignatureAlgorithm/maskBit``s, for the lookup made on every token.
    private let allowedMask: UInt32
    /// The keys chosen for the last token's `kid` and algorithm: a provider signs every token
    /// with one key, so the set is searched again only when the token or the set changes.
    private let lastKeySelection = LastValueCache<KeyChoice, JWKSet.KeySelection>()
    /// The last header that passed its checks: a provider signs every token with the same one.
    private let lastHeader = CheckedHeaderCache()

    /// Creates a validator.
    /// - Parameters:
    ///   - configuration: issuer, client ID, clock tolerance and algorithm allow-list.
    ///   - metadata: the provider's metadata (advertised algorithms).
    ///   - keys: the provider's key cache.
    ///   - clock: the clock `exp`/`iat`/`nbf` are read against.
    public init(configuration: ClientConfiguration, metadata: ProviderMetadata, keys: JWKSCache, clock: any VersolaClock) {
        self.configuration = configuration
        allowedAlgorithms = metadata.idTokenAlgorithms(for: configuration)
        allowedMask = allowedAlgorithms.reduce(0) { $0 | $1.maskBit }
        clientAudience = [configuration.clientID]
        self.keys = keys
        self.clock = clock
        let tolerance = min(max(configuration.clockTolerance, .zero), ClientConfiguration.maximumClockTolerance)
        toleranceSeconds = Double(tolerance.components.seconds) + Double(tolerance.components.attoseconds) / 1e18
    }

    /// Validates an ID token, fetching the key set when needed.
    /// - Parameters:
    ///   - idToken: the compact token.
    ///   - nonce: the nonce sent in the authorization request, or nil when none was (a refresh).
    ///   - accessToken: the access token issued with it, to check `at_hash` against.
    ///   - previous: the claims of the token it replaces, after a refresh.
    ///   - budget: the operation's budget, for key set fetches.
    /// - Returns: the claims.
    /// - Throws: `.configuration(.idTokenRejected)`; the key fetch's `.recoverable` errors.
    package func validate(
        _ idToken: String, nonce: String?, accessToken: String?, previous: IDTokenClaims? = nil,
        budget: OperationBudget
    ) async throws(VersolaError) -> IDTokenClaims {
        let jws = try layout(of: idToken)
        var keySet: JWKSet
        if let cached = keys.cachedKeySet {
            keySet = cached
        } else {
            keySet = try await keys.keySet(budget: budget)
        }
        var selection = selectKey(for: jws, in: keySet)
        if case .missing = selection {
            let keyID = jws.keyID
            let algorithm = jws.algorithm
            let refetched = try await keys.refetch(
                unlessSatisfied: { set in
                    switch set.select(keyID: keyID, algorithm: algorithm) {
                    case .unknownKeyID, .noKeyForAlgorithm: false
                    case .candidates, .keyIDForbidsAlgorithm: true
                    }
                }, budget: budget)
            guard let refetched else {
                // E6: the key may be on its way into the key set; that is for later, not a configuration error.
                throw .recoverable(.signingKeyUnavailable(retryAfter: await keys.timeUntilRefetch()))
            }
            keySet = refetched
            selection = selectKey(for: jws, in: keySet)
        }
        return try check(jws, rawToken: idToken, selection: selection, nonce: nonce, accessToken: accessToken, previous: previous)
    }

    /// Validates an ID token against a key set the caller holds, without fetching (no refetch on
    /// an unknown `kid`).
    /// - Throws: `.configuration(.idTokenRejected)`.
    public func validate(
        _ idToken: String, keySet: JWKSet, nonce: String?, accessToken: String?, previous: IDTokenClaims? = nil
    ) throws(VersolaError) -> IDTokenClaims {
        let jws = try layout(of: idToken)
        return try check(
            jws, rawToken: idToken, selection: selectKey(for: jws, in: keySet), nonce: nonce, accessToken: accessToken,
            previous: previous)
    }

    // MARK: Steps

    static func rejected(_ kind: IDTokenRejection.Kind, _ detail: String) -> VersolaError {
        .configuration(.idTokenRejected(IDTokenRejection(kind, detail)))
    }

    /// The token's structure and header, read in place; its payload and signature are decoded
    /// later, into scratch space, by ``check(_:rawToken:selection:nonce:accessToken:previous:)``.
    private func layout(of idToken: String) throws(VersolaError) -> JWS.Layout {
        var token = idToken
        let cached = lastHeader.value
        let read = token.withUTF8 { bytes in
            Result { () throws(JWSError) in
                let layout = try JWS.layout(of: bytes, reusing: cached)
                if !layout.reusedHeader { lastHeader.value = layout.checkedHeader(in: bytes) }
                return layout
            }
        }
        let jws: JWS.Layout
        do {
            jws = try read.get()
        } catch {
            throw Self.rejected(Self.kind(for: error), Self.reason(for: error))
        }
        guard allowedMask & jws.algorithm.maskBit != 0 else {
            let allowed = allowedAlgorithms.map(\.rawValue).sorted().joined(separator: ", ")
            throw Self.rejected(.algorithmNotAllowed, "algorithm \(jws.algorithm.rawValue) is not allowed (allowed: \(allowed))")
        }
        return jws
    }

    private enum KeySelection {
        /// Keys to try, in order.
        case candidates([JWK])
        /// No key with the `kid` (or, without `kid`, none for the algorithm): refetch.
        case missing(reason: String)
        /// Keys exist but none may be used.
        case unusable(reason: String)

        var reason: String {
            switch self {
            case .candidates: ""
            case .missing(let reason), .unusable(let reason): reason
            }
        }
    }

    /// The keys of the set for this token (``JWKSet/select(keyID:algorithm:)``), with OIDC Core
    /// §10.1's rule on top: a token without `kid` is only accepted when one key can verify it.
    private func selectKey(for jws: JWS.Layout, in keySet: JWKSet) -> KeySelection {
        let algorithm = jws.algorithm
        let choice = KeyChoice(keys: keySet.keys, keyID: jws.keyID, algorithm: algorithm)
        switch lastKeySelection.value(for: choice, { keySet.select(keyID: $0.keyID, algorithm: $0.algorithm) }) {
        case .candidates(let keys):
            guard jws.keyID == nil, keys.count > 1 else { return .candidates(keys) }
            return .unusable(
                reason: "the token has no kid and \(keys.count) keys of the provider's key set permit \(algorithm.rawValue)")
        case .unknownKeyID(let keyID):
            return .missing(reason: "no key with kid \(keyID) in the provider's key set")
        case .noKeyForAlgorithm:
            return .missing(reason: "the token has no kid and no key in the provider's key set permits \(algorithm.rawValue)")
        case .keyIDForbidsAlgorithm(let keyID, _):
            return .unusable(reason: "key \(keyID) does not permit \(algorithm.rawValue)")
        }
    }

    /// Decodes the payload and signature in place, then checks the signature and the claims.
    private func check(
        _ jws: JWS.Layout, rawToken: String, selection: KeySelection, nonce: String?, accessToken: String?,
        previous: IDTokenClaims?
    ) throws(VersolaError) -> IDTokenClaims {
        var token = rawToken
        let outcome = token.withUTF8 { bytes -> Result<IDTokenClaims, VersolaError> in
            var checked: Result<IDTokenClaims, VersolaError> = .failure(Self.rejected(.malformed, "the token could not be read"))
            do throws(JWSError) {
                try JWS.withParts(of: bytes, jws) { payload, signature, signingInput in
                    checked = Result { () throws(VersolaError) in
                        try verifySignature(jws.algorithm, signature, signingInput, selection: selection)
                        guard let values = IDTokenClaimValues(payload: payload) else {
                            throw Self.rejected(.malformed, "the payload is not a JSON object")
                        }
                        let claims = ClaimCheck(
                            issuer: configuration.issuer, clientID: configuration.clientID, clientAudience: clientAudience,
                            now: clock.wallClockNow.timeIntervalSince1970, tolerance: toleranceSeconds, values: values,
                            algorithm: jws.algorithm)
                        return try claims.run(nonce: nonce, accessToken: accessToken, previous: previous, rawToken: rawToken)
                    }
                }
            } catch {
                return .failure(Self.rejected(Self.kind(for: error), Self.reason(for: error)))
            }
            return checked
        }
        return try outcome.get()
    }

    /// The signature: it must verify with one of the keys selected.
    private func verifySignature(
        _ algorithm: SignatureAlgorithm, _ signature: UnsafeBufferPointer<UInt8>, _ signingInput: UnsafeBufferPointer<UInt8>,
        selection: KeySelection
    ) throws(VersolaError) {
        guard case .candidates(let candidates) = selection else { throw Self.rejected(.noUsableKey, selection.reason) }
        // The allow-list and the key's own limits, as JWS.verify(with:allowedAlgorithms:) checks them.
        let verified = allowedMask & algorithm.maskBit != 0 && candidates.contains { key in
            key.permits(algorithm)
                && key.verificationKey.verify(signature: signature, message: signingInput, algorithm: algorithm)
        }
        guard verified else {
            let names = candidates.map { $0.keyID ?? "without kid" }.joined(separator: ", ")
            throw Self.rejected(.signatureInvalid, "signature does not verify with key \(names)")
        }
    }

    /// `aud` as a list: a string, or a non-empty array of strings.
    static func audiences(_ value: JSONValue?) throws(VersolaError) -> [String] {
        guard let value else { throw rejected(.claimMissing, "aud is missing") }
        if let single = value.string { return [single] }
        guard let elements = value.array, !elements.isEmpty else { throw rejected(.claimMalformed, "aud is not a string or an array") }
        var audiences: [String] = []
        audiences.reserveCapacity(elements.count)
        for element in elements {
            guard let audience = element.string else { throw rejected(.claimMalformed, "aud has an element that is not a string") }
            audiences.append(audience)
        }
        return audiences
    }

    /// A NumericDate claim in seconds: nil when absent, rejected when not a number or one
    /// outside ``NumericDate``'s range.
    static func seconds(_ name: String, _ value: JSONValue?) throws(VersolaError) -> Double? {
        guard let value else { return nil }
        guard let seconds = NumericDate.seconds(value) else {
            throw rejected(.claimMalformed, "\(name) is not a time between the years 1 and 9999")
        }
        return seconds
    }

    /// The `at_hash` of an access token: the left half of its hash with the SHA-2 of the
    /// token's algorithm (SHA-512 for EdDSA with Ed25519), base64url without padding.
    public static func accessTokenHash(_ accessToken: String, algorithm: SignatureAlgorithm) -> String {
        withAccessTokenHash(accessToken, algorithm: algorithm) { String(decoding: $0, as: UTF8.self) }
    }

    /// Runs `body` with the `at_hash` of an access token as ASCII bytes in scratch space (the
    /// check compares them with the claim where it lies, making no string).
    static func withAccessTokenHash<R>(
        _ accessToken: String, algorithm: SignatureAlgorithm, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
        // Hashed where the string keeps its UTF-8, into scratch space: no copy, no array.
        var token = accessToken
        var result: R?
        token.withUTF8 { bytes in
            algorithm.withTokenHashDigest(of: bytes) { digest in
                let half = UnsafeBufferPointer(rebasing: digest[..<(digest.count / 2)])
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Base64URL.encodedLength(half.count)) { text in
                    let written = Base64URL.encode(half, into: text)
                    result = body(UnsafeBufferPointer(rebasing: text[..<written]))
                }
            }
        }
        guard let result else { preconditionFailure("the at_hash body did not run") }
        return result
    }

    // MARK: Reasons

    private static func kind(for error: JWSError) -> IDTokenRejection.Kind {
        switch error {
        case .algorithmNone, .unsupportedAlgorithm, .algorithmNotAllowed: .algorithmNotAllowed
        case .keyNotFound, .keyDoesNotPermitAlgorithm: .noUsableKey
        case .invalidSignature: .signatureInvalid
        case .wrongNumberOfParts, .invalidBase64URL, .invalidJSON, .headerNotAnObject, .missingAlgorithm,
            .invalidHeaderParameter, .invalidCriticalParameters, .unsupportedCriticalParameters, .signerAlgorithmMismatch,
            .signingFailed:
            .malformed
        }
    }

    private static func reason(for error: JWSError) -> String {
        switch error {
        case .algorithmNone: "algorithm none is never accepted"
        case .unsupportedAlgorithm(let name): "algorithm \(name) is never accepted (no HMAC, no unknown algorithms)"
        case .algorithmNotAllowed(let algorithm): "algorithm \(algorithm.rawValue) is not allowed"
        case .wrongNumberOfParts(let count): "not a compact JWS (\(count) parts)"
        case .invalidBase64URL(let part, _): "the \(part.rawValue) is not base64url"
        case .invalidJSON(let part, _): "the \(part.rawValue) is not JSON"
        case .headerNotAnObject: "the header is not a JSON object"
        case .missingAlgorithm: "the header has no alg"
        case .invalidHeaderParameter(let name): "the header's \(name) has the wrong type"
        case .invalidCriticalParameters: "the header's crit is malformed"
        case .unsupportedCriticalParameters(let names): "the header marks \(names.joined(separator: ", ")) critical"
        case .keyNotFound(let keyID): "no key \(keyID ?? "") in the provider's key set"
        case .keyDoesNotPermitAlgorithm(let algorithm): "the key does not permit \(algorithm.rawValue)"
        case .invalidSignature: "signature does not verify"
        case .signerAlgorithmMismatch, .signingFailed: "the token could not be read"
        }
    }

    static func wholeSeconds(_ interval: TimeInterval) -> Int64 {
        guard interval.isFinite else { return 0 }
        return Int64(max(min(interval.rounded(), 1e15), -1e15))
    }
}

/// One checked JWS header, shared by the copies of an ``IDTokenValidator``.
final class CheckedHeaderCache: Sendable {
    private let entry = Mutex<JWS.CheckedHeader?>(nil)

    var value: JWS.CheckedHeader? {
        get { entry.withLock { $0 } }
        set { entry.withLock { $0 = newValue } }
    }
}

/// What ``JWKSet/select(keyID:algorithm:)`` is asked: a key set's keys, compared by identity
/// (a set is never changed, only replaced by one with keys of its own; holding them keeps their
/// storage from being reused by another set), a `kid` and an algorithm.
struct KeyChoice: Equatable, Sendable {
    let keys: [JWK]
    let keyID: String?
    let algorithm: SignatureAlgorithm

    static func == (lhs: KeyChoice, rhs: KeyChoice) -> Bool {
        guard lhs.algorithm == rhs.algorithm, lhs.keyID == rhs.keyID, lhs.keys.count == rhs.keys.count else { return false }
        return lhs.keys.withUnsafeBufferPointer { left in
            rhs.keys.withUnsafeBufferPointer { right in left.baseAddress == right.baseAddress }
        }
    }
}
