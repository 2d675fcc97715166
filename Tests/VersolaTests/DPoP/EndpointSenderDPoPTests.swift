import Foundation
import Synchronization
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTesting

/// The sender's DPoP behaviour over a scripted transport (D2, D3, R1, R3), counting requests.
@Suite struct EndpointSenderDPoPTests {
    let harness = EngineHarness()
    let key: DPoPKey
    let tokenURL = URL(string: "https://idp.example/realms/main/token")!
    let resourceURL = URL(string: "https://api.example/things?page=2")!

    init() throws {
        key = try DPoPKey.generate()
    }

    func proof(_ request: HTTPRequest) throws -> DecodedProof {
        try DecodedProof(try #require(request.headers["DPoP"]))
    }

    static func nonceDemand(_ nonce: String?) -> ScriptedTransport.Step {
        var headers = HTTPHeaders()
        if let nonce { headers.add("DPoP-Nonce", nonce) }
        return .json(#"{"error":"use_dpop_nonce","error_description":"nonce needed"}"#, status: 400, headers: headers)
    }

    static func resourceNonceDemand(_ nonce: String) -> ScriptedTransport.Step {
        .status(401, headers: ["WWW-Authenticate": #"DPoP algs="ES256", error="use_dpop_nonce""#, "DPoP-Nonce": nonce])
    }

    @Test("D3 R3 R1: one nonce demand from the AS costs exactly two requests; the retry carries the nonce")
    func authorizationServerNonce() async throws {
        harness.transport.script("/realms/main/token", Self.nonceDemand("n-1"), .json(#"{"ok":true}"#))
        let budget = try harness.budget()
        let response = try await harness.sender.send(
            HTTPRequest(method: .post, url: tokenURL), kind: .codeExchange, budget: budget, dpopKey: key)
        #expect(response.status == 200)
        let requests = harness.transport.requests(to: "/realms/main/token")
        #expect(requests.count == 2)
        let first = try proof(requests[0])
        let second = try proof(requests[1])
        #expect(first.claims["nonce"] == nil)
        #expect(second.claims["nonce"]?.string == "n-1")
        #expect(first.claims["jti"] != second.claims["jti"])
        #expect(second.claims["htu"]?.string == "https://idp.example/realms/main/token")
        #expect(second.claims["htm"]?.string == "POST")
        #expect(budget.failedRequests == 1)
    }

    @Test("D3 R3 E1: a demand on the retry that carried the nonce is nonceLoop after exactly two requests")
    func nonceLoop() async throws {
        let counter = Mutex(0)
        harness.transport.script(
            "/realms/main/token",
            .handler { _ in
                let n = counter.withLock { value in
                    value += 1
                    return value
                }
                return Self.nonceDemand("n-\(n)")
            })
        await #expect(throws: VersolaError.recoverable(.nonceLoop)) {
            _ = try await harness.sender.send(
                HTTPRequest(method: .post, url: tokenURL), kind: .refresh, budget: try harness.budget(), dpopKey: key)
        }
        #expect(harness.transport.requests.count == 2)
    }

    @Test("D3: a demand with no nonce to send is handed back after one request (nothing to retry with)")
    func demandWithoutNonce() async throws {
        harness.transport.script("/realms/main/token", Self.nonceDemand(nil))
        let response = try await harness.sender.send(
            HTTPRequest(method: .post, url: tokenURL), kind: .read, budget: try harness.budget(), dpopKey: key)
        #expect(response.status == 400)
        #expect(harness.transport.requests.count == 1)
    }

    @Test("R3: invalid_dpop_proof gets exactly one retry with a fresh proof; a second is the answer")
    func invalidProof() async throws {
        let refusal = ScriptedTransport.Step.json(#"{"error":"invalid_dpop_proof"}"#, status: 400)
        harness.transport.script("/realms/main/token", refusal, .json(#"{"ok":true}"#))
        let ok = try await harness.sender.send(
            HTTPRequest(method: .post, url: tokenURL), kind: .codeExchange, budget: try harness.budget(), dpopKey: key)
        #expect(ok.status == 200)
        let requests = harness.transport.requests
        #expect(requests.count == 2)
        #expect(try proof(requests[0]).claims["jti"] != proof(requests[1]).claims["jti"])

        harness.transport.replaceScript("/realms/main/token", refusal)
        let refused = try await harness.sender.send(
            HTTPRequest(method: .post, url: tokenURL), kind: .codeExchange, budget: try harness.budget(), dpopKey: key)
        #expect(refused.status == 400)
        #expect(harness.transport.requests.count == 4)
    }

    @Test("D2 D3 R3: a resource's 401 nonce demand is retried once; the token goes as DPoP with ath")
    func resourceNonce() async throws {
        harness.transport.script("/things", Self.resourceNonceDemand("rs-1"), .json(#"{"things":[]}"#))
        let response = try await harness.sender.send(
            HTTPRequest(url: resourceURL), kind: .application, budget: try harness.budget(), accessToken: "at-123",
            dpopKey: key)
        #expect(response.status == 200)
        let requests = harness.transport.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.headers["Authorization"] == "DPoP at-123" })
        let retry = try proof(requests[1])
        #expect(retry.claims["nonce"]?.string == "rs-1")
        #expect(retry.claims["ath"]?.string == DPoPProof.accessTokenHash("at-123"))
        #expect(retry.claims["htu"]?.string == "https://api.example/things")
        #expect(retry.claims["htm"]?.string == "GET")
    }

    @Test("D3: a nonce learned from one origin is never sent to another")
    func noCrossOriginNonce() async throws {
        harness.transport.script("/realms/main/token", .json(#"{"ok":true}"#, headers: ["DPoP-Nonce": "as-1"]))
        harness.transport.script("/things", .json(#"{"ok":true}"#, headers: ["DPoP-Nonce": "rs-1"]))
        _ = try await harness.sender.send(
            HTTPRequest(method: .post, url: tokenURL), kind: .refresh, budget: try harness.budget(), dpopKey: key)
        _ = try await harness.sender.send(
            HTTPRequest(url: resourceURL), kind: .application, budget: try harness.budget(), accessToken: "t", dpopKey: key)
        _ = try await harness.sender.send(
            HTTPRequest(method: .post, url: tokenURL), kind: .refresh, budget: try harness.budget(), dpopKey: key)
        _ = try await harness.sender.send(
            HTTPRequest(url: resourceURL), kind: .application, budget: try harness.budget(), accessToken: "t", dpopKey: key)
        let requests = harness.transport.requests
        #expect(try requests.map { try proof($0).claims["nonce"]?.string } == [nil, nil, "as-1", "rs-1"])
        #expect(harness.sender.nonces.snapshot() == ["https://idp.example": "as-1", "https://api.example": "rs-1"])
    }

    @Test("D2 R5: the retry engine's repeats carry fresh proofs and the nonce of the failed answer")
    func repeatsGetFreshProofs() async throws {
        harness.transport.script(
            "/realms/main/userinfo", .status(503, headers: ["DPoP-Nonce": "from-503"]), .json(#"{"sub":"x"}"#))
        let url = URL(string: "https://idp.example/realms/main/userinfo")!
        _ = try await harness.sender.send(
            HTTPRequest(url: url), kind: .read, budget: try harness.budget(), accessToken: "t", dpopKey: key)
        let requests = harness.transport.requests
        #expect(requests.count == 2)
        let first = try proof(requests[0])
        let second = try proof(requests[1])
        #expect(first.claims["jti"] != second.claims["jti"])
        #expect(first.claims["nonce"] == nil)
        #expect(second.claims["nonce"]?.string == "from-503")
    }

    @Test("without a key the token goes as Bearer and no proof is sent; nonces are still learned")
    func bearer() async throws {
        harness.transport.script("/things", .json("{}", headers: ["DPoP-Nonce": "rs-9"]))
        _ = try await harness.sender.send(
            HTTPRequest(url: resourceURL), kind: .application, budget: try harness.budget(), accessToken: "t")
        let request = try #require(harness.transport.requests.first)
        #expect(request.headers["Authorization"] == "Bearer t")
        #expect(request.headers["DPoP"] == nil)
        #expect(harness.sender.nonces.nonce(for: Origin(url: resourceURL)!) == "rs-9")
    }

    @Test("R7: a 401 that is not a DPoP demand comes back as the response, sent once")
    func otherUnauthorized() async throws {
        harness.transport.script("/things", .status(401, headers: ["WWW-Authenticate": #"DPoP error="invalid_token""#]))
        let response = try await harness.sender.send(
            HTTPRequest(url: resourceURL), kind: .application, budget: try harness.budget(), accessToken: "t", dpopKey: key)
        #expect(response.status == 401)
        #expect(harness.transport.requests.count == 1)
    }
}
