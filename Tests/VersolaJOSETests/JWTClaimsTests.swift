import Foundation
import Testing
@testable import VersolaJOSE

/// Claim checks of SPEC A7 (`iss` exact, `aud` contains the client, `exp`/`nbf`/`iat` with a
/// bounded clock tolerance), all at an injected time.
@Suite struct JWTClaimsTests {
    private let issuer = "https://id.example.com"
    private let client = "client-1"
    private let issuedAt: Int64 = 1_700_000_000
    private var expiresAt: Int64 { issuedAt + 600 }

    private func claims(_ extra: [(String, JSONValue)] = [], removing: Set<String> = []) -> JWTClaims {
        var object: JSONObject = [
            "iss": .string(issuer), "sub": "user", "aud": .string(client), "iat": .integer(issuedAt),
            "exp": .integer(expiresAt), "nonce": "n-1",
        ]
        for (name, value) in extra { object[name] = value }
        for name in removing { object[name] = nil }
        return JWTClaims(object)
    }

    private func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    private var requirements: JWTClaimRequirements { JWTClaimRequirements(issuer: issuer, audience: client) }

    @Test("A7: a time claim outside the years 1 to 9999 is an invalid claim, never a trap", arguments: [
        "exp", "iat", "nbf",
    ])
    func outOfRangeTimesAreInvalid(_ name: String) throws {
        for value: JSONValue in [.double(1e300), .double(-1e300), .double(1.8e19), .double(-9.3e18), .double(2.6e11), "10"] {
            let bent = claims([(name, value)])
            #expect(throws: JWTClaimError.invalidClaim(name), "\(value)") { try bent.validate(requirements, now: date(issuedAt)) }
            #expect(throws: JWTClaimError.invalidClaim(name)) { try bent.date(name) }
        }
        #expect(NumericDate.seconds(.double(NumericDate.maximumMagnitude)) == NumericDate.maximumMagnitude)
        #expect(NumericDate.seconds(.double(-1)) == -1)
        #expect(NumericDate.wholeSeconds(.double(1.9)) == 1)
        #expect(NumericDate.wholeSeconds(.double(1e300)) == nil)
        #expect(claims([("exp", .double(1e300))]).expiration == nil)
    }

    @Test func acceptsAValidIDTokenAndReadsItsClaims() throws {
        let payload = JSONValue.object(claims([("azp", .string(client))]).object).serializedBytes()
        let parsed = try JWTClaims(payload: payload)
        try parsed.validate(requirements, now: date(issuedAt + 10))
        #expect(parsed.issuer == issuer)
        #expect(parsed.subject == "user")
        #expect(parsed.audiences == [client])
        #expect(parsed.nonce == "n-1")
        #expect(parsed.authorizedParty == client)
        #expect(parsed.expiration == date(expiresAt))
        #expect(parsed.issuedAt == date(issuedAt))
        #expect(parsed.notBefore == nil)
    }

    @Test func rejectsAPayloadThatIsNotAnObject() {
        #expect(throws: JWTClaimError.payloadNotAnObject) { try JWTClaims(payload: Array("[1]".utf8)) }
        #expect(throws: JWTClaimError.payloadNotAnObject) { try JWTClaims(payload: Array("{".utf8)) }
    }

