import VersolaHTTP
/// One piece of work shared by every caller that asks for it while it runs: the first caller
/// starts it, the others wait for the same result, and nothing is fetched twice at once. Kept
/// as a stored property of the actor that owns it.
///
/// ```swift
/// let task = flight.join { await Self.download(url) }
/// let result = await task.value
/// if flight.finish(task), case .success(let value) = result { cached = value }
/// ```
struct SingleFlight<Value: Sendable> {
    /// The work under way.
    typealias Work = Task<Result<Value, VersolaError>, Never>

    private var running: Work?

    /// Whether work is under way.
    var isRunning: Bool { running != nil }

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
}
