import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaCrypto
import VersolaJOSE

@Suite("IDTokenValidatorTests")
struct IDTokenValidatorTests {
    /// A harness serving the provider's key set, and a validator over it.
    private struct Fixture {
        let harness: EngineHarness
        let validator: IDTokenValidator

        init(jwks: [String] = ["rsa-1", "ec-1"], metadataChanges: [String: JSONValue?] = [:],
            configure: (inout ClientConfiguration) -> Void = { _ in }) throws {
            var harness = EngineHarness()
            configure(&harness.configuration)
            harness.transport.script(ProviderFixture.jwksPath, .json(try ProviderFixture.jwks(jwks)))
            self.harness = harness
            validator = IDTokenValidator(
                configuration: harness.configuration, metadata: try ProviderFixture.metadata(metadataChanges),
                keys: harness.keyCache(), clock: harness.clock)
        }

        var now: Date { harness.clock.wallClockNow }
        var jwksRequests: Int { harness.transport.requests(to: ProviderFixture.jwksPath).count }

        func claims(_ changes: [String: JSONValue?] = [:]) -> JSONObject {
            ProviderFixture.claims(now: now, changes)
        }

        func validate(
            _ token: String, nonce: String? = "n-1", accessToken: String? = nil, previous: IDTokenClaims? = nil
        ) async throws -> Result<IDTokenClaims, VersolaError> {
            let budget = try harness.budget()
            do throws(VersolaError) {
                return .success(
                    try await validator.validate(
                        token, nonce: nonce, accessToken: accessToken, previous: previous, budget: budget))
            } catch {
                return .failure(error)
            }
        }

        /// Expects `.configuration(.idTokenRejected)` of `kind` whose detail contains `text`.
        func expectRejected(
            _ result: Result<IDTokenClaims, VersolaError>, _ text: String, _ kind: IDTokenRejection.Kind,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            guard case .failure(.configuration(.idTokenRejected(let rejection))) = result else {
                Issue.record("expected idTokenRejected, got \(result)", sourceLocation: sourceLocation)
                return
            }
            #expect(rejection.kind == kind, "rejection: \(rejection.kind)", sourceLocation: sourceLocation)
            #expect(rejection.detail.contains(text), "detail: \(rejection.detail)", sourceLocation: sourceLocation)
        }
    }

    @Test("A7: a valid RS256 ID token gives its claims")
    func validRS256() async throws {
        let fixture = try Fixture()
        let issued = fixture.now.timeIntervalSince1970.rounded(.down)
        let token = try ProviderFixture.idToken(fixture.claims())
        let claims = try await fixture.validate(token).get()
        #expect(claims.subject == "user-42")
        #expect(claims.issuer == ProviderFixture.issuer)
        #expect(claims.audiences == [ProviderFixture.clientID])
        #expect(claims.name == "Jane Doe")
        #expect(claims.email == "jane@example.com")
        #expect(claims.preferredUsername == "jane")
        #expect(claims.authenticationContextClass == "1")
        #expect(claims.authenticationTime == Date(timeIntervalSince1970: issued - 5))
        #expect(claims.expiration == Date(timeIntervalSince1970: issued + 300))
        #expect(claims.issuedAt == Date(timeIntervalSince1970: issued))
        #expect(!claims.description.contains(token))
        #expect(fixture.jwksRequests == 1)
    }

    @Test("A7: a valid ES256 ID token is accepted and the key set is fetched once")
    func validES256AndCached() async throws {
        let fixture = try Fixture()
        _ = try await fixture.validate(try ProviderFixture.idToken(fixture.claims(), key: "ec-1")).get()
        _ = try await fixture.validate(try ProviderFixture.idToken(fixture.claims(), key: "rsa-1")).get()
        #expect(fixture.jwksRequests == 1)
    }

    @Test("A7: alg none is rejected before any key is fetched")
    func algorithmNone() async throws {
        let fixture = try Fixture()
        let token = ProviderFixture.unsignedToken(header: ["alg": "none", "kid": "rsa-1"], claims: fixture.claims())
        fixture.expectRejected(try await fixture.validate(token), "none", .algorithmNotAllowed)
        let unsigned = ProviderFixture.unsignedToken(header: ["alg": "none"], claims: fixture.claims())
        fixture.expectRejected(try await fixture.validate(String(unsigned.dropLast(4))), "none", .algorithmNotAllowed)
        #expect(fixture.jwksRequests == 0)
    }

