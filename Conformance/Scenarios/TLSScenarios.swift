import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// TLS verification failures against a real https server (`openssl s_server`) whose
/// certificates the scenario makes at run time (E14): they never fix themselves, so they are
/// configuration errors naming the check, never "try again later".
@Suite(.serialized) struct TLSScenarios {
    /// Discovery against `issuer` through a real transport trusting `trust` (or `caFile`).
    static func discover(
        _ issuer: String, caFile: String? = nil, trust: TrustLocations = TrustLocations()
    ) async -> VersolaError? {
        do {
            var configuration = ClientConfiguration(issuer: issuer, clientID: "versola-test")
            configuration.transport.caFile = caFile
            configuration.retryPolicy.totalBudget = .seconds(5)
            let http = RetryingClient(
                transport: CurlTransport(idleHandles: 0, trust: trust), clock: SystemClock(),
                random: SystemRandomSource(), defaultOptions: configuration.transport)
            let client = try OpenIDClient(configuration: configuration, environment: EngineEnvironment(http: http))
            _ = try await client.metadata()
            return nil
        } catch {
            return error
        }
    }

    static func expectRefused(_ error: VersolaError?, naming check: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else {
            Issue.record("the certificate was accepted", sourceLocation: sourceLocation)
            return
        }
        #expect(error.category == "configuration", "\(error)", sourceLocation: sourceLocation)
        #expect(error.cause == "invalidConfiguration", sourceLocation: sourceLocation)
        #expect(error.description.contains(check), "\(error)", sourceLocation: sourceLocation)
    }

    @Test("E14: a certificate signed by an unknown CA is configuration, naming the unknown issuer and --ca-file")
    func unknownIssuer() async throws {
        let certificates = try TestCertificates()
        let server = try TestTLSServer(certificate: certificates.leaf, key: certificates.leafKey)
        defer { server.stop() }
        let error = await Self.discover("https://localhost:\(server.port)")
        Self.expectRefused(error, naming: "unknown issuer")
        #expect(error?.description.contains("--ca-file") == true)
    }

    @Test("E14: a certificate for another host name is configuration, naming the name mismatch")
    func nameMismatch() async throws {
        let certificates = try TestCertificates()
        let server = try TestTLSServer(certificate: certificates.leaf, key: certificates.leafKey)
        defer { server.stop() }
        // The certificate names localhost only; the CA is trusted, so only the name check fails.
        Self.expectRefused(
            await Self.discover("https://127.0.0.1:\(server.port)", caFile: certificates.authority), naming: "name mismatch")
    }

    @Test("E14: an expired certificate is configuration, naming the expiry")
    func expired() async throws {
        let certificates = try TestCertificates()
        let server = try TestTLSServer(certificate: certificates.expiredLeaf, key: certificates.leafKey)
        defer { server.stop() }
        Self.expectRefused(
            await Self.discover("https://localhost:\(server.port)", caFile: certificates.authority), naming: "expired")
    }

    @Test("E14: the CA given by --ca-file or by SSL_CERT_FILE is trusted: the handshake passes")
    func trustedAuthority() async throws {
        let certificates = try TestCertificates()
        let server = try TestTLSServer(certificate: certificates.leaf, key: certificates.leafKey)
        defer { server.stop() }
        let issuer = "https://localhost:\(server.port)"
        // Past the handshake, the server's HTML status page is no metadata document, at any location (A16).
        for error in [
            await Self.discover(issuer, caFile: certificates.authority),
            await Self.discover(issuer, trust: TrustLocations(environment: ["SSL_CERT_FILE": certificates.authority])),
        ] {
            #expect(error?.cause == "invalidConfiguration", "\(String(describing: error))")
            #expect(error?.description.contains("not a metadata document") == true, "\(String(describing: error))")
        }
    }

    @Test("E14 E8: a connection refused stays network (recoverable), unlike a certificate failure")
    func refusedStaysNetwork() async throws {
        let certificates = try TestCertificates()
        let server = try TestTLSServer(certificate: certificates.leaf, key: certificates.leafKey)
        let port = server.port
        server.stop()
        let error = await Self.discover("https://localhost:\(port)")
        #expect(error?.category == "recoverable")
        #expect(error?.cause == "network")
    }
}
