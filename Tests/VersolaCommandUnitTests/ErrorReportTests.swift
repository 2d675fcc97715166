import Testing
import Versola
import VersolaHTTP
import VersolaJOSE

@testable import VersolaCommand

@Suite("Error report")
struct ErrorReportTests {
    static let samples: [VersolaError] = [
        .recoverable(.userCancelled), .recoverable(.systemCancelled), .recoverable(.pendingRequestExpired),
        .recoverable(.unlockRequired), .recoverable(.nonceLoop),
        .recoverable(.network(NetworkFailure(kind: .timedOut, requestBytesWritten: true, origin: "https://a:443"))),
        .recoverable(
            .server(
                ServerFailure(
                    status: 503, retryAfter: .milliseconds(2500), failedRequests: 3, elapsed: .milliseconds(1234),
                    errorCode: "temporarily_unavailable"))),
        .reauthenticate(.grantRejected), .reauthenticate(.sessionExpired), .reauthenticate(.credentialsInvalidated),
        .stepUp(StepUpChallenge(acrValues: ["urn:mfa"], maxAge: 60)),
        .configuration(.stateMismatch), .configuration(.idTokenRejected(IDTokenRejection(.expired, "exp"))),
        .configuration(.invalidConfiguration("bad")),
        .configuration(.discoveryIssuerMismatch(expected: "https://a", actual: "https://b")),
        .configuration(
            .invalidConfiguration(
                "the provider answered invalid_request (status 400)",
                provider: ProviderError(code: "invalid_request", description: "consent in prompt"))),
        .configuration(.providerUnsupported("no", provider: ProviderError(code: "invalid_client", description: nil))),
        .configuration(
            .authorizationRejected("refused", provider: ProviderError(code: "invalid_scope", description: "no such scope"))),
        .recoverable(
            .server(
                ServerFailure(
                    status: 500, failedRequests: 1, elapsed: .zero, errorCode: "server_error", errorDescription: "boom"))),
    ]

    // One exit status per category (the contract scripts use).
    @Test func exitStatusPerCategory() {
        #expect(ExitStatus(.recoverable(.nonceLoop)) == .recoverable)
        #expect(ExitStatus(.recoverable(.nonceLoop)).rawValue == 3)
        #expect(ExitStatus(.reauthenticate(.grantRejected)).rawValue == 4)
        #expect(ExitStatus(.stepUp(StepUpChallenge())).rawValue == 5)
        #expect(ExitStatus(.configuration(.stateMismatch)).rawValue == 6)
        #expect(CommandFailure.usage(UsageError("x")).exitStatus.rawValue == 2)
    }

    // E13: category and cause names, and the server cause's budget fields.
    @Test func jsonShapeOfAServerError() throws {
        let text = ErrorReport.render(.versola(Self.samples[6]), json: true)
        let value = try JSONValue(parsing: text.trimmingBlanks.replacingNewline)
        let error = try #require(value["error"])
        #expect(error["category"] == "recoverable")
        #expect(error["cause"] == "server")
        #expect(error["status"] == 503)
        #expect(error["retryAfter"] == 3)
        #expect(error["failedRequests"] == 3)
        #expect(error["elapsedMs"] == 1234)
    }

    @Test func jsonNamesEveryCategory() throws {
        for sample in Self.samples {
            let value = ErrorReport.object(for: .versola(sample))
            #expect(value["error"]?["category"]?.string == sample.category)
            #expect(value["error"]?["cause"]?.string == sample.cause)
        }
        let stepUp = ErrorReport.object(for: .versola(.stepUp(StepUpChallenge(acrValues: ["a"], maxAge: 5))))
        #expect(stepUp["error"]?["acrValues"] == ["a"])
        #expect(stepUp["error"]?["maxAge"] == 5)
        let usage = ErrorReport.object(for: .usage(UsageError("bad")))
        #expect(usage["error"]?["category"] == "usage")
    }

    /// One of every error case (the samples above, then the cases they leave out), so that the
    /// agent round trip covers them all.
    static let everyCase: [VersolaError] = samples + [
        .recoverable(.storageUnavailable("the disk is full")), .recoverable(.signingKeyUnavailable(retryAfter: .seconds(42))),
        .reauthenticate(.authorizationDenied), .reauthenticate(.interactionRequired),
        .reauthenticate(.sessionRejected),
        .configuration(.issuerMismatch), .configuration(.providerUnsupported("no S256")),
        .configuration(.authorizationRejected("invalid_scope")),
    ]

