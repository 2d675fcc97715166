import Foundation
import VersolaTestIdP

/// A few providers shared by the tests, each lent to one test at a time.
///
/// A provider generates an RSA key when created (a fifth of a second on a busy machine), so
/// tests borrow one, reconfigure it, and give it back: faults and the request log are
/// cleared on every loan, and codes, tokens and proof ids are random, so loans do not see
/// each other. Tests that rotate keys or bind sockets make their own provider.
actor ProviderPool {
    /// One provider and the clock it reads.
    struct Entry: Sendable {
        let provider: TestProvider
        let clock: ProviderTestClock
    }

    static let shared = ProviderPool(limit: 3)

    private let limit: Int
    private var created = 0
    private var idle: [Entry] = []
    private var waiting: [CheckedContinuation<Entry, Never>] = []

    init(limit: Int) {
        self.limit = limit
    }

    /// An idle provider, a new one while under the limit, or the next one given back.
    func borrow() async throws -> Entry {
        if let entry = idle.popLast() { return entry }
        if created < limit {
            created += 1
            do {
                let clock = ProviderTestClock()
                return Entry(provider: try TestProvider(now: clock.source), clock: clock)
            } catch {
                created -= 1
                throw error
            }
        }
        return await withCheckedContinuation { waiting.append($0) }
    }

    /// Returns a provider for the next test.
    func giveBack(_ entry: Entry) {
        if waiting.isEmpty {
            idle.append(entry)
        } else {
            waiting.removeFirst().resume(returning: entry)
        }
    }
}

/// Runs `body` with a pooled provider configured from the strict defaults by `configure`.
func withProvider<Result: Sendable>(
    issuer: String = "http://127.0.0.1",
    configure: @escaping @Sendable (inout TestProviderConfiguration) -> Void = { _ in },
    _ body: (ProviderHarness) async throws -> Result
) async throws -> Result {
    let entry = try await ProviderPool.shared.borrow()
    var configuration = TestProviderConfiguration()
    configure(&configuration)
    let chosen = configuration
    await entry.provider.configure { $0 = chosen }
    await entry.provider.setIssuer(issuer)
    await entry.provider.clearFaults()
    await entry.provider.clearRequestLog()
    let harness = ProviderHarness(provider: entry.provider, clock: entry.clock, issuer: issuer)
    do {
        let result = try await body(harness)
        await ProviderPool.shared.giveBack(entry)
        return result
    } catch {
        await ProviderPool.shared.giveBack(entry)
        throw error
    }
}
