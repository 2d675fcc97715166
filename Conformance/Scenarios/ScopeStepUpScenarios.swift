import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// A20 on a 401: a resource that refuses a held token for want of scope asks for a new
/// authorization with more scope, which no refresh gives (MCP 2026-07-28, scope step-up).
@Suite("ScopeStepUpScenarios")
struct ScopeStepUpScenarios {
    static func rig() async throws -> SessionRig {
        try await SessionRig(configureClient: { $0.scopes = ["openid", "offline_access"] })
    }

    static func refusal(_ challenge: String) -> TestFaultRule {
        TestFaultRule(.resource, .respond(status: 401, headers: ["WWW-Authenticate": challenge]))
    }

    @Test("A20: a 401 insufficient_scope naming a scope the held token lacks is stepUp with the held and the named scopes, without a refresh")
    func insufficientScopeOn401() async throws {
        let rig = try await Self.rig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            await rig.idp.provider.arm(Self.refusal(#"Bearer error="insufficient_scope", scope="openid tools:admin""#))
            let request = HTTPRequest(url: URL(string: rig.idp.resourceURL)!)
            await #expect(throws: VersolaError.stepUp(StepUpChallenge(scopes: ["openid", "offline_access", "tools:admin"]))) {
                _ = try await rig.session.send(request)
            }
            #expect(await rig.tokenRequests(grant: "refresh_token") == 0, "a refresh adds no scope")
            #expect(rig.session.state == .authenticated, "the held token still serves what it covers")
        }
    }

    @Test("A20 E10: a 401 invalid_token naming more scope is refreshed and replayed first; refused again, it is the step-up")
    func invalidTokenNamingScope() async throws {
        let rig = try await Self.rig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let request = HTTPRequest(url: URL(string: rig.idp.resourceURL)!)
            await rig.idp.provider.arm(Self.refusal(#"Bearer error="invalid_token", scope="openid files:write""#))
            #expect(try await rig.session.send(request).status == 200, "an expired token's 401 is not a step-up")
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
            await rig.idp.provider.arm(
                TestFaultRule(
                    .resource, .respond(status: 401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token", scope="files:write""#]),
                    times: 2))
            await #expect(throws: VersolaError.stepUp(StepUpChallenge(scopes: ["openid", "offline_access", "files:write"]))) {
                _ = try await rig.session.send(request)
            }
            #expect(await rig.tokenRequests(grant: "refresh_token") == 2)
        }
    }

    @Test("A20: a 401 whose scope names more than the held token (no error code) is the step-up too; one naming only held scopes is refreshed and replayed")
    func scopeParameterOn401() async throws {
        let rig = try await Self.rig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let request = HTTPRequest(url: URL(string: rig.idp.resourceURL)!)
            await rig.idp.provider.arm(Self.refusal(#"Bearer scope="offline_access files:write""#))
            await #expect(throws: VersolaError.stepUp(StepUpChallenge(scopes: ["openid", "offline_access", "files:write"]))) {
                _ = try await rig.session.send(request)
            }
            #expect(await rig.tokenRequests(grant: "refresh_token") == 0)
            await rig.idp.provider.arm(TestFaultRule(.resource, .respond(status: 401, headers: ["WWW-Authenticate": #"Bearer scope="openid""#])))
            #expect(try await rig.session.send(request).status == 200)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
        }
    }
}
