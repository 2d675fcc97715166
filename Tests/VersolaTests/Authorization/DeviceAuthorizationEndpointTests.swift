import Foundation
import Testing
import VersolaJOSE

@testable import Versola
import VersolaTesting
import VersolaHTTP

/// The device authorization endpoint's request and answer (RFC 8628 §3.1, §3.2) and the
/// device-code poll's answers (§3.5), against a scripted transport.
@Suite struct DeviceAuthorizationEndpointTests {
    static let devicePath = "/realms/main/device"

    private func endpoint(_ harness: EngineHarness) -> DeviceAuthorizationEndpoint {
        DeviceAuthorizationEndpoint(
            url: URL(string: ProviderFixture.issuer + "/device")!, clientID: ProviderFixture.clientID, sender: harness.sender)
    }

    private func read(_ body: String) throws -> Result<DeviceAuthorizationEndpoint.Answer, VersolaError> {
        let response = HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8),
            origin: try #require(Origin(scheme: "https", host: "idp.example")))
        let budget = try OperationBudget(clock: ManualClock())
        return Result { () throws(VersolaError) in try DeviceAuthorizationEndpoint.read(response, budget: budget) }
    }

    @Test("A14: the request sends client_id, scope and, with a key, dpop_jkt and a proof; the answer becomes the pending request")
    func requestShape() async throws {
        let harness = EngineHarness()
        harness.transport.script(
            Self.devicePath,
            .json(
                #"{"device_code":"dc-SECRET","user_code":"WDJB-MJHT","verification_uri":"https://idp.example/activate","#
                    + #""verification_uri_complete":"https://idp.example/activate?c=WDJB-MJHT","expires_in":900,"interval":7}"#))
        let key = try DPoPKey.generate()
        let pending = try await endpoint(harness).request(
            scope: "openid offline_access", issuer: ProviderFixture.issuer, budget: try harness.budget(), dpopKey: key)
        let sent = try #require(harness.transport.requests.first)
        let form = FormEncodingProbe.fields(sent.body)
        #expect(form == ["client_id": ProviderFixture.clientID, "scope": "openid offline_access", "dpop_jkt": key.thumbprint])
        #expect(sent.headers["DPoP"] != nil)
        #expect(pending.deviceCode == "dc-SECRET" && pending.userCode == "WDJB-MJHT")
        #expect(pending.verificationURIComplete == "https://idp.example/activate?c=WDJB-MJHT")
        #expect(pending.interval == 7)
        #expect(pending.expiresAt == harness.clock.wallClockNow.addingTimeInterval(900))
        #expect(pending.dpopThumbprint == key.thumbprint)
        #expect(!pending.description.contains("dc-SECRET"))
        #expect(!harness.log.recorded.contains { $0.message.contains("dc-SECRET") })
    }

    @Test("A14: interval defaults to 5 s, 0 reads as 1 s, verification_url is read, a quoted expires_in too")
    func answerVariants() throws {
        let plain = try read(#"{"device_code":"d","user_code":"u","verification_uri":"https://x/v","expires_in":600}"#).get()
        #expect(plain.interval == 5 && plain.expiresIn == 600 && plain.verificationURIComplete == nil)
        let zero = try read(#"{"device_code":"d","user_code":"u","verification_uri":"https://x/v","expires_in":"60","interval":0}"#)
            .get()
        #expect(zero.interval == 1 && zero.expiresIn == 60)
        let older = try read(#"{"device_code":"d","user_code":"u","verification_url":"https://x/old","expires_in":60}"#).get()
        #expect(older.verificationURI == "https://x/old")
    }

    @Test("A14: a 68-year expires_in is waited for an hour at most")
    func expiryIsBounded() throws {
        let huge = try read(#"{"device_code":"d","user_code":"u","verification_uri":"https://x/v","expires_in":2147483647}"#).get()
        #expect(huge.expiresIn == DeviceAuthorizationEndpoint.longestLifetime)
        #expect(DeviceAuthorizationEndpoint.longestLifetime == 3600)
        let hour = try read(#"{"device_code":"d","user_code":"u","verification_uri":"https://x/v","expires_in":3599}"#).get()
        #expect(hour.expiresIn == 3599)
    }

    @Test(
        "A14 E8: an answer without a required member is a server failure, never a crash",
        arguments: [
            #"{"user_code":"u","verification_uri":"https://x/v","expires_in":60}"#,
            #"{"device_code":"d","verification_uri":"https://x/v","expires_in":60}"#,
            #"{"device_code":"d","user_code":"u","expires_in":60}"#,
            #"{"device_code":"d","user_code":"u","verification_uri":"https://x/v"}"#,
            #"{"device_code":"d","user_code":"u","verification_uri":"https://x/v","expires_in":0}"#,
            #"{"device_code":"d","user_code":"u","verification_uri":"https://x/v","expires_in":60,"interval":-1}"#,
            #"{"device_code":"d","user_code":"u","verification_uri":"https://x/v","expires_in":60,"interval":99999}"#,
            #"{"device_code":"d","user_code":"u","verification_uri":"https://x/v","expires_in":60,"verification_uri_complete":3}"#,
            "[]", "not json",
        ])
    func unusableAnswers(body: String) throws {
        guard case .failure(.recoverable(.server(let failure))) = try read(body) else {
            Issue.record("\(body) was accepted")
            return
        }
        #expect(failure.status == 200)
    }

    @Test("A14 E6 E9: an error answer to the request maps as at the token endpoint")
    func refusedRequest() async throws {
        let harness = EngineHarness()
        harness.transport.script(Self.devicePath, .json(#"{"error":"unauthorized_client"}"#, status: 400))
        do {
            _ = try await endpoint(harness).request(scope: "openid", issuer: ProviderFixture.issuer, budget: try harness.budget())
            Issue.record("the request succeeded")
        } catch let error as VersolaError {
            guard case .configuration(.providerUnsupported) = error else {
                Issue.record("got \(error)")
                return
            }
        }
    }

    @Test(
        "A14 E9: poll answers: pending and slow_down go on; access_denied, expired_token and invalid_grant end it",
        arguments: [
            ("authorization_pending", "pending"), ("slow_down", "slowDown"), ("access_denied", "authorizationDenied"),
            ("expired_token", "pendingRequestExpired"), ("invalid_grant", "grantRejected"),
        ])
    func pollAnswers(code: String, outcome: String) async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .json(#"{"error":"\#(code)"}"#, status: 400))
        let endpoint = TokenEndpoint(metadata: try ProviderFixture.metadata(), configuration: harness.configuration, sender: harness.sender)
        do {
            let answer = try await endpoint.pollDeviceCode(deviceCode: "dc-SECRET", budget: try harness.budget())
            switch answer {
            case .pending: #expect(outcome == "pending")
            case .slowDown: #expect(outcome == "slowDown")
            case .tokens: Issue.record("tokens for \(code)")
            }
        } catch let error as VersolaError {
            #expect(error.cause == outcome)
        }
        let sent = try #require(harness.transport.requests.first)
        #expect(
            FormEncodingProbe.fields(sent.body)
                == ["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": "dc-SECRET",
                    "client_id": ProviderFixture.clientID])
        #expect(harness.transport.requests.count == 1, "an answer is never repeated")
    }
}

/// Reads a form body back (for checking what was sent).
enum FormEncodingProbe {
    static func fields(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            let decode = { (text: String) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
