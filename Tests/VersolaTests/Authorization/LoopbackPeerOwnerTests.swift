import Foundation
import Testing
import VersolaTesting

@testable import Versola
import VersolaHTTP

/// L8: the owner of a loopback connection's far end, read from the kernel's socket tables.
@Suite struct LoopbackPeerOwnerTests {
    /// A table as the kernel writes it: the listener (port 0x8D2F = 36143) with two
    /// connections to it, from port 0xA1B2 (uid 1001) and from 0xA1B3 (uid 0, over IPv6).
    static let ipv4 = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:8D2F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1193 1
           1: 0100007F:A1B2 0100007F:8D2F 01 00000000:00000000 00:00000000 00000000  1001        0 4242 1
           2: 0100007F:8D2F 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000     0        0 4243 1
           3: 0A00020F:A1B4 0A000201:8D2F 01 00000000:00000000 00:00000000 00000000  1002        0 4244 1
        """
    static let ipv6 = """
          sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 00000000000000000000000001000000:A1B3 00000000000000000000000001000000:8D2F 01 00000000:00000000 00:00000000 00000000     0        0 77 1
           1: 0000000000000000FFFF00000100007F:A1B5 0000000000000000FFFF00000100007F:8D2F 01 00000000:00000000 00:00000000 00000000  1003        0 78 1
        """

    @Test("L8: the far end's row gives its owner; the listener's own row and other hosts' rows do not")
    func ownerOfTheFarEnd() {
        #expect(LoopbackPeerOwner.owner(in: Self.ipv4, peerPort: 0xA1B2, localPort: 0x8D2F) == 1001)
        // The listener's side of the same connection is not the peer's.
        #expect(LoopbackPeerOwner.owner(in: Self.ipv4, peerPort: 0x8D2F, localPort: 0xA1B2) == 0)
        // A connection between other addresses with the same ports is not a loopback peer.
        #expect(LoopbackPeerOwner.owner(in: Self.ipv4, peerPort: 0xA1B4, localPort: 0x8D2F) == nil)
        #expect(LoopbackPeerOwner.owner(in: Self.ipv6, peerPort: 0xA1B3, localPort: 0x8D2F) == 0)
        #expect(LoopbackPeerOwner.owner(in: Self.ipv6, peerPort: 0xA1B5, localPort: 0x8D2F) == 1003)
        #expect(LoopbackPeerOwner.owner(in: Self.ipv4, peerPort: 0xBEEF, localPort: 0x8D2F) == nil)
    }

    @Test("L8: a closed earlier connection on the same ports (TIME_WAIT: no inode, uid 0) is not the peer's owner")
    func closedConnectionsOwnNothing() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:A1B2 0100007F:8D2F 06 00000000:00000000 03:00000F5A 00000000     0        0 0 3
               1: 0100007F:A1B2 0100007F:8D2F 01 00000000:00000000 00:00000000 00000000  1001        0 4242 1
            """
        #expect(LoopbackPeerOwner.owner(in: table, peerPort: 0xA1B2, localPort: 0x8D2F) == 1001)
        let closedOnly = table.split(separator: "\n").prefix(2).joined(separator: "\n")
        #expect(LoopbackPeerOwner.owner(in: closedOnly, peerPort: 0xA1B2, localPort: 0x8D2F) == nil)
    }

    @Test("L8: a connection is served only from this user; with no table at all nothing can be checked")
    func verdicts() throws {
        let directory = try TemporaryDirectory()
        let own = getuid()
        let other = own == 1001 ? 1002 : 1001
        let table = Self.ipv4.replacingOccurrences(of: "  1001  ", with: "  \(own)  ")
            .replacingOccurrences(of: "  1002  ", with: "  \(other)  ")
        try table.write(toFile: directory.file("tcp"), atomically: true, encoding: .utf8)
        let owner = LoopbackPeerOwner(tables: [directory.file("tcp"), directory.file("missing")])
        #expect(owner.verdict(for: HTTPServerPeer(host: "127.0.0.1", port: 0xA1B2), localPort: 0x8D2F) == .ownUser)
        #expect(owner.allows(HTTPServerPeer(host: "127.0.0.1", port: 0xA1B2), localPort: 0x8D2F))
        #expect(owner.verdict(for: HTTPServerPeer(host: "127.0.0.1", port: 0xBEEF), localPort: 0x8D2F) == .notFound)
        #expect(!owner.allows(HTTPServerPeer(host: "127.0.0.1", port: 0xBEEF), localPort: 0x8D2F))
        #expect(!owner.allows(nil, localPort: 0x8D2F))
        let none = LoopbackPeerOwner(tables: [directory.file("missing")])
        #expect(none.verdict(for: HTTPServerPeer(host: "127.0.0.1", port: 0xA1B2), localPort: 0x8D2F) == .unknown)
    }
}
