import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// `versola verify`: checks a JWT as a resource server would. The issuer's discovery document
/// names its JWKS; the key is chosen by `kid` and must permit the header's algorithm, which
/// must also be on the allow-list (asymmetric only: never `none`, never HMAC); then `iss`
/// exactly, `exp` (required), `nbf` and `iat` with 60 s of tolerance, `aud` when asked (a
/// warning on standard error otherwise) and, with `--type at+jwt`, RFC 9068's `typ`.
enum TokenVerifier {
    /// Clock tolerance for `exp`, `nbf` and `iat`.
    static let tolerance: Double = 60

    static func verify(_ options: VerifyOptions, context: CommandContext) async throws(CommandFailure) -> JSONValue {
        let token = options.token == "-" ? (context.console.readLine() ?? "").trimmingBlanks : options.token
        do throws(VersolaError) {
            let saved = try? context.profileFiles().load(context.profile)
            guard let issuer = options.issuer ?? saved?.issuer else {
                throw .configuration(.invalidConfiguration("no issuer: give --issuer URL (or log in to a profile first)"))
            }
            var configuration = ClientConfiguration(issuer: issuer, clientID: "versola-verify")
            configuration.transport.caFile = options.caFile ?? saved?.caFile
            try configuration.validate()
            let environment = EngineEnvironment.system()
            let sender = EndpointSender(environment: environment, options: configuration.transport)
            let budget = try configuration.newBudget(clock: environment.clock)
            let metadata = try await DiscoveryClient(configuration: configuration, sender: sender).metadata(budget: budget)
            guard let jwksURI = metadata.jwksURI else {
                throw .configuration(
                    .providerUnsupported("the issuer publishes no jwks_uri, so no token it signs can be verified"))
            }
            let keys = JWKSCache(jwksURI: jwksURI, sender: sender)
            let jws: JWS
            do { jws = try JWS(compact: token) } catch { throw rejected(.malformed, "not a compact JWS: \(error)") }
            let allowed = configuration.idTokenAlgorithms
            var keySet = try await keys.keySet(budget: budget)
            let key: JWK
            do {
                key = try jws.verify(using: keySet, allowedAlgorithms: allowed)
            } catch .keyNotFound(let keyID) {
                // A key rotated in since the set was published: fetch it once more.
                if let newer = try await keys.refetch(
                    unlessSatisfied: { set in keyID.map { set.containsKey(withID: $0) } ?? false }, budget: budget)
                {
                    keySet = newer
                }
                do { key = try jws.verify(using: keySet, allowedAlgorithms: allowed) } catch {
                    throw rejected(.signatureInvalid, "signature: \(error)")
                }
            } catch {
                throw rejected(.signatureInvalid, "signature: \(error)")
            }
            let claims: JWTClaims
            do { claims = try JWTClaims(payload: jws.payload) } catch { throw rejected(.malformed, "the payload is not a JSON object") }
            try check(jws, type: options.type)
            try check(claims, issuer: issuer, audience: options.audience, now: Date().timeIntervalSince1970)
            if options.audience == nil { context.console.err(audienceWarning(issuer: issuer)) }
            let expiry = claims["exp"].flatMap(NumericDate.wholeSeconds)
            return [
                "valid": true, "issuer": .string(issuer), "subject": claims.subject.map { .string($0) } ?? .null,
                "audience": .array((claims.audiences ?? []).map { .string($0) }),
                "expiresAt": expiry.map { .string(AccessTokenExpiry.rfc3339($0)) } ?? .null,
                "keyID": key.keyID.map { .string($0) } ?? .null, "algorithm": .string(jws.algorithm.rawValue),
                "claims": .object(claims.object),
            ]
        } catch {
            throw .versola(error)
        }
    }

    /// The claim checks, at `now` (seconds since 1970). A time claim that is not a number
    /// between the years 1 and 9999 (``NumericDate``) is rejected, never converted.
    static func check(_ claims: JWTClaims, issuer: String, audience: String?, now: Double) throws(VersolaError) {
        guard let tokenIssuer = claims.issuer else { throw rejected(.claimMissing, "iss is missing") }
        guard tokenIssuer == issuer else { throw rejected(.issuerMismatch, "iss \(tokenIssuer) is not \(issuer)") }
        guard let expiry = try time("exp", in: claims) else { throw rejected(.claimMissing, "exp is missing") }
        if now >= expiry + tolerance { throw rejected(.expired, "expired") }
        if let notBefore = try time("nbf", in: claims), now < notBefore - tolerance {
            throw rejected(.notYetValid, "not valid yet (nbf)")
        }
        if let issuedAt = try time("iat", in: claims), issuedAt > now + tolerance {
            throw rejected(.notYetValid, "issued in the future (iat)")
        }
        if let audience, !(claims.audiences ?? []).contains(audience) {
            throw rejected(.audienceMismatch, "aud does not contain \(audience)")
        }
    }

    /// The header check of `--type`.
    static func check(_ jws: JWS, type: VerifiedTokenType?) throws(VersolaError) {
        guard let type, !type.accepts(jws.type) else { return }
        throw rejected(.malformed, "typ is \(jws.type ?? "missing"), not \(type.rawValue) (RFC 9068)")
    }

    /// What `verify` prints on standard error when no `--audience` is given.
    static func audienceWarning(issuer: String) -> String {
        "versola: warning: no --audience given, so a token \(TerminalText.visible(issuer)) issued to any client passes;"
            + " give --audience with the client id this token must be for\n"
    }

    /// The seconds of time claim `name`, nil when absent.
    private static func time(_ name: String, in claims: JWTClaims) throws(VersolaError) -> Double? {
        do {
            return try claims.date(name)?.timeIntervalSince1970
        } catch {
            throw rejected(.claimMalformed, "\(name) is not a time between the years 1 and 9999")
        }
    }

    static func rejected(_ kind: IDTokenRejection.Kind, _ detail: String) -> VersolaError {
        .configuration(.idTokenRejected(IDTokenRejection(kind, detail)))
    }
}