    // A7: iss exact
    @Test func issuerMustMatchExactly() {
        #expect(throws: JWTClaimError.issuerMismatch(expected: issuer, actual: issuer + "/")) {
            try claims([("iss", .string(issuer + "/"))]).validate(requirements, now: date(issuedAt))
        }
        #expect(throws: JWTClaimError.missingClaim("iss")) {
            try claims(removing: ["iss"]).validate(requirements, now: date(issuedAt))
        }
        #expect(throws: JWTClaimError.invalidClaim("iss")) {
            try claims([("iss", 1)]).validate(requirements, now: date(issuedAt))
        }
    }

    // A7: aud contains the client id, as a string or in an array
    @Test func audienceMayBeAStringOrAnArray() throws {
        try claims([("aud", ["other", .string(client)])]).validate(requirements, now: date(issuedAt))
        #expect(throws: JWTClaimError.audienceMismatch(expected: client, actual: ["other"])) {
            try claims([("aud", "other")]).validate(requirements, now: date(issuedAt))
        }
        #expect(throws: JWTClaimError.audienceMismatch(expected: client, actual: [])) {
            try claims([("aud", [])]).validate(requirements, now: date(issuedAt))
        }
        #expect(throws: JWTClaimError.invalidClaim("aud")) {
            try claims([("aud", [.string(client), 3])]).validate(requirements, now: date(issuedAt))
        }
        #expect(throws: JWTClaimError.missingClaim("aud")) {
            try claims(removing: ["aud"]).validate(requirements, now: date(issuedAt))
        }
    }

    // A7: exp with tolerance (default 60 s)
    @Test func expirationJustInsideAndJustOutsideTolerance() throws {
        try claims().validate(requirements, now: date(expiresAt + 59))
        #expect(throws: JWTClaimError.expired(expiration: date(expiresAt), now: date(expiresAt + 60))) {
            try claims().validate(requirements, now: date(expiresAt + 60))
        }
        var strict = requirements
        strict.clockTolerance = .zero
        try claims().validate(strict, now: date(expiresAt - 1))
        #expect(throws: JWTClaimError.expired(expiration: date(expiresAt), now: date(expiresAt))) {
            try claims().validate(strict, now: date(expiresAt))
        }
    }

    // A7: nbf with tolerance
    @Test func notBeforeJustInsideAndJustOutsideTolerance() throws {
        let notBefore = issuedAt + 100
        let token = claims([("nbf", .integer(notBefore))])
        try token.validate(requirements, now: date(notBefore - 60))
        #expect(throws: JWTClaimError.notYetValid(notBefore: date(notBefore), now: date(notBefore - 61))) {
            try token.validate(requirements, now: date(notBefore - 61))
        }
    }

    // A7: iat with tolerance
    @Test func issuedAtJustInsideAndJustOutsideTolerance() throws {
        try claims().validate(requirements, now: date(issuedAt - 60))
        #expect(throws: JWTClaimError.issuedInFuture(issuedAt: date(issuedAt), now: date(issuedAt - 61))) {
            try claims().validate(requirements, now: date(issuedAt - 61))
        }
    }

    @Test func fractionalNumericDatesAreAccepted() throws {
        let token = claims([("exp", .double(Double(expiresAt) + 0.5))])
        try token.validate(requirements, now: date(expiresAt + 60))
        #expect(throws: JWTClaimError.self) { try token.validate(requirements, now: date(expiresAt + 61)) }
    }

    @Test func requiredTimeClaimsMustBePresentAndNumeric() throws {
        #expect(throws: JWTClaimError.missingClaim("exp")) {
            try claims(removing: ["exp"]).validate(requirements, now: date(issuedAt))
        }
        #expect(throws: JWTClaimError.missingClaim("iat")) {
            try claims(removing: ["iat"]).validate(requirements, now: date(issuedAt))
        }
        #expect(throws: JWTClaimError.invalidClaim("exp")) {
            try claims([("exp", "tomorrow")]).validate(requirements, now: date(issuedAt))
        }
        #expect(throws: JWTClaimError.invalidClaim("nbf")) {
            try claims([("nbf", true)]).validate(requirements, now: date(issuedAt))
        }
        var lenient = requirements
        lenient.requiresExpiration = false
        lenient.requiresIssuedAt = false
        try claims(removing: ["exp", "iat"]).validate(lenient, now: date(issuedAt))
    }

    /// The tolerance is bounded: at most 5 minutes, never negative.
    @Test func clockToleranceIsClampedToFiveMinutes() throws {
        var generous = requirements
        generous.clockTolerance = .seconds(3600)
        #expect(generous.clockTolerance == .seconds(300))
        try claims().validate(generous, now: date(expiresAt + 299))
        #expect(throws: JWTClaimError.self) { try claims().validate(generous, now: date(expiresAt + 300)) }
        #expect(JWTClaimRequirements(issuer: issuer, audience: client, clockTolerance: .seconds(-5)).clockTolerance == .zero)
        #expect(JWTClaimRequirements(issuer: issuer, audience: client).clockTolerance == .seconds(60))
    }
}
