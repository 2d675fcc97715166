import Foundation
import Synchronization
import Testing
import VersolaHTTP
import VersolaTestIdP

@Suite(.serialized) struct HeadlessUserAgentTests {
    /// Starts an "app" listening for the redirect, and returns it with the query it received.
    final class App: Sendable {
        final class Queries: Sendable {
            let values = Mutex<[String]>([])
            func withLock<R>(_ body: (inout [String]) -> R) -> R { values.withLock { body(&$0) } }
        }
        let server: HTTPServer
        let received: Queries
        init() throws {
            let queries = Queries()
            server = try HTTPServer.start { request in
                queries.withLock { $0.append(request.query ?? "") }
                return .respond(.text("app got it"))
            }
            received = queries
        }
    }

    /// Runs `body` with a provider started from `configuration` and an app, then stops both,
    /// also when `body` throws, so a failing test never leaves either listening.
    static func withProviderAndApp(
        _ configuration: TestProviderConfiguration = TestProviderConfiguration(),
        _ body: (TestIdentityServer, App) async throws -> Void
    ) async throws {
        let idp = try await TestIdentityServer.start(configuration: configuration)
        let app: App
        do {
            app = try App()
        } catch {
            await idp.stop()
            throw error
        }
        do {
            try await body(idp, app)
        } catch {
            await app.server.stop()
            await idp.stop()
            throw error
        }
        await app.server.stop()
        await idp.stop()
    }

    static func authorizationURL(_ issuer: String, redirect: String) -> String {
        let challenge = "E9Melhoa2OwvFrEMTjguCHNtaNybSBCUqlUy5Bs-kaw"
        let redirectParameter = redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? redirect
        return "\(issuer)/authorize?response_type=code&client_id=versola-test&scope=openid&state=s1"
            + "&redirect_uri=\(redirectParameter)&code_challenge=\(challenge)&code_challenge_method=S256"
    }

    @Test func signsInThroughTheFormAndReachesTheApp() async throws {
        try await Self.withProviderAndApp { idp, app in
            let landing = try await HeadlessUserAgent().complete(
                authorizationURL: Self.authorizationURL(idp.issuer, redirect: app.server.baseURL + "/callback"))
            #expect(String(decoding: landing.response.body, as: UTF8.self) == "app got it")
            #expect(landing.visited.count == 3)  // authorize, login POST, the app
            let query = try #require(app.received.withLock { $0.first })
            #expect(query.contains("code="))
            #expect(query.contains("state=s1"))
        }
    }

    @Test func autoLoginGoesStraightToTheApp() async throws {
        var configuration = TestProviderConfiguration()
        configuration.autoLogin = true
        try await Self.withProviderAndApp(configuration) { idp, app in
            let landing = try await HeadlessUserAgent().complete(
                authorizationURL: Self.authorizationURL(idp.issuer, redirect: app.server.baseURL + "/callback"))
            #expect(landing.visited.count == 2)
            #expect(app.received.withLock { $0.count } == 1)
        }
    }

    @Test func denyingReturnsAccessDenied() async throws {
        try await Self.withProviderAndApp { idp, app in
            _ = try await HeadlessUserAgent(denies: true).complete(
                authorizationURL: Self.authorizationURL(idp.issuer, redirect: app.server.baseURL + "/callback"))
            let query = try #require(app.received.withLock { $0.first })
            #expect(query.contains("error=access_denied"))
        }
    }
}
