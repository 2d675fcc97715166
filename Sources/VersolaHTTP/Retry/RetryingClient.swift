/// Sends one logical request through a transport under an ``OperationKind`` and an
/// ``OperationBudget``, repeating it as the ``RetryTable`` allows, and turns what finally
/// happened into a response or an ``HTTPFailure``.
///
/// - Repeats wait a jittered exponential backoff, or exactly the `Retry-After` of a 429/503 (R8).
/// - A wait that does not fit the remaining budget is never shortened: the client stops at once,
///   without sending, and throws `.server` (with `retryAfter` when the server gave
///   one). An unmet `Retry-After` also closes the origin until then: every request to it fails at
///   once, unsent, with the time left ( ``cooldown(for:)`` lets `login()` check first).
/// - The code exchange and the refresh go over a fresh connection so libcurl cannot re-send them.
/// - Every attempt that does not end in a 2xx counts as a failed request in the budget (R1).
/// - Each attempt's timeouts are at most what is left of the budget (R9), so one slow answer
///   never holds the operation past it.
///
/// ```swift
/// let client = RetryingClient(transport: CurlTransport(), clock: SystemClock(), random: SystemRandomSource())
/// let budget = try OperationBudget(clock: SystemClock())
/// let jwks = try await client.send(HTTPRequest(url: jwksURL), kind: .read, budget: budget)
/// print(jwks.status)
/// ```
public final class RetryingClient: Sendable {
    /// The transport every attempt goes through.
    public let transport: any HTTPTransport
    /// The clock for waits, budgets and cooldowns.
    public let clock: any VersolaClock
    /// The source of backoff jitter.
    public let random: any RandomSource
    /// The transport options used when `send` is given none.
    public let defaultOptions: TransportOptions
    private let cooldowns = OriginCooldowns()

    /// Creates a client.
    /// - Parameters:
    ///   - transport: where attempts are sent.
    ///   - clock: for backoff waits, budgets and cooldowns.
    ///   - random: for jitter.
    ///   - defaultOptions: transport options when a call passes none.
    public init(
        transport: any HTTPTransport, clock: any VersolaClock, random: any RandomSource,
        defaultOptions: TransportOptions = TransportOptions()
    ) {
        self.transport = transport
        self.clock = clock
        self.random = random
        self.defaultOptions = defaultOptions
    }

    /// How long `origin` is still closed by a `Retry-After` the engine could not wait out, or nil
    /// when it may be called.
    public func cooldown(for origin: Origin) async -> Duration? {
        cooldowns.active(for: origin, now: clock.monotonicNow)?.remaining
    }

    /// Closes `origin` for `duration`, as a `Retry-After` the engine could not wait out does
    /// (R8), for a caller that repeats a search of several requests itself (discovery, A16).
    package func close(_ origin: Origin, for duration: Duration, status: Int) {
        cooldowns.close(origin, until: clock.monotonicNow + duration, status: status)
    }

    /// Sends `request` and returns the answer the operation can use.
    /// - Parameters:
    ///   - request: the request.
    ///   - kind: what it is for; decides repeats and how statuses conclude.
    ///   - budget: the operation's budget, shared by all its requests.
    ///   - options: transport options; ``defaultOptions`` when nil. Connection reuse is turned
    ///     off for the code exchange and the refresh whatever is passed.
    /// - Returns: a 2xx or a 4xx other than 408/429 (every status for `.application`).
    /// - Throws: `.network` when nothing usable answered; `.server` for a 408/429/5xx/unusable
    ///   status or an oversize answer, and while the origin is in cooldown; `.misconfigured` for
    ///   a redirect from an endpoint, plain http off loopback or an invalid URL; `.cancelled`
    ///   when cancelled.
    public func send(
        _ request: HTTPRequest, kind: OperationKind, budget: OperationBudget, options: TransportOptions? = nil
    ) async throws(HTTPFailure) -> HTTPResponse {
        try await send(kind: kind, budget: budget, options: options, prepare: { _ throws(HTTPFailure) in request })
    }

