import Foundation
import Synchronization
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// Plays the person: "opens" URLs by handing them to the headless user agent.
final class HeadlessBrowser: BrowserLauncher {
    private let urls = Mutex<[String]>([])
    let follows: Bool
    let starts: Bool

    init(follows: Bool, starts: Bool) {
        self.follows = follows
        self.starts = starts
    }

    var opened: [String] { urls.withLock { $0 } }

    func open(_ url: String) async -> Bool {
        urls.withLock { $0.append(url) }
        guard starts else { return false }
        if follows {
            Task { _ = try? await HeadlessUserAgent().complete(authorizationURL: url) }
        }
        return true
    }
}

/// Records what the engine presented.
final class PromptLog: Sendable {
    private let prompts = Mutex<[AuthorizationPrompt]>([])
    var all: [AuthorizationPrompt] { prompts.withLock { $0 } }
    func append(_ prompt: AuthorizationPrompt) { prompts.withLock { $0.append(prompt) } }
}

/// A transport that refuses to contact the loopback listener's port range above the
/// provider (the final redirect is "pasted" instead); it answers that hop with a 204.
struct StopAtLoopback: HTTPTransport {
    let inner = CurlTransport(idleHandles: 0)
    func send(_ request: HTTPRequest, options: TransportOptions) async throws(TransportError) -> HTTPResponse {
        if request.url.path == "/callback" {
            return HTTPResponse(status: 204, headers: HTTPHeaders(), body: [], origin: request.origin!)
        }
        return try await inner.send(request, options: options)
    }
}

/// The test provider and an engine configured for it.
struct EngineRig {
    let idp: TestIdentityServer
    let browser: HeadlessBrowser
    let client: OpenIDClient
    /// The rig's time, the provider's as well as the engine's: a scenario that takes long in
    /// real time (a loaded machine, the thread sanitizer) sees no skew grow between them.
    let clock: ScenarioClock

    init(
        clientID: String = "versola-test", browserFollows: Bool = true, browserStarts: Bool = true,
        separateResourceServer: Bool = false, issuerPath: String = "", providerCache: ProviderCache? = nil,
        configure: @Sendable (inout TestProviderConfiguration) -> Void = { _ in },
        configureClient: (inout ClientConfiguration) -> Void = { _ in }
    ) async throws {
        var providerConfiguration = TestProviderConfiguration()
        providerConfiguration.autoLogin = true
        configure(&providerConfiguration)
        let clock = ScenarioClock()
        self.clock = clock
        let idp = try await TestIdentityServer.start(
            configuration: providerConfiguration, issuerPath: issuerPath, separateResourceServer: separateResourceServer,
            now: { clock.wallClockNow })
        self.idp = idp
        browser = HeadlessBrowser(follows: browserFollows, starts: browserStarts)
        var configuration = ClientConfiguration(issuer: idp.issuer, clientID: clientID)
        configuration.usesDPoP = false
        configureClient(&configuration)
        let http = RetryingClient(
            transport: CurlTransport(), clock: clock, random: SystemRandomSource(), defaultOptions: configuration.transport)
        do {
            client = try OpenIDClient(
                configuration: configuration, environment: EngineEnvironment(http: http, providerCache: providerCache),
                browser: browser)
        } catch {
            // No rig to stop comes back: stop the provider here.
            await idp.stop()
            throw error
        }
    }

    /// Expects `login()` to fail with this category and cause.
    func expectFailure(category: String, cause: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            _ = try await client.login(timeout: .seconds(300))
            Issue.record("login succeeded; expected \(category)(\(cause))", sourceLocation: sourceLocation)
        } catch {
            #expect(error.category == category, sourceLocation: sourceLocation)
            #expect(error.cause == cause, "got \(error)", sourceLocation: sourceLocation)
        }
    }

    func stop() async {
        await idp.stop()
    }
}
