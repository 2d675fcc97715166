import Glibc

/// A port on 127.0.0.1 where a connection is refused, for as long as the value lives: a
/// socket bound there without listening. (Binding and closing a port would let another
/// test's server take it in between.)
public final class RefusingPort: @unchecked Sendable {
    /// The refusing port.
    public let port: UInt16
    private let descriptor: Int32

    /// Binds a socket to 127.0.0.1 on an ephemeral port without listening; nil when it cannot.
    public init?() {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        close(descriptor)
    }
}