    @Test("A7: HS256 signed with the public key's bytes is rejected (no HMAC)")
    func hmacConfusion() async throws {
        let fixture = try Fixture()
        let keys = try ProviderFixture.keys()
        let header = Base64URL.encode(JSONValue.object(["alg": "HS256", "kid": "rsa-1"]).serializedBytes())
        let payload = Base64URL.encode(JSONValue.object(fixture.claims()).serializedBytes())
        let forged = header + "." + payload + "." + Base64URL.encode(SHA256.hash(keys.rsa1.modulus))
        fixture.expectRejected(try await fixture.validate(forged), "HS256", .algorithmNotAllowed)
    }

    @Test("A7: a header checked once is reused only for a token whose header is the same text")
    func headerReusedOnlyWhenIdentical() async throws {
        let fixture = try Fixture()
        let valid = try ProviderFixture.idToken(fixture.claims())
        _ = try await fixture.validate(valid).get()
        let header = String(valid.prefix { $0 != "." })
        // The same header with HS256 for RS256: as long, differing in a few bytes.
        let json = String(decoding: try Base64URL.decode(header), as: UTF8.self)
        let forged = Base64URL.encode(Array(json.replacingOccurrences(of: "RS256", with: "HS256").utf8))
        #expect(forged.utf8.count == header.utf8.count && forged != header)
        fixture.expectRejected(try await fixture.validate(forged + valid.drop { $0 != "." }), "HS256", .algorithmNotAllowed)
        _ = try await fixture.validate(valid).get()
        _ = try await fixture.validate(try ProviderFixture.idToken(fixture.claims(), key: "ec-1")).get()
    }

    @Test("A7: an algorithm allowed by the configuration but not advertised is rejected")
    func notAdvertised() async throws {
        let fixture = try Fixture()
        let token = try ProviderFixture.idToken(fixture.claims(), algorithm: .ps256)
        fixture.expectRejected(try await fixture.validate(token), "PS256 is not allowed", .algorithmNotAllowed)
        let narrowed = try Fixture { $0.idTokenAlgorithms = [.es256] }
        narrowed.expectRejected(try await narrowed.validate(try ProviderFixture.idToken(narrowed.claims())), "RS256", .algorithmNotAllowed)
    }

    @Test("A7: an unknown kid refetches the key set exactly once, then is rejected")
    func unknownKidRefetchedOnce() async throws {
        let fixture = try Fixture()
        let token = try ProviderFixture.idToken(fixture.claims(), key: "rsa-2")
        fixture.expectRejected(try await fixture.validate(token), "no key with kid rsa-2", .noUsableKey)
        #expect(fixture.jwksRequests == 2, "the first fetch and one refetch")
    }

    @Test("A7: a key rotated in since the last fetch is found by the refetch")
    func rotatedKeyFound() async throws {
        let fixture = try Fixture()
        fixture.harness.transport.script(ProviderFixture.jwksPath, .json(try ProviderFixture.jwks(["rsa-1", "rsa-2"])))
        _ = try await fixture.validate(try ProviderFixture.idToken(fixture.claims())).get()
        let claims = try await fixture.validate(try ProviderFixture.idToken(fixture.claims(), key: "rsa-2")).get()
        #expect(claims.subject == "user-42")
        #expect(fixture.jwksRequests == 2)
    }