    /// Sends a request built afresh for every attempt, as ``send(_:kind:budget:options:)`` does
    /// with a fixed one. A request that must differ per attempt (a DPoP proof with a new `jti`
    /// and the latest nonce) is made by `prepare`; `observe` sees every answer, repeated ones
    /// included (to learn `DPoP-Nonce` values).
    /// - Parameters:
    ///   - prepare: makes the request of attempt `n` (1 for the first); every attempt must go
    ///     to the same origin.
    ///   - observe: called with every response received, before it is judged.
    /// - Throws: what `prepare` throws, or the ``HTTPFailure`` that
    ///   ``send(_:kind:budget:options:)`` would throw, as the same error type.
    public func send<Failure: HTTPFailureRepresentable>(
        kind: OperationKind, budget: OperationBudget, options: TransportOptions? = nil,
        prepare: (_ attempt: Int) throws(Failure) -> HTTPRequest,
        observe: (HTTPResponse) -> Void = { _ in }
    ) async throws(Failure) -> HTTPResponse {
        var options = options ?? defaultOptions
        if kind.forbidsConnectionReuse { options.allowConnectionReuse = false }
        var attempts = 0
        while true {
            let request = try prepare(attempts + 1)
            // libcurl silently re-sends a request whose reused connection dies before an
            // answer; a non-idempotent application request must never be sent twice (R7).
            if kind == .application, !request.method.isIdempotent { options.allowConnectionReuse = false }
            guard let origin = request.origin else {
                throw Failure(.misconfigured("the request URL has no scheme or host"))
            }
            if let closed = cooldowns.active(for: origin, now: clock.monotonicNow) {
                throw Failure(serverFailure(status: closed.status, retryAfter: closed.remaining, budget: budget))
            }
            if Task.isCancelled { throw Failure(.cancelled) }
            let attemptOptions = Self.options(options, within: budget)
            attempts += 1
            let started = clock.monotonicNow
            let result: Result<HTTPResponse, TransportError>
            do {
                result = .success(try await transport.send(request, options: attemptOptions))
            } catch {
                result = .failure(error)
            }
            let took = clock.monotonicNow - started

            // Every attempt that is not a 2xx is a failed request of the operation (R1).
            let outcome: RequestOutcome
            var retryAfter: Duration?
            switch result {
            case .success(let response):
                observe(response)
                outcome = RequestOutcome(status: response.status)
                if outcome == .success {
                    trace(request, kind: kind, attempt: attempts, result: result, took: took, repeatsAfter: nil)
                    return response
                }
                budget.recordFailedRequest(duration: took)
                if outcome == .status429 || outcome == .status503 {
                    retryAfter = response.headers["Retry-After"].flatMap {
                        RetryAfter.parse($0, now: clock.wallClockNow)
                    }
                }
            case .failure(let error):
                budget.recordFailedRequest(duration: took)
                guard let transportOutcome = RequestOutcome(error) else {
                    trace(request, kind: kind, attempt: attempts, result: result, took: took, repeatsAfter: nil)
                    throw Failure(error.httpFailure(failedRequests: budget.failedRequests, elapsed: budget.elapsed))
                }
                outcome = transportOutcome
            }

            let decision = RetryTable.decision(for: kind, after: outcome)
            if decision.repeats, attempts < budget.policy.maxAttempts {
                let wait = retryAfter ?? budget.policy.backoff(afterFailures: attempts, random: random)
                if budget.fits(wait) {
                    trace(request, kind: kind, attempt: attempts, result: result, took: took, repeatsAfter: wait)
                    do {
                        try await clock.sleep(for: wait)
                    } catch {
                        throw Failure(.cancelled)
                    }
                    budget.recordWait(wait)
                    continue
                }
            }
            trace(request, kind: kind, attempt: attempts, result: result, took: took, repeatsAfter: nil)
            if let retryAfter, decision.otherwise == .serverFailure, case .success(let response) = result {
                cooldowns.close(origin, until: clock.monotonicNow + retryAfter, status: response.status)
            }
            switch (decision.otherwise, result) {
            case (.response, .success(let response)):
                return response
            case (.redirectRefused, .success(let response)):
                throw Failure(
                    .misconfigured("\(origin) answered with a redirect (status \(response.status)); endpoints must not redirect"))
            case (_, .success(let response)):
                throw Failure(serverFailure(status: response.status, retryAfter: retryAfter, budget: budget))
            case (_, .failure(let error)):
                throw Failure(error.httpFailure(failedRequests: budget.failedRequests, elapsed: budget.elapsed))
            }
        }
    }

    /// Reports one attempt to ``ExchangeTracing`` when something listens (`versola -v`).
    private func trace(
        _ request: HTTPRequest, kind: OperationKind, attempt: Int, result: Result<HTTPResponse, TransportError>,
        took: Duration, repeatsAfter: Duration?
    ) {
        guard ExchangeTracing.isOn else { return }
        let outcome: String
        switch result {
        case .success(let response): outcome = String(response.status)
        case .failure(let error): outcome = error.networkFailure?.kind.rawValue ?? "\(error)"
        }
        ExchangeTracing.emit(
            ExchangeTrace(
                kind: kind, attempt: attempt, method: request.method.rawValue, target: ExchangeTrace.redacted(request.url),
                outcome: outcome, duration: took, repeatsAfter: repeatsAfter))
    }

    /// The transport options of one attempt (R9, R1): its timeouts are the smaller of their
    /// own limit and what is left of the operation's budget, so a slow answer cannot hold the
    /// operation past its budget. With nothing left (a wait used the rest exactly) the attempt
    /// gets the transport's shortest timeout: only an immediate answer, which costs nothing, helps.
    static func options(_ options: TransportOptions, within budget: OperationBudget) -> TransportOptions {
        var bounded = options
        bounded.totalTimeout = min(options.totalTimeout, budget.remaining)
        bounded.connectTimeout = min(options.connectTimeout, bounded.totalTimeout)
        return bounded
    }

    private func serverFailure(status: Int, retryAfter: Duration?, budget: OperationBudget) -> HTTPFailure {
        .server(
            ServerFailure(
                status: status, retryAfter: retryAfter, failedRequests: budget.failedRequests, elapsed: budget.elapsed))
    }
}
