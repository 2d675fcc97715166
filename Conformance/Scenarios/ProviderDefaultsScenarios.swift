import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// Scenarios for the defaults that decide whether a login starts at a provider nobody here
/// wrote (issue 14): the DPoP mode, `offline_access` with `prompt=consent`, the response
/// types a provider offers, and what the provider said kept with the error.
@Suite(.serialized) struct ProviderDefaultsScenarios {
    /// The query of the (only) front-channel authorization request the provider received.
    static func authorizationQuery(_ rig: EngineRig) async throws -> [String: String] {
        let request = try #require(await rig.idp.provider.requests(to: .authorize).first)
        let items = URLComponents(string: request.target)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: A11

    @Test("A11: in auto mode (the default) a provider without DPoP metadata gets a Bearer login: no key, no proof")
    func autoWithoutAdvertisement() async throws {
        let rig = try await EngineRig(
            configure: {
                $0.advertiseDPoP = false
                $0.advertisePushedAuthorizationRequests = false
            }, configureClient: { $0.dpop = .auto })
        try await withRig(rig) { rig in
            #expect(ClientConfiguration(issuer: "https://id.example", clientID: "x").dpop == .auto, "the default")
            #expect(try await rig.client.resolvedDPoP() == false)
            let grant = try await rig.client.login()
            #expect(grant.tokenType == .bearer)
            #expect(grant.dpopKey == nil)
            #expect(try await Self.authorizationQuery(rig)["dpop_jkt"] == nil)
            let exchange = try #require(await rig.idp.provider.requests(to: .token).first)
            #expect(exchange.headers["DPoP"] == nil)
        }
    }

    @Test("A11: in auto mode a provider advertising ES256 proofs gets a DPoP-bound login")
    func autoWithAdvertisement() async throws {
        let rig = try await EngineRig(configureClient: { $0.dpop = .auto })
        try await withRig(rig) { rig in
            #expect(try await rig.client.resolvedDPoP())
            let grant = try await rig.client.login()
            #expect(grant.tokenType == .dpop)
            #expect(grant.dpopKey != nil)
            let exchange = try #require(await rig.idp.provider.requests(to: .token).first)
            #expect(exchange.headers["DPoP"] != nil)
        }
    }

    @Test("A11 D5: in require mode a provider without DPoP metadata is refused before the browser, naming --dpop")
    func requireWithoutAdvertisement() async throws {
        let rig = try await EngineRig(configure: { $0.advertiseDPoP = false }, configureClient: { $0.dpop = .require })
        try await withRig(rig) { rig in
            await rig.expectFailure(category: "configuration", cause: "providerUnsupported")
            do throws(VersolaError) {
                _ = try await rig.client.login()
            } catch {
                #expect(error.description.contains("--dpop off"), "\(error)")
            }
            #expect(rig.browser.opened.isEmpty)
            #expect(await rig.idp.provider.requests(to: .token).isEmpty)
        }
    }

    @Test("A11: in off mode DPoP is never used, even when the provider advertises it")
    func offIgnoresAdvertisement() async throws {
        let rig = try await EngineRig(configureClient: { $0.dpop = .off })
        try await withRig(rig) { rig in
            #expect(try await rig.client.resolvedDPoP() == false)
            let grant = try await rig.client.login()
            #expect(grant.tokenType == .bearer)
            #expect(await rig.idp.provider.requests().allSatisfy { $0.headers["DPoP"] == nil })
        }
    }

    // MARK: A12

    @Test("A12: the default scopes leave out offline_access where scopes_supported omits it, and then no prompt=consent")
    func defaultOfflineAccessDroppedWhenNotListed() async throws {
        let rig = try await EngineRig(
            configure: {
                $0.advertiseOfflineAccess = false
                $0.advertisePushedAuthorizationRequests = false
            })
        try await withRig(rig) { rig in
            _ = try await rig.client.login()
            let query = try await Self.authorizationQuery(rig)
            #expect(query["scope"] == "openid")
            #expect(query["prompt"] == nil)
        }
    }

    @Test("A12: scopes the caller gave are sent exactly as given, offline_access included where it is not listed; the refresh token comes and refreshes")
    func callerScopesSentAsGiven() async throws {
        let rig = try await EngineRig(
            configure: {
                $0.advertiseOfflineAccess = false
                $0.advertisePushedAuthorizationRequests = false
            }, configureClient: { $0.scopes = ["openid", "profile", "offline_access"] })
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            let query = try await Self.authorizationQuery(rig)
            #expect(query["scope"] == "openid profile offline_access")
            #expect(query["prompt"] == "consent")
            #expect(grant.refreshToken != nil, "asked for offline_access, so a refresh token")
            let refreshed = try await rig.client.refresh(grant)
            #expect(!refreshed.accessToken.isEmpty)
        }
    }