    @Test("A7 E6: refetches for unknown kids are rate-limited to one per 60 s; one refused by the limit is recoverable")
    func refetchRateLimit() async throws {
        let fixture = try Fixture()
        let token = try ProviderFixture.idToken(fixture.claims(), key: "rsa-2")
        fixture.expectRejected(try await fixture.validate(token), "rsa-2", .noUsableKey)
        #expect(fixture.jwksRequests == 2)
        fixture.harness.clock.advance(by: .seconds(30))
        // E6: the key may still reach the key set; that is "try again later", never configuration.
        let limited = try await fixture.validate(token)
        guard case .failure(.recoverable(.signingKeyUnavailable(let wait))) = limited else {
            Issue.record("expected signingKeyUnavailable, got \(limited)")
            return
        }
        #expect(wait == .seconds(30))
        #expect(fixture.jwksRequests == 2, "no refetch within 60 s")
        fixture.harness.clock.advance(by: .seconds(31))
        fixture.expectRejected(try await fixture.validate(token, nonce: nil), "rsa-2", .noUsableKey)
        #expect(fixture.jwksRequests == 3, "one refetch once 60 s have passed")
    }

    @Test("R5 A7: a failed refetch does not start the rate-limit window")
    func failedRefetchNotCounted() async throws {
        let fixture = try Fixture()
        fixture.harness.transport.script(ProviderFixture.jwksPath, .status(500))
        let token = try ProviderFixture.idToken(fixture.claims(), key: "rsa-2")
        let first = try await fixture.validate(token)
        guard case .failure(.recoverable(.server(let failure))) = first else {
            Issue.record("expected a server failure, got \(first)")
            return
        }
        #expect(failure.status == 500)
        #expect(fixture.jwksRequests == 1 + 3, "one fetch, then the refetch with its R5 repeats")
        fixture.harness.transport.replaceScript(ProviderFixture.jwksPath, .json(try ProviderFixture.jwks(["rsa-1", "rsa-2"])))
        _ = try await fixture.validate(token).get()
    }

    @Test("A7: a signature by another key is rejected naming the key")
    func wrongSignature() async throws {
        let fixture = try Fixture()
        let token = try ProviderFixture.idToken(fixture.claims(), key: "rsa-2", kid: "rsa-1")
        fixture.expectRejected(try await fixture.validate(token), "signature does not verify with key rsa-1", .signatureInvalid)
    }

    @Test("A7: a tampered payload is rejected")
    func tamperedPayload() async throws {
        let fixture = try Fixture()
        let token = try ProviderFixture.idToken(fixture.claims())
        let parts = token.split(separator: ".").map(String.init)
        let forged = Base64URL.encode(JSONValue.object(fixture.claims(["sub": "admin"])).serializedBytes())
        fixture.expectRejected(try await fixture.validate(parts[0] + "." + forged + "." + parts[2]), "signature does not verify", .signatureInvalid)
    }

    @Test("A7: without kid, the one compatible key is used; several are ambiguous")
    func noKid() async throws {
        let fixture = try Fixture()
        _ = try await fixture.validate(try ProviderFixture.idToken(fixture.claims(), kid: .some(nil))).get()
        let ambiguous = try Fixture(jwks: ["rsa-1", "rsa-2", "ec-1"])
        ambiguous.expectRejected(
            try await ambiguous.validate(try ProviderFixture.idToken(ambiguous.claims(), kid: .some(nil))), "2 keys", .noUsableKey)
    }

    @Test("A7: a key whose type does not fit the algorithm is rejected")
    func keyTypeMismatch() async throws {
        let fixture = try Fixture()
        let token = try ProviderFixture.idToken(fixture.claims(), key: "rsa-1", kid: "ec-1")
        fixture.expectRejected(try await fixture.validate(token), "key ec-1 does not permit RS256", .noUsableKey)
    }

