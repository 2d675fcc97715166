import Foundation

/// The few Unix-domain socket calls the agent and its clients need, as plain POSIX.
enum UnixSocket {
    /// Why a socket call failed: the call and `errno`.
    struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        var operation: String
        var code: Int32

        init(_ operation: String, code: Int32 = errno) {
            self.operation = operation
            self.code = code
        }

        var description: String { "\(operation): \(String(cString: strerror(code)))" }
    }

    /// The largest request or response line accepted (responses carry HTTP bodies).
    static let maximumLineLength = 4 << 20

    /// `sockaddr_un` for `path`, or nil when it does not fit.
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
            buffer[bytes.count] = 0
        }
        return address
    }

    /// Binds and listens on `path` (which must not exist), mode 0600.
    static func listen(at path: String) throws(Failure) -> Int32 {
        guard var address = address(path) else { throw Failure("socket path too long", code: ENAMETOOLONG) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("socket") }
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        umask(previous)
        guard bound == 0 else {
            let failure = Failure("bind")
            close(descriptor)
            throw failure
        }
        chmod(path, 0o600)
        guard Glibc.listen(descriptor, 128) == 0 else {
            let failure = Failure("listen")
            close(descriptor)
            throw failure
        }
        return descriptor
    }

    /// Connects to `path`.
    /// - Throws: with `ENOENT` (no socket) or `ECONNREFUSED` (a stale socket) when nobody listens.
    static func connect(to path: String) throws(Failure) -> Int32 {
        guard var address = address(path) else { throw Failure("socket path too long", code: ENAMETOOLONG) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("socket") }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let failure = Failure("connect")
            close(descriptor)
            throw failure
        }
        return descriptor
    }

    /// The user id of the process at the other end (`SO_PEERCRED`).
    static func peerUID(_ descriptor: Int32) -> uid_t? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: three 32-bit fields.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        let result = withUnsafeMutablePointer(to: &credentials) {
            getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, $0, &length)
        }
        guard result == 0, length == 12 else { return nil }
        return credentials.1
    }

    /// Writes all of `bytes`. False when the peer went away.
    @discardableResult
    static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                send(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Reads bytes up to (not including) the next newline. Nil at end of stream, past `limit`
    /// bytes, or at `deadline`. `pending` keeps bytes read beyond the line for the next call.
    static func readLine(
        from descriptor: Int32, pending: inout [UInt8], limit: Int = maximumLineLength,
        deadline: ContinuousClock.Instant? = nil
    ) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                return line
            }
            if pending.count > limit { return nil }
            if let deadline, !readable(descriptor, before: deadline) { return nil }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return nil }
            pending += chunk[0..<count]
        }
    }

    /// Reads exactly `count` bytes, taking those in `pending` first. Nil when the stream ends sooner.
    static func readBytes(_ count: Int, from descriptor: Int32, pending: inout [UInt8]) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while pending.count < count {
            let read = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if read < 0, errno == EINTR { continue }
            if read <= 0 { return nil }
            pending += chunk[0..<read]
        }
        let bytes = Array(pending[..<count])
        pending.removeSubrange(..<count)
        return bytes
    }

    /// Waits until `descriptor` can be read (or is closed); false once `deadline` passed.
    private static func readable(_ descriptor: Int32, before deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(ErrorReport.milliseconds(left), 60_000)) + 1)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }  // recv reports the failure
        }
    }

    /// Bounds each send on `descriptor` to `timeout` (a caller that stops reading).
    static func limitWrites(_ descriptor: Int32, to timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }
}
