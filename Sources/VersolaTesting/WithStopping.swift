/// Runs `body` with `resource`, then `stop`s it, also when `body` throws (a failed `#require`
/// or an unexpected error), so a failing test never leaves a server listening, a provider
/// running or an agent alive.
///
/// The stop is awaited before this returns, unlike a `defer { Task { … } }`, which lets the test
/// end (and the next one start) while the stop is still under way. `stop` must do nothing when
/// the body already stopped the resource itself.
public func withStopping<Resource>(
    _ resource: Resource, stop: (Resource) async -> Void, _ body: (Resource) async throws -> Void
) async throws {
    do {
        try await body(resource)
    } catch {
        await stop(resource)
        throw error
    }
    await stop(resource)
}
