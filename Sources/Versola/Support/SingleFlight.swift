import VersolaHTTP

/// One piece of work shared by every caller that asks for it while it runs: the first caller
/// starts it, the others wait for the same result, and nothing is fetched twice at once. Kept
/// as a stored property of the actor (or inside the lock) that owns it.
///
/// The work ends in one of two ways, chosen by its owner:
/// - a caller that awaited it calls ``finish(_:)`` (the first to do so records the result);
/// - the work calls ``end()`` as its last step, when its callers await it where the owner's
///   state cannot be reached (outside the actor, so that many resume in parallel).
///
/// ```swift
/// let task = flight.join { await Self.download(url) }
/// let result = await task.value
/// if flight.finish(task), case .success(let value) = result { cached = value }
/// ```
struct SingleFlight<Value: Sendable>: Sendable {
    /// The work under way.
    typealias Work = Task<Result<Value, VersolaError>, Never>

    private var running: Work?

    /// Whether work is under way.
    var isRunning: Bool { running != nil }

    /// The work under way, if any, without starting one.
    var current: Work? { running }

    /// The work under way, or `work` started now.
    mutating func join(or work: @escaping @Sendable () async -> Result<Value, VersolaError>) -> Work {
        if let running { return running }
        let started = Work { await work() }
        running = started
        return started
    }

    /// Ends `work` once awaited: true for the caller that finds it still the one under way (it
    /// records the result), false when another caller has already done so.
    mutating func finish(_ work: Work) -> Bool {
        guard running == work else { return false }
        running = nil
        return true
    }

    /// Ends the work under way; called by that work as its last step. No other work can have
    /// started meanwhile, since ``join(or:)`` starts one only when none is under way.
    mutating func end() {
        running = nil
    }
}