    @Test("A7: iss must be exactly the issuer")
    func wrongIssuer() async throws {
        let fixture = try Fixture()
        for issuer in [ProviderFixture.issuer + "/", "https://evil.example/realms/main"] {
            let token = try ProviderFixture.idToken(fixture.claims(["iss": .string(issuer)]))
            fixture.expectRejected(try await fixture.validate(token), "iss \(issuer) is not", .issuerMismatch)
        }
        fixture.expectRejected(try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["iss": nil]))), "iss is missing", .claimMissing)
    }

    @Test("A7: aud must contain the client ID")
    func wrongAudience() async throws {
        let fixture = try Fixture()
        let token = try ProviderFixture.idToken(fixture.claims(["aud": ["other-client"], "azp": "other-client"]))
        fixture.expectRejected(try await fixture.validate(token), "aud does not contain versola-test", .audienceMismatch)
    }

    @Test("A7: with several audiences azp is required and must be the client ID")
    func authorizedParty() async throws {
        let fixture = try Fixture()
        let audiences: JSONValue = [.string(ProviderFixture.clientID), "api"]
        fixture.expectRejected(
            try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["aud": audiences]))), "azp is missing", .claimMissing)
        fixture.expectRejected(
            try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["aud": audiences, "azp": "api"]))),
            "azp api is not versola-test", .audienceMismatch)
        fixture.expectRejected(
            try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["azp": "api"]))), "azp api", .audienceMismatch)
        let claims = try await fixture.validate(
            try ProviderFixture.idToken(fixture.claims(["aud": audiences, "azp": .string(ProviderFixture.clientID)]))
        ).get()
        #expect(claims.audiences == [ProviderFixture.clientID, "api"])
    }

    @Test("A7: the nonce must equal the request's")
    func nonce() async throws {
        let fixture = try Fixture()
        fixture.expectRejected(
            try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["nonce": "n-2"]))),
            "nonce differs from the request's", .nonceMismatch)
        fixture.expectRejected(
            try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["nonce": nil]))), "nonce is missing", .claimMissing)
    }

    @Test("A7: at_hash, when present, must match the access token")
    func accessTokenHash() async throws {
        let fixture = try Fixture()
        let accessToken = "access-token-value"
        let rsHash = IDTokenValidator.accessTokenHash(accessToken, algorithm: .rs256)
        #expect(rsHash == Base64URL.encode(SHA256.hash(Array(accessToken.utf8)).prefix(16)))
        _ = try await fixture.validate(
            try ProviderFixture.idToken(fixture.claims(["at_hash": .string(rsHash)])), accessToken: accessToken
        ).get()
        fixture.expectRejected(
            try await fixture.validate(
                try ProviderFixture.idToken(fixture.claims(["at_hash": .string(rsHash)])), accessToken: "another-token"),
            "at_hash does not match", .accessTokenHashMismatch)
        let esHash = IDTokenValidator.accessTokenHash(accessToken, algorithm: .es256)
        _ = try await fixture.validate(
            try ProviderFixture.idToken(fixture.claims(["at_hash": .string(esHash)]), key: "ec-1"), accessToken: accessToken
        ).get()
        #expect(IDTokenValidator.accessTokenHash(accessToken, algorithm: .rs384).count == Base64URL.encodedLength(24))
        #expect(IDTokenValidator.accessTokenHash(accessToken, algorithm: .edDSA).count == Base64URL.encodedLength(32))
    }

    @Test("A7: exp, iat, nbf or auth_time outside the years 1 to 9999 reject the token, never trap")
    func outOfRangeTimes() async throws {
        let fixture = try Fixture()
        let now = Int64(fixture.now.timeIntervalSince1970)
        for (name, value) in [("exp", 1e300), ("exp", -1e300), ("exp", 1.8e19), ("iat", 1e300), ("nbf", -1e300)] {
            let token = try ProviderFixture.idToken(fixture.claims([name: .double(value)]))
            fixture.expectRejected(try await fixture.validate(token), "\(name) is not a time between the years 1 and 9999", .claimMalformed)
        }
        // auth_time is informative: an absurd one is dropped, the token stays valid.
        let token = try ProviderFixture.idToken(fixture.claims(["auth_time": .double(1e300), "iat": .integer(now)]))
        #expect(try await fixture.validate(token).get().authenticationTime == nil)
    }

    @Test("A7: expired just outside the tolerance is rejected; just inside is valid")
    func expiry() async throws {
        let fixture = try Fixture()  // tolerance 60 s
        let now = Int64(fixture.now.timeIntervalSince1970)
        let insideToken = try ProviderFixture.idToken(fixture.claims(["exp": .integer(now - 59), "iat": .integer(now - 400)]))
        _ = try await fixture.validate(insideToken).get()
        let outsideToken = try ProviderFixture.idToken(fixture.claims(["exp": .integer(now - 60), "iat": .integer(now - 400)]))
        fixture.expectRejected(try await fixture.validate(outsideToken), "expired 60 s ago", .expired)
        let longAgo = try ProviderFixture.idToken(fixture.claims(["exp": .integer(now - 3600), "iat": .integer(now - 4000)]))
        fixture.expectRejected(try await fixture.validate(longAgo), "expired 3600 s ago", .expired)
        fixture.expectRejected(try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["exp": nil]))), "exp is missing", .claimMissing)
    }

    @Test("A7: the tolerance follows the configuration")
    func configuredTolerance() async throws {
        let fixture = try Fixture { $0.clockTolerance = .zero }
        let now = Int64(fixture.now.timeIntervalSince1970)
        fixture.expectRejected(
            try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["exp": .integer(now)]))), "expired 0 s ago", .expired)
        fixture.expectRejected(
            try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["iat": .integer(now + 1)]))), "future", .notYetValid)
    }

    @Test("A7: iat in the future beyond the tolerance is rejected; within it is valid")
    func issuedInFuture() async throws {
        let fixture = try Fixture()
        let now = Int64(fixture.now.timeIntervalSince1970)
        _ = try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["iat": .integer(now + 60)]))).get()
        fixture.expectRejected(
            try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["iat": .integer(now + 61)]))),
            "issued 61 s in the future", .notYetValid)
        fixture.expectRejected(
            try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["nbf": .integer(now + 120)]))), "nbf", .notYetValid)
        fixture.expectRejected(try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["iat": nil]))), "iat is missing", .claimMissing)
    }

    @Test("A7: time is read on the injected clock")
    func injectedClock() async throws {
        let fixture = try Fixture()
        let token = try ProviderFixture.idToken(fixture.claims())
        _ = try await fixture.validate(token).get()
        fixture.harness.clock.advance(by: .seconds(300 + 60))
        fixture.expectRejected(try await fixture.validate(token), "expired 60 s ago", .expired)
    }

    @Test("A7: sub is required")
    func missingSubject() async throws {
        let fixture = try Fixture()
        fixture.expectRejected(try await fixture.validate(try ProviderFixture.idToken(fixture.claims(["sub": nil]))), "sub is missing", .claimMissing)
    }

    @Test("A7: after a refresh the new ID token keeps iss, sub and aud, and needs no nonce")
    func refreshKeepsIdentity() async throws {
        let fixture = try Fixture()
        let previous = try await fixture.validate(try ProviderFixture.idToken(fixture.claims())).get()
        fixture.harness.clock.advance(by: .seconds(600))
        let renewed = try await fixture.validate(
            try ProviderFixture.idToken(fixture.claims(["nonce": nil])), nonce: nil, previous: previous
        ).get()
        #expect(renewed.subject == previous.subject)
        fixture.expectRejected(
            try await fixture.validate(
                try ProviderFixture.idToken(fixture.claims(["nonce": nil, "sub": "user-43"])), nonce: nil, previous: previous),
            "sub differs from the previous", .subjectChanged)
        fixture.expectRejected(
            try await fixture.validate(
                try ProviderFixture.idToken(
                    fixture.claims(["nonce": nil, "aud": [.string(ProviderFixture.clientID), "api"], "azp": .string(ProviderFixture.clientID)])),
                nonce: nil, previous: previous),
            "aud differs from the previous", .subjectChanged)
    }

    @Test("A7: a malformed token is rejected, never a crash", arguments: ["", "a.b", "a.b.c.d", "....", "x.y.z", "é.é.é"])
    func malformed(token: String) async throws {
        let fixture = try Fixture()
        guard case .failure(.configuration(.idTokenRejected)) = try await fixture.validate(token) else {
            Issue.record("\(token) was not rejected")
            return
        }
    }

    @Test("A7: the synchronous form validates against a key set the caller holds")
    func synchronousValidation() throws {
        let fixture = try Fixture()
        let keySet = try JWKSet(parsing: try ProviderFixture.jwks())
        let claims = try fixture.validator.validate(
            try ProviderFixture.idToken(fixture.claims()), keySet: keySet, nonce: "n-1", accessToken: nil)
        #expect(claims.subject == "user-42")
        #expect(fixture.jwksRequests == 0)
    }
}
