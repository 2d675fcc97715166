import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

@testable import VersolaCommand

/// What a person reads after giving a wrong address: the likely mistake and the flag to
/// check, against a real provider over real sockets; the failure's case names stay in `--json`.
@Suite("Wrong address messages", .serialized)
struct WrongAddressMessageTests {
    /// Discovery of `issuer` through the real transport, and the sentence the command prints.
    /// `budget` bounds the whole discovery: three metadata locations are tried in turn (A16),
    /// which under the thread sanitizer takes seconds against the in-process provider.
    static func discover(_ issuer: String, budget: Duration = .seconds(3)) async -> (VersolaError?, String) {
        do {
            var configuration = ClientConfiguration(issuer: issuer, clientID: "versola-test")
            configuration.retryPolicy.totalBudget = budget
            _ = try await OpenIDClient(configuration: configuration).metadata()
            return (nil, "")
        } catch {
            return (error, ErrorReport.render(.versola(error), json: false))
        }
    }

    @Test("a wrong issuer path (discovery 404) names the document's URL and --issuer, and is not 'try again later'")
    func discoveryNotFound() async throws {
        let idp = try await TestIdentityServer.start()
        let (error, text) = await Self.discover(idp.issuer + "/realms/nope", budget: .seconds(20))
        await idp.stop()
        #expect(error?.category == "configuration", "\(String(describing: error))")
        #expect(text.contains(idp.issuer + "/realms/nope/.well-known/openid-configuration"), "\(text)")
        #expect(text.contains("--issuer"))
        #expect(!text.contains("try again later"))
    }

    @Test("https:// to a plain-http server names the likely mistake and --issuer, with no (tls)")
    func httpsToPlainHTTP() async throws {
        let idp = try await TestIdentityServer.start()
        let (error, text) = await Self.discover("https://127.0.0.1:\(idp.port)")
        await idp.stop()
        guard case .recoverable(.network(let failure))? = error else {
            Issue.record("expected a network failure, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .tls)
        #expect(text.contains("plain http") && text.contains("--issuer"), "\(text)")
        #expect(!text.contains("(tls)"))
        #expect(ErrorReport.render(.versola(error!), json: true).contains(#""kind":"tls""#))
    }

    @Test("no network failure's sentence carries its case name; each says what to check or to wait")
    func networkSentences() {
        for kind in NetworkFailure.Kind.allCases {
            let failure = NetworkFailure(kind: kind, requestBytesWritten: false, origin: "https://id.example:8443")
            let text = ErrorReport.render(.versola(.recoverable(.network(failure))), json: false)
            #expect(!text.contains(kind.rawValue), "\(text)")
            #expect(text.contains("https://id.example:8443"))
            #expect(text.contains("--issuer") || text.contains("try again"), "\(text)")
        }
    }
}