    @Test func theRoundTripCoversEveryCase() {
        // One sample per entry of the E13 table (a cause added to the table is missing here
        // until it gets a sample), each filed under the table's category.
        #expect(Set(Self.everyCase.map(\.name)) == Set(VersolaErrorName.allCases))
        for sample in Self.everyCase { #expect(sample.category == sample.name.category, "\(sample)") }
    }

    // The agent carries errors as E13 objects: every case survives the trip.
    @Test func errorsSurviveTheAgentProtocol() throws {
        for sample in Self.everyCase {
            let line = AgentReply.failure(sample).line
            let decoded = try #require(AgentReply(line: Array(line.dropLast())))
            guard case .failure(let error) = decoded else {
                Issue.record("not a failure")
                continue
            }
            switch (error, sample) {
            case (.recoverable(.server(let a)), .recoverable(.server(let b))):
                #expect(a.status == b.status && a.failedRequests == b.failedRequests && a.elapsed == b.elapsed)
                #expect(a.retryAfter == b.retryAfter.map { _ in .seconds(3) })
                #expect(a.providerError == b.providerError)
            default:
                #expect(error == sample)
            }
        }
    }

    // E14: what the provider said is in the JSON as providerError / providerDescription, in the
    // sentence, and survives the agent round trip (checked by errorsSurviveTheAgentProtocol).
    @Test func providerErrorIsReported() throws {
        let sample = Self.samples[15]
        let error = try #require(ErrorReport.object(for: .versola(sample))["error"])
        #expect(error["providerError"] == "invalid_request")
        #expect(error["providerDescription"] == "consent in prompt")
        let text = ErrorReport.render(.versola(sample), json: false)
        #expect(text.contains("invalid_request (\"consent in prompt\")"), "\(text)")
        #expect(!text.contains("invalidConfiguration"), "case names only in --json")
        let bare = try #require(ErrorReport.object(for: .versola(Self.samples[16]))["error"])
        #expect(bare["providerError"] == "invalid_client")
        #expect(bare["providerDescription"] == .null)
        let server = try #require(ErrorReport.object(for: .versola(Self.samples[18]))["error"])
        #expect(server["providerError"] == "server_error")
        #expect(server["providerDescription"] == "boom")
        #expect(ErrorReport.render(.versola(Self.samples[18]), json: false).contains("server_error (\"boom\")"))
        #expect(ErrorReport.object(for: .versola(.configuration(.stateMismatch)))["error"]?["providerError"] == nil)
    }

    @Test func textAdvisesWhatToDo() {
        #expect(ErrorReport.render(.versola(.reauthenticate(.grantRejected)), json: false, profile: "work")
            == "versola: the provider no longer accepts this session; sign in again: versola login --profile work\n")
        #expect(ErrorReport.render(.versola(Self.samples[10]), json: false).contains("--acr-values urn:mfa --max-age 60"))
        #expect(ErrorReport.render(.usage(UsageError("no", command: .token)), json: false).contains("usage: versola token"))
    }

    // People read sentences; the internal case names are for scripts, in --json only.
    @Test func sentencesNameNoInternalCase() throws {
        // Every internal name (the E13 table; "network", "server" and "stepUp" are plain words).
        let internalNames = VersolaErrorName.allCases.map(\.rawValue).filter { !["network", "server", "stepUp"].contains($0) }
            + ["recoverable(", "configuration("]
        let all = Self.samples + ReauthenticationReason.allCases.map { .reauthenticate($0) } + [
            .configuration(.issuerMismatch), .configuration(.providerUnsupported("no PKCE")),
            .configuration(.authorizationRejected("the provider answered access_denied")),
            .recoverable(.storageUnavailable("disk full")),
        ]
        for sample in all {
            let text = ErrorReport.render(.versola(sample), json: false, profile: "work")
            for name in internalNames { #expect(!text.contains(name), "\(sample) reads: \(text)") }
            // The JSON object still names the cause exactly (E13 unchanged).
            let object = try JSONValue(parsing: String(ErrorReport.render(.versola(sample), json: true).dropLast()))
            #expect(object["error"]?["cause"]?.string == sample.cause)
            #expect(object["error"]?["message"]?.string == sample.description)
        }
        #expect(ErrorReport.render(.versola(.configuration(.idTokenRejected(IDTokenRejection(.signatureInvalid, "signature does not verify")))), json: false)
            == "versola: the provider's ID token was not accepted: signature does not verify\n")
        #expect(ErrorReport.render(.versola(.recoverable(.pendingRequestExpired)), json: false, profile: "work")
            .contains("versola login --profile work"))
    }

    @Test func requestLinesRoundTrip() throws {
        let request = AgentRequest(.token(AgentTokenArguments(forceRefresh: true)), profile: "work")
        #expect(AgentRequest(line: Array(request.line.dropLast())) == request)
        // Another protocol version is refused with a reason; a line without one is version 1.
        #expect(AgentRequest.parse(Array(#"{"v":2,"op":"ping","profile":"a"}"#.utf8)) == .failure(.version(2)))
        #expect(AgentRequest(line: Array(#"{"op":"ping","profile":"a"}"#.utf8)) == AgentRequest(.ping, profile: "a"))
        #expect(AgentRequest(line: Array(#"{"v":1,"op":"token","profile":"a","args":{"print":{"format":"yaml"}}}"#.utf8)) == nil)
        #expect(AgentReply(line: Array(#"{"v":2,"ok":1}"#.utf8)) == nil)
        #expect(AgentRequest(line: Array("{\"op\":\"nope\",\"profile\":\"a\"}".utf8)) == nil)
        #expect(AgentRequest(line: Array("not json".utf8)) == nil)
        #expect(AgentReply(line: Array("{\"ok\":1}".utf8)) == .success(1))
        #expect(AgentReply(line: Array("{}".utf8)) == nil)
    }
}

extension String {
    fileprivate var replacingNewline: String { split(separator: "\n").joined() }
}
