import VersolaHTTP
import Foundation

/// Remembers, per task, which exclusive locks the task holds, so that a nested
/// `withExclusiveAccess` on the same lock runs its body at once instead of deadlocking.
///
/// Task-local values are inherited by child tasks (structured concurrency inside the body
/// shares the lock, as it should) and by `Task {}` created inside the body, which must not
/// outlive the body if it calls `withExclusiveAccess` itself.
final class ExclusiveAccessIdentity: Sendable, Hashable {
    @TaskLocal private static var held: Set<ObjectIdentifier> = []

    init() {}

    /// Whether the current task is inside a body holding this lock.
    var isHeldByCurrentTask: Bool { Self.held.contains(ObjectIdentifier(self)) }

    /// Runs `body` with this lock marked as held by the current task.
    nonisolated(nonsending) func whileHeld<R>(_ body: () async throws(VersolaError) -> R)
        async throws(VersolaError) -> R
    {
        var marked = Self.held
        marked.insert(ObjectIdentifier(self))
        let result: Result<R, VersolaError> = await Self.$held.withValue(marked) {
            do throws(VersolaError) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    static func == (left: ExclusiveAccessIdentity, right: ExclusiveAccessIdentity) -> Bool { left === right }

    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
