import Foundation
import VersolaCrypto
import VersolaHTTP

/// A ``TestProvider`` served on loopback sockets: the issuer `http://127.0.0.1:PORT`
/// (optionally with a path), and optionally a protected resource on a second port, so
/// that the resource is a different origin from the authorization server.
///
/// ```swift
/// let idp = try await TestIdentityServer.start(configuration: .init(), issuerPath: "/tenant")
/// print(idp.issuer)    // http://127.0.0.1:49152/tenant
/// await idp.stop()
/// ```
public final class TestIdentityServer: Sendable {
    /// The provider behind the sockets (arm faults, read the request log).
    public let provider: TestProvider
    /// The issuer identifier.
    public let issuer: String
    /// The resource server's URL of the protected resource (its own origin when started
    /// with `separateResourceServer`, else under the issuer).
    public let resourceURL: String
    private let server: HTTPServer
    private let resourceServer: HTTPServer?

    private init(provider: TestProvider, issuer: String, resourceURL: String, server: HTTPServer, resourceServer: HTTPServer?) {
        self.provider = provider
        self.issuer = issuer
        self.resourceURL = resourceURL
        self.server = server
        self.resourceServer = resourceServer
    }

    /// Starts a provider.
    /// - Parameters:
    ///   - configuration: its behaviour without faults.
    ///   - port: a fixed port, or 0 for an ephemeral one.
    ///   - issuerPath: a path the issuer carries (`""` or `/tenant`).
    ///   - separateResourceServer: serve the protected resource on its own port.
    ///   - now: the provider's clock.
    /// - Throws: ``TestIdentityServerError``.
    public static func start(
        configuration: TestProviderConfiguration = TestProviderConfiguration(),
        port: UInt16 = 0,
        issuerPath: String = "",
        separateResourceServer: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws(TestIdentityServerError) -> TestIdentityServer {
        let provider: TestProvider
        do { provider = try TestProvider(configuration: configuration, now: now) } catch {
            throw .keyGeneration(error)
        }
        let server: HTTPServer
        do {
            server = try HTTPServer.start(
                address: .ipv4Loopback, port: port,
                acceptHook: { _ in await provider.acceptDecision() },
                handler: { request in await provider.handle(request, arrivedAt: .authorizationServer) })
        } catch {
            throw .cannotListen(error)
        }
        let path = issuerPath.isEmpty || issuerPath.hasPrefix("/") ? issuerPath : "/" + issuerPath
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        // An issuer of `/` alone keeps it, as Auth0's do (`https://tenant.auth0.com/`).
        let issuer = server.baseURL + (path == "/" ? "/" : trimmed)
        await provider.setIssuer(issuer)
        var resourceServer: HTTPServer?
        var resourceURL = server.baseURL + trimmed + TestEndpoint.resource.path
        if separateResourceServer {
            do {
                let second = try HTTPServer.start(address: .ipv4Loopback, port: 0) { request in
                    await provider.handle(request, arrivedAt: .resourceServer)
                }
                await provider.setResourceBaseURL(second.baseURL)
                resourceServer = second
                resourceURL = second.baseURL + TestEndpoint.resource.path
            } catch {
                await server.stop()
                throw .cannotListen(error)
            }
        }
        return TestIdentityServer(
            provider: provider, issuer: issuer, resourceURL: resourceURL, server: server, resourceServer: resourceServer)
    }

    /// The port the issuer listens on.
    public var port: UInt16 { server.port }

    /// Stops both listeners.
    public func stop() async {
        await server.stop()
        await resourceServer?.stop()
    }
}

/// Why a test provider could not start.
public enum TestIdentityServerError: Error, Sendable, CustomStringConvertible {
    /// The signing keys could not be generated.
    case keyGeneration(CryptoError)
    /// The port could not be bound.
    case cannotListen(HTTPServerError)

    public var description: String {
        switch self {
        case .keyGeneration(let error): "cannot generate signing keys: \(error)"
        case .cannotListen(let error): "cannot listen: \(error)"
        }
    }
}