    @Test("A12: per-call scopes are sent exactly as given too, even without openid")
    func callScopesSentAsGiven() async throws {
        let rig = try await EngineRig(configure: {
            $0.advertisePushedAuthorizationRequests = false
            $0.requireOpenIDScope = false
        })
        try await withRig(rig) { rig in
            let grant = try await rig.client.login(AuthorizationParameters(scopes: ["profile", "offline_access"]))
            let query = try await Self.authorizationQuery(rig)
            #expect(query["scope"] == "profile offline_access")
            #expect(query["nonce"] == nil, "A16: no openid, no nonce")
            #expect(grant.idToken == nil && grant.claims == nil, "A16: no openid, no ID token kept")
        }
    }

    @Test("A12: a provider demanding prompt=consent with offline_access (pyoidc) completes the default login")
    func consentWithOfflineAccess() async throws {
        let rig = try await EngineRig(
            configure: {
                $0.requireConsentForOfflineAccess = true
                $0.advertisePushedAuthorizationRequests = false
            })
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            #expect(grant.refreshToken != nil)
            let query = try await Self.authorizationQuery(rig)
            #expect(query["scope"] == "openid offline_access")
            #expect(query["prompt"] == "consent")
        }
    }

    @Test("A12: with PAR too, offline_access goes with prompt=consent; a caller's own prompt is sent unchanged")
    func consentPushedAndCallerPrompt() async throws {
        let rig = try await EngineRig(configure: { $0.requireConsentForOfflineAccess = true })
        try await withRig(rig) { rig in
            _ = try await rig.client.login()
            let push = try #require(await rig.idp.provider.requests(to: .par).first)
            #expect(push.formValue("prompt") == "consent")
            #expect(push.formValue("scope") == "openid offline_access")
            // The caller's prompt wins; this provider then refuses, and says why (E14).
            do throws(VersolaError) {
                _ = try await rig.client.login(AuthorizationParameters(prompt: "login"))
                Issue.record("the provider accepted offline_access without consent")
            } catch {
                #expect(error.cause == "authorizationRejected")
                #expect(error.providerError?.errorDescription == "consent in prompt")
            }
            #expect(try #require(await rig.idp.provider.requests(to: .par).last).formValue("prompt") == "login")
        }
    }

    // MARK: A13

    @Test("A13: a provider whose response_types_supported lacks code is refused before any browser opens")
    func noCodeResponseType() async throws {
        let rig = try await EngineRig(configure: { $0.responseTypesSupported = ["id_token", "id_token token"] })
        try await withRig(rig) { rig in
            await rig.expectFailure(category: "configuration", cause: "providerUnsupported")
            #expect(rig.browser.opened.isEmpty)
            #expect(await rig.idp.provider.requests(to: .authorize).isEmpty)
            #expect(await rig.idp.provider.requests(to: .par).isEmpty)
        }
    }

    @Test("A13 A2: a provider whose published PKCE methods lack S256 is refused before any browser opens")
    func noS256() async throws {
        let rig = try await EngineRig(configure: { $0.codeChallengeMethodsSupported = ["plain"] })
        try await withRig(rig) { rig in
            await rig.expectFailure(category: "configuration", cause: "providerUnsupported")
            #expect(rig.browser.opened.isEmpty)
        }
        // Not published at all: the login goes ahead with S256.
        let silent = try await EngineRig(configure: { $0.codeChallengeMethodsSupported = nil })
        try await withRig(silent) { silent in
            _ = try await silent.client.login()
        }
    }

    @Test("A7: a provider that advertises only none or HMAC ID tokens is refused before any browser opens, naming its list")
    func onlyUnacceptedIDTokenAlgorithms() async throws {
        for listed in [["none"], ["HS256"]] {
            let rig = try await EngineRig(configure: { $0.idTokenSigningAlgorithmsSupported = listed })
            try await withRig(rig) { rig in
                do throws(VersolaError) {
                    _ = try await rig.client.login(timeout: .seconds(300))
                    Issue.record("login succeeded with only \(listed) advertised")
                } catch {
                    #expect(error.cause == "providerUnsupported", "got \(error)")
                    // The person sees what the provider lists, not an empty list (oidctest's
                    // rp-id_token-sig-none provider showed "(provider: )").
                    guard case .configuration(let detail) = error else { return }
                    #expect(detail.reason?.contains("lists \(listed[0]);") == true, "got \(error)")
                }
                #expect(rig.browser.opened.isEmpty)
            }
        }
    }

    // MARK: E14

    @Test("E14: a token endpoint's invalid_request keeps its error_description, control characters stripped")
    func tokenInvalidRequestDescription() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            let body = #"{"error":"invalid_request","error_description":"Expected DPoP header,\u001b[2J none found"}"#
            await rig.idp.provider.arm(TestFaultRule(.token, .respond(status: 400, body: body)))
            do throws(VersolaError) {
                _ = try await rig.client.login()
                Issue.record("the refused exchange succeeded")
            } catch {
                #expect(error.cause == "invalidConfiguration")
                #expect(error.providerError?.code == "invalid_request")
                #expect(error.providerError?.errorDescription == "Expected DPoP header, [2J none found")
                #expect(!error.description.contains("\u{1B}"))
            }
        }
    }

    @Test("E14: a provider's authorization error keeps its description on authorizationRejected")
    func authorizationErrorDescription() async throws {
        let rig = try await EngineRig(
            configure: {
                $0.requireConsentForOfflineAccess = true
                $0.advertisePushedAuthorizationRequests = false
            })
        try await withRig(rig) { rig in
            do throws(VersolaError) {
                _ = try await rig.client.login(AuthorizationParameters(prompt: "login"))
                Issue.record("the refused authorization succeeded")
            } catch {
                #expect(error.category == "configuration")
                #expect(error.providerError?.description == "invalid_request: consent in prompt")
            }
            #expect(await rig.idp.provider.requests(to: .token).isEmpty)
        }
    }

    // MARK: UserInfo per RFC 6750

    @Test("E10 E14: UserInfo answering 401 invalid_token gets one refresh and one replay")
    func userInfoInvalidToken() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            await rig.idp.provider.arm(TestFaultRule(.userinfo, .bearerError(code: "invalid_token", description: "revoked")))
            let info = try await rig.session.userInfo()
            #expect(info.subject == TestUser().subject)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
            #expect(await rig.idp.provider.requests(to: .userinfo).count == 2)
        }
    }

    @Test("E14: UserInfo answering 403 insufficient_scope is a configuration error with the provider's words")
    func userInfoInsufficientScope() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            await rig.idp.provider.arm(
                TestFaultRule(.userinfo, .bearerError(code: "insufficient_scope", description: "needs profile")))
            do throws(VersolaError) {
                _ = try await rig.client.userInfo(grant)
                Issue.record("a refused UserInfo succeeded")
            } catch {
                #expect(error.category == "configuration")
                #expect(error.providerError?.description == "insufficient_scope: needs profile")
                #expect(error.description.contains("--scope"))
            }
            #expect(await rig.idp.provider.requests(to: .userinfo).count == 1, "not repeated")
        }
    }

    @Test("E14: UserInfo answering 400 invalid_request is read by the code table, with the error kept")
    func userInfoInvalidRequest() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            await rig.idp.provider.arm(
                TestFaultRule(.userinfo, .bearerError(code: "invalid_request", description: "duplicate token")))
            do throws(VersolaError) {
                _ = try await rig.client.userInfo(grant)
                Issue.record("a refused UserInfo succeeded")
            } catch {
                #expect(error.cause == "invalidConfiguration")
                #expect(error.providerError?.description == "invalid_request: duplicate token")
            }
        }
    }
}
