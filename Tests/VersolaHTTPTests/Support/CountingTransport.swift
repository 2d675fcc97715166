import Synchronization

@testable import VersolaHTTP

/// Wraps a transport and counts the calls made through it (for cells the server cannot count,
/// such as a refused connection).
final class CountingTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let count = Atomic<Int>(0)

    init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    var callCount: Int { count.load(ordering: .relaxed) }

    func send(_ request: HTTPRequest, options: TransportOptions) async throws(TransportError) -> HTTPResponse {
        count.add(1, ordering: .relaxed)
        return try await inner.send(request, options: options)
    }
}
