import Foundation
import Versola

/// S15 for the command: every sign-in it runs (`versola login` by hand, the one `versola token
/// --format k8s` runs for kubectl, the step-up of `versola request`) holds the profile's
/// ``SignInLock`` for its whole length, so callers that need one at once open one browser tab.
///
/// A caller that finds the lock held says so once on standard error and waits, up to
/// `VERSOLA_SIGN_IN_WAIT` seconds (default 600, the life of a pending request; kubectl's exec
/// plugins take it from the kubeconfig's `env`), then asks again (``signInOnce(_:ask:signIn:)``).
/// Ctrl-C or a kill ends only the waiter: it holds nothing of the sign-in it waits for.
enum SignInGate {
    /// The environment variable bounding the wait, in seconds.
    static let waitVariable = "VERSOLA_SIGN_IN_WAIT"
    /// The wait without it: a pending request's life (P2).
    static let defaultWait = 600

    /// Takes the profile's sign-in lock, waiting for another process's sign-in to end.
    /// - Throws: `recoverable(.systemCancelled)` when the wait ran out (after saying so).
    static func hold(_ context: CommandContext) async throws(CommandFailure) -> SignInLock {
        let seconds = waitSeconds(context.environment)
        let profile = context.profile, console = context.console
        do throws(VersolaError) {
            let stateHome = try context.directories().stateHome
            let lock = try await SignInLock.acquire(profile: profile, stateHome: stateHome, within: .seconds(seconds)) {
                owner in
                console.err(waitingLine(profile: profile, owner: owner, seconds: seconds))
            }
            guard let lock else {
                console.err(
                    "versola: gave up after \(seconds) s waiting for the other sign-in for profile \(profile); "
                        + "finish it in its browser, or set \(waitVariable)=SECONDS to wait longer.\n")
                throw VersolaError.recoverable(.systemCancelled)
            }
            return lock
        } catch {
            throw .versola(error)
        }
    }

    /// What a caller saw of the profile before an ask that may find it signed out or short of
    /// scope: the record's generation and the profile file's. Another process's sign-in changes
    /// both, the record first and then the profile it promotes (P11), and between the two the
    /// agent, still on the old settings, finds no session for them.
    struct Mark: Equatable, Sendable {
        let record: UInt64
        let profile: ProfileGeneration?
    }

    /// The profile as it is now, to read before an ask (``Recheck/afterWaitingOrChangedSince(_:)``).
    static func mark(_ context: CommandContext) -> Mark {
        guard let directories = try? context.directories() else { return Mark(record: 0, profile: nil) }
        return Mark(
            record: SignInLock.recordGeneration(profile: context.profile, stateHome: directories.stateHome),
            profile: ProfileGeneration(directories, profile: context.profile))
    }

    /// When a caller that needs a sign-in asks again once it holds the lock.
    enum Recheck {
        /// After waiting, or when the profile changed since the caller's `Mark`, read before the
        /// ask that found a sign-in needed: another process's sign-in may have ended between that
        /// answer and the lock, without a wait. An unchanged profile is not asked again (a
        /// request not to send needlessly).
        case afterWaitingOrChangedSince(Mark)
        /// After waiting, or when the profile has a record (a sign-in may have ended just
        /// before the lock was asked for); a profile with none asks once (R9).
        case afterWaitingOrWithRecord
    }

    /// S15 for a caller told the profile is signed out that cannot sign in itself (or was not
    /// asked to): whether another process's sign-in was running, or ended since `mark`, so that
    /// asking once more may find its session. Waits for a running one (saying so, bounded as
    /// ``hold(_:)`` is). A profile without a file has nobody signing in for it: false at once.
    static func anotherSignInEnded(_ context: CommandContext, since mark: Mark?) async throws(CommandFailure) -> Bool {
        guard let directories = try? context.directories(), ProfileGeneration(directories, profile: context.profile) != nil
        else { return false }
        let lock = try await hold(context)
        defer { lock.release() }
        return lock.waited || mark.map { self.mark(context) != $0 } ?? false
    }

    /// For a caller that found it needs a sign-in: takes the lock, then `ask`s again as `recheck`
    /// says (the sign-in it waited for, or one run by hand, may have left what it needs); only
    /// when there is no answer does it `signIn` (with the lock held).
    /// - Returns: the answer of the second ask, or nil after its own sign-in.
    static func signInOnce<Answer>(
        _ context: CommandContext, recheck: Recheck, ask: () async throws(CommandFailure) -> Answer?,
        signIn: () async throws(CommandFailure) -> Void
    ) async throws(CommandFailure) -> Answer? {
        let lock = try await hold(context)
        defer { lock.release() }
        let again: Bool
        switch recheck {
        case .afterWaitingOrChangedSince(let mark): again = lock.waited || self.mark(context) != mark
        case .afterWaitingOrWithRecord: again = lock.waited || lock.foundRecord
        }
        if again, let answer = try await ask() { return answer }
        try await signIn()
        return nil
    }

    /// The line a waiter shows once.
    static func waitingLine(profile: String, owner: Int32?, seconds: Int) -> String {
        let who = owner.map { " (pid \($0))" } ?? ""
        return "versola: waiting for the sign-in already running for profile \(profile)\(who), up to \(seconds) s "
            + "(\(waitVariable) sets it; Ctrl-C stops only this wait).\n"
    }

    /// `VERSOLA_SIGN_IN_WAIT` when it is a whole number of seconds from 1 to a day, else the default.
    static func waitSeconds(_ environment: [String: String]) -> Int {
        guard let text = environment[waitVariable], let value = Int(text), (1...86_400).contains(value) else {
            return defaultWait
        }
        return value
    }
}
