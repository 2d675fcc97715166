import VersolaHTTP
import Foundation
import Synchronization

/// One login's wait for its authorization response, whatever carries it: the loopback
/// listener's browser request (A4, L6) or a private-use scheme redirect handed in by the
/// application or another process (L7, L2). Exactly one response completes it: the first
/// whose `state` is the one set with ``expect(state:)``; anything else is refused and the
/// wait goes on.
final class RedirectWait: Sendable {
    private let outcome = Mutex(Outcome())

    private struct Outcome {
        var expectedState: String?
        var delivered: AuthorizationRedirect?
        var finished: VersolaError?
        var waiter: CheckedContinuation<AuthorizationRedirect, any Error>?
    }

    /// What became of a redirect handed to the wait.
    enum Taking {
        case accepted(AuthorizationRedirect)
        case refused(RedirectRefusal)
    }

    /// Sets the `state` of the request in progress; before it is set every response is refused.
    func expect(state: String) {
        outcome.withLock { $0.expectedState = state }
    }

    /// Takes `redirect` when it is the response to the request in progress and none was taken.
    func take(_ redirect: AuthorizationRedirect) -> Taking {
        guard redirect.isAuthorizationResponse else { return .refused(.notAResponse) }
        let result = outcome.withLock { state -> (waiter: CheckedContinuation<AuthorizationRedirect, any Error>?, refusal: RedirectRefusal?) in
            guard state.delivered == nil, state.finished == nil else { return (nil, .alreadyFinished) }
            guard let expected = state.expectedState, redirect.carries(state: expected) else { return (nil, .otherRequest) }
            state.delivered = redirect
            let waiter = state.waiter
            state.waiter = nil
            return (waiter, nil)
        }
        if let refusal = result.refusal { return .refused(refusal) }
        result.waiter?.resume(returning: redirect)
        return .accepted(redirect)
    }

    /// Takes a redirect URL obtained elsewhere; nil when it completed the wait, else why not.
    func offer(_ redirectURL: String) -> RedirectRefusal? {
        guard let redirect = try? AuthorizationRedirect(url: redirectURL) else { return .notAResponse }
        if case .refused(let refusal) = take(redirect) { return refusal }
        return nil
    }

    /// Ends the wait with `error`, unless it already ended.
    func finish(_ error: VersolaError) {
        let waiter = outcome.withLock { state -> CheckedContinuation<AuthorizationRedirect, any Error>? in
            guard state.delivered == nil, state.finished == nil else { return nil }
            state.finished = error
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(throwing: error)
    }

    /// Waits for the response: `.recoverable(.systemCancelled)` when `timeout` passes on
    /// `clock` or the task is cancelled, the error given to ``finish(_:)`` otherwise.
    func wait(timeout: Duration, clock: any VersolaClock) async throws(VersolaError) -> AuthorizationRedirect {
        let timer = Task { [weak self] in
            try? await clock.sleep(for: timeout)
            if !Task.isCancelled { self?.finish(.recoverable(.systemCancelled)) }
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let ready = outcome.withLock { state -> Result<AuthorizationRedirect, VersolaError>? in
                        if let delivered = state.delivered { return .success(delivered) }
                        if let finished = state.finished { return .failure(finished) }
                        state.waiter = continuation
                        return nil
                    }
                    if let ready { continuation.resume(with: ready) }
                }
            } onCancel: {
                finish(.recoverable(.systemCancelled))
            }
        } catch let error as VersolaError {
            throw error
        } catch {
            throw .recoverable(.systemCancelled)
        }
    }
}

/// Where a login's authorization response arrives: the loopback listener (A4) or a
/// private-use scheme wait (L7). The login reads only this.
protocol RedirectReceiver: AnyObject, Sendable {
    /// The `redirect_uri` to send.
    var redirectURI: String { get }
    /// Sets the `state` of the request in progress.
    func expect(state: String)
    /// Hands in a redirect URL; nil when taken.
    func offer(_ redirectURL: String) -> RedirectRefusal?
    /// Ends the wait because the person cancelled (E7).
    func cancel()
    /// Waits for the response.
    func waitForRedirect(timeout: Duration, clock: any VersolaClock) async throws(VersolaError) -> AuthorizationRedirect
    /// Releases what the receiver holds (the loopback port).
    func stop() async
}
