import Foundation
import Glibc

/// A listening socket on 127.0.0.1 that never accepts and whose accept queue is already full,
/// so a new connection attempt gets no answer to its SYN: a connect timeout with nothing written.
final class FullBacklogListener: Sendable {
    let port: UInt16
    private let descriptors: [Int32]

    init?() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard ready else {
            close(listener)
            return nil
        }
        var opened = [listener]
        // Fill the accept queue (a backlog of 0 still admits one or two) with non-blocking connects.
        for _ in 0..<3 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard client >= 0 else { continue }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
            }
            opened.append(client)
        }
        port = UInt16(bigEndian: address.sin_port)
        descriptors = opened
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }
}
