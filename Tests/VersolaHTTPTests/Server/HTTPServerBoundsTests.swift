import Foundation
import Glibc
import Testing

@testable import VersolaHTTP

/// The bounds that keep idle or slow connections from shutting a server out (L6): a lifetime
/// per connection, and the oldest connection making room for a new one when full.
@Suite struct HTTPServerBoundsTests {
    private static let hello: @Sendable (HTTPServerRequest) async -> HTTPServerAction = { _ in .respond(.text("hello")) }

    @Test func aFullServerThatDropsTheOldestStillServesANewConnection() async throws {
        let limits = HTTPServerLimits(maxConnections: 2, dropsOldestWhenFull: true)
        let server = try HTTPServer.start(limits: limits, handler: Self.hello)
        try await withServer(server) { server in
            let (address, port) = (server.address, server.port)
            let outcome = await offPool { () -> (Int?, RawClient.Ending?, Int?) in
                // Two idle connections fill the server; each is accepted before the next connects.
                guard let first = RawClient(address: address, port: port), let second = RawClient(address: address, port: port)
                else { return (nil, nil, nil) }
                second.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
                _ = second.readResponse()
                guard let third = RawClient(address: address, port: port) else { return (nil, nil, nil) }
                third.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
                let status = try? third.readResponse().get().status
                let firstEnding = first.readUntilEnd().ending
                second.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
                return (status, firstEnding, try? second.readResponse().get().status)
            }
            #expect(outcome.0 == 200, "the new connection is served")
            #expect(outcome.1 == .closed, "the oldest made room")
            #expect(outcome.2 == 200, "the others are untouched")
        }
    }

    @Test func aConnectionLifetimeEndsATricklingRequestBeforeTheReadTimeout() async throws {
        // A 60 s read timeout that a trickling client would keep resetting; the lifetime ends it.
        let limits = HTTPServerLimits(readTimeout: .seconds(60), connectionLifetime: .milliseconds(300))
        let server = try HTTPServer.start(limits: limits, handler: Self.hello)
        try await withServer(server) { server in
            let (address, port) = (server.address, server.port)
            let status = await offPool { () -> Int? in
                guard let client = RawClient(address: address, port: port, timeoutSeconds: 30) else { return nil }
                client.send("GET / HTTP/1.1\r\n")
                client.send("Host: h\r\n")
                return try? client.readResponse().get().status
            }
            #expect(status == 408)
        }
    }

    @Test func withoutALifetimeKeepAliveConnectionsStayOpen() async throws {
        let server = try HTTPServer.start(limits: HTTPServerLimits(), handler: Self.hello)
        try await withServer(server) { server in
            let (address, port) = (server.address, server.port)
            let statuses = await offPool { () -> [Int?] in
                guard let client = RawClient(address: address, port: port) else { return [] }
                return (0..<3).map { _ in
                    client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
                    return try? client.readResponse().get().status
                }
            }
            #expect(statuses == [200, 200, 200])
        }
    }
}
