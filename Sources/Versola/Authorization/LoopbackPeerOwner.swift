import Foundation
import VersolaHTTP

/// Whose process holds the other end of a loopback TCP connection (L8), read from the kernel's
/// socket tables (`/proc/net/tcp` and `/proc/net/tcp6`).
///
/// The redirect listener and the one-time end-session page serve the person's own browser; any
/// local user can connect to a loopback port, and the address they would need is on the
/// browser's command line, which every user can read in `/proc`. So a connection is served only
/// when the socket at its far end belongs to this process's uid: the kernel lists each socket
/// with its owner, and the far end of an accepted connection is the row whose local port is
/// the peer's and whose remote port is the listener's.
struct LoopbackPeerOwner: Sendable {
    /// The tables to read.
    var tables: [String] = ["/proc/net/tcp", "/proc/net/tcp6"]

    /// Who connected.
    enum Verdict: Equatable {
        /// A process of this user.
        case ownUser
        /// A process of another user (its uid).
        case otherUser(uid_t)
        /// No table could be read (no procfs): nothing can be checked.
        case unknown
        /// The tables were read and hold no such connection (it went away).
        case notFound
    }

    /// The owner of the socket at `peer` connected to the listener's `localPort`.
    func verdict(for peer: HTTPServerPeer?, localPort: UInt16) -> Verdict {
        guard let peer else { return .notFound }
        var readAny = false
        for table in tables {
            guard let text = Self.read(table) else { continue }
            readAny = true
            if let uid = Self.owner(in: text, peerPort: peer.port, localPort: localPort) {
                return uid == getuid() ? .ownUser : .otherUser(uid)
            }
        }
        return readAny ? .notFound : .unknown
    }

    /// Whether a connection from `peer` may be served: it comes from this user, or nothing
    /// can tell (no procfs).
    func allows(_ peer: HTTPServerPeer?, localPort: UInt16) -> Bool {
        switch verdict(for: peer, localPort: localPort) {
        case .ownUser, .unknown: true
        case .otherUser, .notFound: false
        }
    }

    /// A procfs file's text (its size reads as 0, so it is read to its end, never by size).
    static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += chunk[0..<count]
        }
    }

    /// The uid of the row whose local end is a loopback address at `peerPort` and whose remote
    /// end is a loopback address at `localPort`, in one table's text.
    static func owner(in table: String, peerPort: UInt16, localPort: UInt16) -> uid_t? {
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // A row with no inode is a socket no process holds any more (TIME_WAIT, orphaned):
            // its uid reads 0 whoever owned it, and an earlier connection's may share the ports.
            guard fields.count > 9, fields[9] != "0", let local = Endpoint(fields[1]), let remote = Endpoint(fields[2]),
                local.port == peerPort, remote.port == localPort, local.isLoopback, remote.isLoopback,
                let uid = uid_t(fields[7])
            else { continue }
            return uid
        }
        return nil
    }

    /// `ADDRESS:PORT` as the tables write it: the address in hexadecimal, 32-bit words in host
    /// order (little-endian here), the port in hexadecimal.
    struct Endpoint {
        var address: Substring
        var port: UInt16

        init?(_ field: Substring) {
            guard let colon = field.firstIndex(of: ":"), let port = UInt16(field[field.index(after: colon)...], radix: 16)
            else { return nil }
            address = field[..<colon]
            self.port = port
        }

        /// 127.0.0.0/8, `::1`, or 127.0.0.0/8 mapped into IPv6.
        var isLoopback: Bool {
            switch address.count {
            case 8: return address.hasSuffix("7F")
            case 32:
                return address == "00000000000000000000000001000000"
                    || (address.hasPrefix("0000000000000000FFFF0000") && address.hasSuffix("7F"))
            default: return false
            }
        }
    }
}
