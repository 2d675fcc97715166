import Dispatch
import Foundation
import Synchronization
import Versola
import VersolaHTTP

/// Ctrl-C (SIGINT) while `versola login` waits is the person cancelling (E7): the login is
/// cancelled through the engine, so the session wipes the pending request and returns to the
/// state it had before, and the command says so. A second Ctrl-C ends the process at once.
///
/// ```swift
/// let interruption = LoginInterruption.watch { await session.cancelLogin() }
/// defer { interruption.stop() }
/// ```
///
/// Unchecked `Sendable`: its one mutable part is the counter (atomic); the dispatch source is
/// thread-safe, set once in the initializer and only cancelled afterwards.
final class LoginInterruption: @unchecked Sendable {
    private let source: any DispatchSourceSignal
    private let interrupted = Atomic<Int>(0)

    private init(cancel: @escaping @Sendable () async -> Void) {
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [weak self] in
            guard let self else { return }
            if self.interrupted.add(1, ordering: .sequentiallyConsistent).newValue == 1 {
                Task { await cancel() }
            } else {
                _exit(128 + SIGINT)
            }
        }
    }

    /// Starts treating SIGINT as a cancel; `cancel` runs once, on the first one.
    static func watch(cancel: @escaping @Sendable () async -> Void) -> LoginInterruption {
        let watcher = LoginInterruption(cancel: cancel)
        // The signal goes to the dispatch source only, not to the default action (exit 130).
        signal(SIGINT, SIG_IGN)
        watcher.source.resume()
        return watcher
    }

    /// Gives SIGINT its default action back.
    func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
