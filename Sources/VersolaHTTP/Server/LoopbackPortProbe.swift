import Glibc

/// Finds a loopback port to register: a redirect URI registered with a server that matches it
/// exactly, port included (RFC 7591 registrations often do), must name a port that a later
/// login can listen on.
///
/// ```swift
/// if let port = LoopbackPortProbe.available(0) { print("register http://127.0.0.1:\(port)/callback") }
/// ```
public enum LoopbackPortProbe {
    /// `port` when it can be listened on now on 127.0.0.1 (the kernel's pick when 0), else nil.
    /// The probe's socket is closed again at once.
    public static func available(_ port: UInt16) -> UInt16? {
        guard let (descriptor, bound) = try? ServerSocket.listen(address: .ipv4Loopback, port: port, backlog: 1) else {
            return nil
        }
        close(descriptor)
        return bound
    }
}
