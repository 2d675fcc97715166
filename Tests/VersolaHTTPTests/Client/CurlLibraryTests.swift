import Foundation
import Testing

@testable import VersolaHTTP

/// libcurl is loaded by the first request, not linked: a process that sends nothing never maps
/// it, and one that cannot load it gets a configuration error naming the package, not a crash.
@Suite struct CurlLibraryTests {
    /// Whether a libcurl is mapped into this process (/proc/self/maps, read to its end: its size
    /// says 0). The C library's line shows the list is really read.
    static func libcurlMapped() throws -> Bool {
        guard let file = FileHandle(forReadingAtPath: "/proc/self/maps"), let bytes = try file.readToEnd() else {
            throw CocoaError(.fileReadUnknown)
        }
        let maps = String(decoding: bytes, as: UTF8.self)
        guard maps.contains("/libc.so.6") else { throw CocoaError(.fileReadCorruptFile) }
        return maps.contains("/libcurl.so")
    }

    @Test func libcurlIsMappedOnlyWhenTheFirstRequestNeedsIt() async {
        // A process of its own: in this one, other tests' requests have loaded it long ago.
        await #expect(processExitsWith: .success) {
            guard try !CurlLibraryTests.libcurlMapped() else { exit(10) }
            let server = try ScriptedServer([.respond(status: 204)])
            defer { server.stop() }
            let transport = CurlTransport()
            guard try !CurlLibraryTests.libcurlMapped() else { exit(11) }
            let response = try await transport.send(HTTPRequest(url: server.url("/")), options: TransportOptions())
            guard response.status == 204 else { exit(12) }
            guard try CurlLibraryTests.libcurlMapped() else { exit(13) }
        }
    }

    @Test("E4: a library that cannot be loaded is a configuration error naming its package")
    func aLibraryThatCannotBeLoadedIsAConfigurationErrorNamingItsPackage() throws {
        let missing = CurlLibrary(name: "libversola-no-such-curl.so.4")
        guard case .failure(let error) = missing.load() else {
            Issue.record("a library that does not exist was loaded")
            return
        }
        #expect(error == .libraryUnavailable(library: missing.name, reason: Self.reason(of: error)))
        #expect(Self.reason(of: error).contains("libversola-no-such-curl.so.4"))
        #expect(!error.requestBytesWritten)
        #expect(error.networkFailure == nil)
        guard case .misconfigured(let advice) = error.httpFailure(failedRequests: 1, elapsed: .zero) else {
            Issue.record("not a configuration error: \(error)")
            return
        }
        #expect(advice.contains("libversola-no-such-curl.so.4"))
        #expect(advice.contains("apt install libcurl4") && advice.contains("libcurl4t64"))
        // Asked again, the loader tries again and fails again (nothing was left half loaded).
        guard case .failure(let again) = missing.load() else {
            Issue.record("loaded on the second try")
            return
        }
        #expect(again == error)
    }

    @Test func aLibraryWithoutLibcurlsFunctionsIsRefused() {
        // The C library loads, but has none of the functions the transport calls.
        guard case .failure(let error) = CurlLibrary(name: "libc.so.6").load() else {
            Issue.record("the C library was taken for libcurl")
            return
        }
        #expect(Self.reason(of: error) == "libc.so.6 has no function curl_global_init")
    }

    @Test func aTransportWhoseLibraryCannotLoadSendsNothing() async throws {
        let server = try ScriptedServer([.respond(status: 204)])
        defer { server.stop() }
        let transport = CurlTransport(library: CurlLibrary(name: "libversola-no-such-curl.so.4"))
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(url: server.url("/")), options: TransportOptions())
        }
        guard case .libraryUnavailable(let library, _) = error else {
            Issue.record("not the missing library: \(String(describing: error))")
            return
        }
        #expect(library == "libversola-no-such-curl.so.4")
        #expect(server.connectionCount == 0)
        // The system's libcurl still works in the same process.
        let response = try await CurlTransport().send(HTTPRequest(url: server.url("/")), options: TransportOptions())
        #expect(response.status == 204)
    }

    private static func reason(of error: TransportError) -> String {
        if case .libraryUnavailable(_, let reason) = error { return reason }
        return ""
    }
}
