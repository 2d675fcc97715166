import Foundation
import Synchronization
import Testing

@testable import Versola
import VersolaTesting

/// S15's lock: one holder per profile, the holder's pid for waiters, a bounded wait.
@Suite struct SignInLockTests {
    @Test("S15: a second holder waits, names the first by pid, gives up at its own limit, and gets the lock once released")
    func oneHolderAtATime() async throws {
        let home = try TemporaryDirectory()
        let held = try #require(
            try await SignInLock.acquire(profile: "work", stateHome: home.url, within: .seconds(1)) { _ in })
        #expect(!held.waited)
        let named = Mutex<[Int32?]>([])
        let second = try await SignInLock.acquire(profile: "work", stateHome: home.url, within: .milliseconds(200)) {
            owner in named.withLock { $0.append(owner) }
        }
        #expect(second == nil, "the limit ends the wait while the lock is held")
        #expect(named.withLock { $0 } == [getpid()], "the waiter was told once, with the holder's pid")
        // Another profile is not held.
        let other = try await SignInLock.acquire(profile: "home", stateHome: home.url, within: .milliseconds(200)) { _ in }
        #expect(other != nil)
        other?.release()

        let waiter = Task {
            try await SignInLock.acquire(profile: "work", stateHome: home.url, within: .seconds(30)) { owner in
                named.withLock { $0.append(owner) }
            }
        }
        // Released once the waiter has found it held (a bound, not a wait for time).
        let bound = ContinuousClock.now + .seconds(30)
        while named.withLock({ $0.count }) < 2, ContinuousClock.now < bound { try await Task.sleep(for: .milliseconds(5)) }
        held.release()
        let taken = try #require(try await waiter.value)
        #expect(taken.waited)
        taken.release()
    }
}
