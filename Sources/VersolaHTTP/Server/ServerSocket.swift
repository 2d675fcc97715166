import Glibc

/// The socket system calls the server uses, over plain descriptors. Whoever holds a
/// descriptor owns it: the accept thread owns the listener, each connection thread its
/// connection.
enum ServerSocket {
    /// Opens, binds and listens on a loopback address. Returns the descriptor and the port
    /// actually bound (the kernel's pick when `port` is 0).
    static func listen(
        address: HTTPServerAddress, port: UInt16, backlog: Int32 = 128
    ) throws(HTTPServerError) -> (descriptor: Int32, port: UInt16) {
        let family = address == .ipv4Loopback ? AF_INET : AF_INET6
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            let code = errno
            if code == EAFNOSUPPORT { throw .addressUnavailable(address: address) }
            throw .socketFailed(operation: "socket", code: code)
        }
        var success = false
        defer { if !success { close(descriptor) } }

        var one: Int32 = 1
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
        else { throw .socketFailed(operation: "setsockopt(SO_REUSEADDR)", code: errno) }

        let bound = try bindLoopback(descriptor, address: address, port: port)
        guard bound == 0 else {
            let code = errno
            switch code {
            case EADDRINUSE: throw .addressInUse(address: address, port: port)
            case EACCES: throw .permissionDenied(address: address, port: port)
            case EADDRNOTAVAIL, EAFNOSUPPORT: throw .addressUnavailable(address: address)
            default: throw .socketFailed(operation: "bind", code: code)
            }
        }
        guard Glibc.listen(descriptor, backlog) == 0 else {
            let code = errno
            if code == EADDRINUSE { throw .addressInUse(address: address, port: port) }
            throw .socketFailed(operation: "listen", code: code)
        }
        guard let local = localPort(descriptor) else {
            throw .socketFailed(operation: "getsockname", code: errno)
        }
        success = true
        return (descriptor, local)
    }

    /// Binds `descriptor` to the loopback address and port (an IPv6 socket to IPv6 only);
    /// returns bind's result.
    private static func bindLoopback(
        _ descriptor: Int32, address: HTTPServerAddress, port: UInt16
    ) throws(HTTPServerError) -> Int32 {
        var one: Int32 = 1
        switch address {
        case .ipv4Loopback:
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            socketAddress.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
            return withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6Loopback:
            guard setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
            else { throw .socketFailed(operation: "setsockopt(IPV6_V6ONLY)", code: errno) }
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port.bigEndian
            socketAddress.sin6_addr = in6addr_loopback
            return withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    /// The local port of a bound socket.
    static func localPort(_ descriptor: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        return endpoint(of: storage)?.port
    }

    /// Accepts one connection. Returns nil with `errno` set when accept failed.
    static func accept(_ listener: Int32) -> (descriptor: Int32, peer: HTTPServerPeer)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let descriptor = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { CloseOnExec.accept(listener, $0, &length) }
        }
        guard descriptor >= 0 else { return nil }
        return (descriptor, endpoint(of: storage) ?? HTTPServerPeer(host: "", port: 0))
    }

    /// The numeric host and port stored in a socket address.
    static func endpoint(of storage: sockaddr_storage) -> HTTPServerPeer? {
        var storage = storage
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer -> HTTPServerPeer? in
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            switch family {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    guard inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil else { return nil }
                    return HTTPServerPeer(host: Self.string(text), port: UInt16(bigEndian: address.pointee.sin_port))
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    guard inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) != nil else { return nil }
                    return HTTPServerPeer(host: Self.string(text), port: UInt16(bigEndian: address.pointee.sin6_port))
                }
            default:
                return nil
            }
        }
    }

    private static func string(_ text: [CChar]) -> String {
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Sets the receive and send timeouts and disables Nagle's algorithm on a connection.
    static func configureConnection(_ descriptor: Int32, timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(
            tv_sec: max(0, Int(seconds)), tv_usec: max(0, Int(attoseconds / 1_000_000_000_000)))
        if value.tv_sec == 0 && value.tv_usec == 0 { value.tv_usec = 1 }  // 0 would mean "forever"
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes every byte (never raising SIGPIPE). False when the connection failed.
    static func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let written = send(descriptor, base + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    /// The outcome of one read.
    enum ReadResult {
        case bytes(Int)
        case endOfStream
        case timedOut
        case failed
    }

    /// Reads once into `buffer`, retrying on EINTR.
    static func receive(_ descriptor: Int32, into buffer: inout [UInt8]) -> ReadResult {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { return .bytes(count) }
            if count == 0 { return .endOfStream }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .timedOut
            default: return .failed
            }
        }
    }

    /// Closes so that the peer sees a TCP reset (`SO_LINGER` with a zero timeout).
    static func resetAndClose(_ descriptor: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close(descriptor)
    }

    /// Sends FIN, then reads and drops what the peer still sends (for a short while), so
    /// that a last error answer is not destroyed by a reset caused by unread input.
    static func lingeringClose(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
        configureConnection(descriptor, timeout: .milliseconds(500))
        var scratch = [UInt8](repeating: 0, count: 4096)
        var drained = 0
        while drained < 256 * 1024, case .bytes(let count) = receive(descriptor, into: &scratch) {
            drained += count
        }
        close(descriptor)
    }
}
