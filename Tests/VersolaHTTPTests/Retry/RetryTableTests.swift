import Testing

@testable import VersolaHTTP

/// Walks every cell of the retry table against the SPEC rules, written out independently here.
@Suite struct RetryTableTests {
    /// Outcomes each kind repeats: R5 (read), R6 (refresh), R4 (code exchange: none), R7
    /// (application: never on a status; only provably unsent transport failures).
    static let repeated: [OperationKind: Set<RequestOutcome>] = [
        .read: [
            .couldNotResolve, .couldNotConnect, .failedAfterSending, .timedOut, .status408, .status429, .status500,
            .status502, .status503, .status504,
        ],
        .refresh: [.couldNotResolve, .couldNotConnect, .status408, .status429, .status503],
        .codeExchange: [],
        .application: [.couldNotResolve, .couldNotConnect],
        .probe: [],  // A16: a metadata location is asked once; the search moves on
    ]

    static let networkOutcomes: Set<RequestOutcome> = [.couldNotResolve, .couldNotConnect, .failedAfterSending, .timedOut, .tls]

    static func expectedConclusion(_ kind: OperationKind, _ outcome: RequestOutcome) -> RetryConclusion {
        if networkOutcomes.contains(outcome) { return .networkFailure }
        if outcome == .tooLarge { return .serverFailure }
        if kind == .application || kind == .probe || outcome == .success || outcome == .otherClientError { return .response }  // R7, A16
        if outcome == .redirect { return .redirectRefused }  // R4: a redirect is a configuration error
        return .serverFailure  // E8: 408, 429, 5xx, unusable
    }

    // R4 R5 R6 R7: every (kind × outcome) cell.
    @Test(arguments: OperationKind.allCases)
    func everyCellMatchesTheSpec(kind: OperationKind) {
        for outcome in RequestOutcome.allCases {
            let decision = RetryTable.decision(for: kind, after: outcome)
            #expect(
                decision.repeats == Self.repeated[kind]?.contains(outcome), "\(kind) × \(outcome): repeats")
            #expect(decision.otherwise == Self.expectedConclusion(kind, outcome), "\(kind) × \(outcome): conclusion")
        }
    }

    @Test func codeExchangeIsNeverRepeated() {  // R4
        #expect(RequestOutcome.allCases.allSatisfy { !RetryTable.decision(for: .codeExchange, after: $0).repeats })
    }

    @Test func refreshIsNotRepeatedAfterPossibleProcessing() {  // R6
        for outcome in [RequestOutcome.timedOut, .failedAfterSending, .status500, .status502, .status504] {
            #expect(!RetryTable.decision(for: .refresh, after: outcome).repeats, "\(outcome)")
        }
    }

    @Test func never501Or505OrOther4xx() {  // R4
        for kind in OperationKind.allCases {
            for outcome in [RequestOutcome.status501, .status505, .otherClientError, .redirect] {
                #expect(!RetryTable.decision(for: kind, after: outcome).repeats)
            }
        }
    }

    @Test(arguments: [
        (200, RequestOutcome.success), (204, .success), (301, .redirect), (399, .redirect), (400, .otherClientError),
        (401, .otherClientError), (408, .status408), (429, .status429), (499, .otherClientError), (500, .status500),
        (501, .status501), (502, .status502), (503, .status503), (504, .status504), (505, .status505),
        (507, .otherServerError), (100, .unexpectedStatus), (0, .unexpectedStatus), (600, .unexpectedStatus),
    ])
    func statusesMapToOutcomes(status: Int, outcome: RequestOutcome) {
        #expect(RequestOutcome(status: status) == outcome)
    }

    @Test func transportErrorsMapToOutcomes() {
        let origin = Fixture.origin
        #expect(RequestOutcome(.couldNotResolve(origin: origin)) == .couldNotResolve)
        #expect(RequestOutcome(.couldNotConnect(origin: origin)) == .couldNotConnect)
        #expect(RequestOutcome(.failedAfterSending(origin: origin)) == .failedAfterSending)
        #expect(RequestOutcome(.timedOut(origin: origin, requestBytesWritten: false)) == .timedOut)
        #expect(RequestOutcome(.tls(origin: origin)) == .tls)
        #expect(RequestOutcome(.responseTooLarge(origin: origin, status: 200, limit: 1)) == .tooLarge)
        #expect(RequestOutcome(.headerBlockTooLarge(origin: origin, limit: 1)) == .tooLarge)
        #expect(RequestOutcome(.insecureSchemeRefused(origin: origin)) == nil)
        #expect(RequestOutcome(.invalidRequest(reason: "x")) == nil)
        #expect(RequestOutcome(.cancelled) == nil)
    }

    // R6: a failure that ended a refresh left its token unspent only when nothing was written,
    // or the provider said 408, 429 or 503 (written out here, not read from the table).
    @Test func finalFailuresProvablyUnprocessed() {
        func network(_ kind: NetworkFailure.Kind, written: Bool) -> HTTPFailure {
            .network(NetworkFailure(kind: kind, requestBytesWritten: written, origin: "https://id.example"))
        }
        func server(_ status: Int) -> HTTPFailure {
            .server(ServerFailure(status: status, failedRequests: 1, elapsed: .zero))
        }
        let unprocessed: [HTTPFailure] = [
            network(.couldNotResolve, written: false), network(.couldNotConnect, written: false),
            network(.timedOut, written: false), server(408), server(429), server(503),
        ]
        let maybeProcessed: [HTTPFailure] = [
            network(.failedAfterSending, written: true), network(.timedOut, written: true), network(.tls, written: true),
            server(500), server(502), server(504), server(400), server(0), .misconfigured("x"), .cancelled,
        ]
        for failure in unprocessed { #expect(RetryTable.provablyUnprocessed(failure), "\(failure)") }
        for failure in maybeProcessed { #expect(!RetryTable.provablyUnprocessed(failure), "\(failure)") }
    }
}
