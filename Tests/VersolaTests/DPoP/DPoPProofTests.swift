import Foundation
import Testing
import Versola
import VersolaTesting
import VersolaHTTP
import VersolaCrypto
import VersolaJOSE

/// A proof taken apart: header, claims, and whether its signature verifies with its own `jwk`.
struct DecodedProof {
    let header: JSONObject
    let claims: JWTClaims
    let verifies: Bool

    init(_ proof: String) throws {
        let jws = try JWS(compact: proof)
        header = jws.header
        claims = try JWTClaims(payload: jws.payload)
        let key = try JWK(json: try #require(jws.header["jwk"]))
        verifies = (try? jws.verify(with: key, allowedAlgorithms: [.es256])) != nil
    }
}

@Suite struct DPoPProofTests {
    let key: DPoPKey
    let issuedAt = Date(timeIntervalSince1970: 1_735_689_600.75)

    init() throws {
        key = try DPoPKey.generate()
    }

    func proof(
        _ method: HTTPMethod = .post, _ url: String = "https://as.example/token", token: String? = nil,
        nonce: String? = nil, random: any RandomSource = SeededRandomSource(seed: 1)
    ) throws -> DecodedProof {
        let text = try DPoPProof.make(
            key: key, method: method, url: try #require(URL(string: url)), accessToken: token, nonce: nonce,
            issuedAt: issuedAt, random: random)
        return try DecodedProof(text)
    }

    @Test("D2: the header is typ dpop+jwt, alg ES256 and the public jwk without d; the signature verifies")
    func header() throws {
        let decoded = try proof()
        #expect(decoded.header["typ"]?.string == "dpop+jwt")
        #expect(decoded.header["alg"]?.string == "ES256")
        let jwk = try #require(decoded.header["jwk"]?.object)
        #expect(jwk.names.sorted() == ["crv", "kty", "x", "y"])
        #expect(jwk["d"] == nil)
        #expect(try JWK(json: .object(jwk)).thumbprint() == key.thumbprint)
        #expect(decoded.verifies)
    }

    @Test("D2: jti is 16 random bytes (≥ 96 bits), fresh for every proof")
    func jti() throws {
        let random = SeededRandomSource(seed: 9)
        let first = try #require(try proof(random: random).claims["jti"]?.string)
        let second = try #require(try proof(random: random).claims["jti"]?.string)
        #expect(try Base64URL.decode(first).count == 16)
        #expect(first != second)
    }

    @Test("D2: htm is the method and iat the injected clock's whole seconds")
    func methodAndTime() throws {
        let decoded = try proof(.get, "https://rs.example/api")
        #expect(decoded.claims["htm"]?.string == "GET")
        #expect(decoded.claims["iat"]?.int64 == 1_735_689_600)
    }

    @Test(
        "D2: iat is the whole seconds rounded down, written as a JSON integer",
        arguments: [(0.0, Int64(0)), (59.999, 59), (-1.5, -2), (9_999_999_999.25, 9_999_999_999)])
    func issuedAtSeconds(_ seconds: Double, _ expected: Int64) throws {
        let text = try DPoPProof.make(
            key: key, method: .get, url: try #require(URL(string: "https://rs.example/")), issuedAt: Date(timeIntervalSince1970: seconds),
            random: SeededRandomSource(seed: 2))
        let claims = try DecodedProof(text).claims
        #expect(claims["iat"]?.int64 == expected)
    }

    @Test(
        "D2: htu drops query and fragment, lowercases scheme and host, drops the default port and user info",
        arguments: [
            ("https://AS.Example.COM/Token?x=1#frag", "https://as.example.com/Token"),
            ("HTTPS://as.example:443/token", "https://as.example/token"),
            ("http://127.0.0.1:80/token", "http://127.0.0.1/token"),
            ("http://127.0.0.1:8080/token", "http://127.0.0.1:8080/token"),
            ("https://as.example:8443/a/b%20c", "https://as.example:8443/a/b%20c"),
            ("https://user:pw@as.example/token", "https://as.example/token"),
            ("https://as.example", "https://as.example/"),
            ("https://[::1]:443/x?y", "https://[::1]/x"),
        ])
    func targetURI(_ input: String, _ expected: String) throws {
        #expect(try proof(.post, input).claims["htu"]?.string == expected)
        #expect(DPoPProof.targetURI(of: input) == expected)
    }

    @Test(
        "D2: htu of text without an authority is the text before any query; non-ASCII paths pass unchanged",
        arguments: [
            ("urn:example:thing?x=1", "urn:example:thing"),
            ("https://H.Example/caf\u{E9}/na\u{EF}ve?q#f", "https://h.example/caf\u{E9}/na\u{EF}ve"),
            ("HTTP://H.EXAMPLE", "http://h.example/"),
            ("https://h.example:4431/x", "https://h.example:4431/x"),
        ])
    func targetURIOfText(_ input: String, _ expected: String) {
        #expect(DPoPProof.targetURI(of: input) == expected)
    }

    @Test("D2: ath is base64url SHA-256 of the token: the RFC 9449 §7.1 example")
    func accessTokenHashVector() throws {
        let token = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
        #expect(DPoPProof.accessTokenHash(token) == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
        #expect(try proof(token: token).claims["ath"]?.string == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    @Test("D2: no ath without an access token, no nonce unless known; a known nonce is carried")
    func optionalClaims() throws {
        let bare = try proof()
        #expect(bare.claims["ath"] == nil)
        #expect(bare.claims["nonce"] == nil)
        #expect(bare.claims.object.names == ["jti", "htm", "htu", "iat"])
        let withNonce = try proof(nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        #expect(withNonce.claims["nonce"]?.string == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
    }

    @Test("D2: JSON-special characters in a URL path stay valid JSON")
    func escaping() throws {
        let url = try #require(URL(string: "https://as.example/a%22b"))
        let text = try DPoPProof.make(key: key, method: .get, url: url, issuedAt: issuedAt, random: SeededRandomSource(seed: 2))
        #expect(try DecodedProof(text).claims["htu"]?.string == "https://as.example/a%22b")
    }
}

@Suite struct DPoPKeyTests {
    @Test("D1 P5: a key restores from its raw representation with the same thumbprint; equality is by thumbprint")
    func rawRoundTrip() throws {
        let key = try DPoPKey.generate()
        let restored = try DPoPKey(rawRepresentation: key.rawRepresentation)
        #expect(restored == key)
        #expect(restored.thumbprint == key.thumbprint)
        #expect(Set([key, restored]).count == 1)
        #expect(try DPoPKey.generate() != key)
    }

    @Test("D1: the thumbprint is RFC 7638 over the public JWK; the description shows no secret")
    func thumbprintAndDescription() throws {
        let key = try DPoPKey.generate()
        #expect(key.thumbprint == key.publicJWK.thumbprint())
        #expect(try Base64URL.decode(key.thumbprint).count == 32)
        let secret = Base64URL.encode(key.rawRepresentation)
        #expect(!key.description.contains(secret))
        #expect(!"\(key)".contains(secret))
    }

    @Test("E9: bytes that are not a P-256 scalar are credentialsInvalidated, never a crash")
    func badRaw() {
        for bytes in [[UInt8](), [UInt8](repeating: 0, count: 32), [UInt8](repeating: 0xFF, count: 32), [1, 2, 3]] {
            #expect(throws: VersolaError.reauthenticate(.credentialsInvalidated)) { try DPoPKey(rawRepresentation: bytes) }
        }
    }
}
