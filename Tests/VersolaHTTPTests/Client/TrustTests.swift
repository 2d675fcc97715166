import Foundation
import Testing
import VersolaHTTP

@Suite("TrustTests")
struct TrustTests {
    @Test("E14: OpenSSL's verify results name the certificate check that failed")
    func verifyResults() {
        #expect(CertificateCheck(verifyResult: 20) == .unknownIssuer)  // unable to get local issuer
        #expect(CertificateCheck(verifyResult: 18) == .unknownIssuer)  // self-signed leaf
        #expect(CertificateCheck(verifyResult: 19) == .unknownIssuer)  // self-signed in chain
        #expect(CertificateCheck(verifyResult: 10) == .expired)
        #expect(CertificateCheck(verifyResult: 9) == .notYetValid)
        #expect(CertificateCheck(verifyResult: 62) == .nameMismatch)
        #expect(CertificateCheck(verifyResult: 0) == .nameMismatch, "libcurl's own host check after a good chain")
        #expect(CertificateCheck(verifyResult: 23) == .other)  // revoked
    }

    @Test("E14: a refused certificate is a configuration error naming the check; never repeated")
    func certificateRejectedIsConfiguration() throws {
        let url = try #require(URL(string: "https://id.example"))
        let origin = try #require(Origin(url: url))
        let error = TransportError.certificateRejected(origin: origin, check: .unknownIssuer)
            .httpFailure(failedRequests: 1, elapsed: .zero)
        #expect(error.caseName == "misconfigured")
        #expect(error.description.contains("unknown issuer"))
        #expect(error.description.contains("--ca-file"))
        #expect(RequestOutcome(TransportError.certificateRejected(origin: origin, check: .expired)) == nil)
        #expect(TransportError.tls(origin: origin).httpFailure(failedRequests: 1, elapsed: .zero).caseName == "network")
    }

    @Test("SSL_CERT_FILE and SSL_CERT_DIR are read like OpenSSL reads them; empty means unset")
    func environment() {
        #expect(TrustLocations(environment: [:]) == TrustLocations())
        #expect(
            TrustLocations(environment: ["SSL_CERT_FILE": "/a.pem", "SSL_CERT_DIR": "/d1:/d2"])
                == TrustLocations(file: "/a.pem", directory: "/d1:/d2"))
        #expect(TrustLocations(environment: ["SSL_CERT_FILE": "", "SSL_CERT_DIR": ""]) == TrustLocations())
    }

    @Test("issue 13: a missing, unreadable or directory CA file is invalidConfiguration before any request")
    func caFileChecked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("versola-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let readable = directory.appendingPathComponent("ca.pem").path
        try Data("not checked here".utf8).write(to: URL(fileURLWithPath: readable))
        #expect(throws: Never.self) { try TransportOptions(caFile: readable).validate() }
        #expect(throws: Never.self) { try TransportOptions().validate() }
        for path in [directory.appendingPathComponent("missing.pem").path, directory.path] {
            do {
                try TransportOptions(caFile: path).validate()
                Issue.record("\(path) was accepted")
            } catch {
                #expect(error.caseName == "misconfigured")
                #expect(error.description.contains("--ca-file"))
            }
        }
    }
}
