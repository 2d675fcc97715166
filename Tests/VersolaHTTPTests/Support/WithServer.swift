@testable import VersolaHTTP
import VersolaTesting

/// Runs `body` with `server`, then stops it, also when `body` throws (a failed `#require` or an
/// unexpected error), so a failing test never leaves it listening. A test may stop the server
/// itself first: a second stop does nothing.
func withServer(_ server: HTTPServer, _ body: (HTTPServer) async throws -> Void) async throws {
    try await withStopping(server, stop: { await $0.stop() }, body)
}
