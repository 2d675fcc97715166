import CVersolaSystem
import Glibc
import Testing
@testable import VersolaCrypto

@Suite struct DigestAndRandomTests {
    // FIPS 180-4 example "abc".
    @Test func sha2KnownAnswers() {
        let abc = Array("abc".utf8)
        #expect(SHA256.hash(abc) == TestBytes.hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(
            SHA384.hash(abc)
                == TestBytes.hex(
                    "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"))
        #expect(
            SHA512.hash(abc)
                == TestBytes.hex(
                    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
                ))
        #expect(SHA256.hash([UInt8]()) == TestBytes.hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    }

    // FIPS 180-4 example: one million "a", which the one-shot digest reads in one call.
    @Test func sha2OfALongInput() {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hash(million) == TestBytes.hex("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"))
    }

    @Test func digestAcceptsNonContiguousSequences() {
        let lazy = "abc".utf8.lazy.map { $0 }
        #expect(SHA256.hash(lazy) == SHA256.hash(Array("abc".utf8)))
    }

    /// A digest resumed from a saved prefix state is the digest of the whole message, for
    /// prefixes and rests on either side of the 64-byte block boundaries.
    @Test func sha256ResumedFromAPrefixIsTheWholeDigest() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 41 &+ 3) }
        for prefixLength in [0, 1, 55, 63, 64, 65, 128, 175, 300] {
            let prefix = SHA256Prefix(Array(message[..<prefixLength]))
            for end in Set([prefixLength, prefixLength + 1, min(prefixLength + 64, 300), 300]) where end <= 300 {
                var digest = [UInt8](repeating: 0, count: 32)
                message.withUnsafeBufferPointer { bytes in
                    digest.withUnsafeMutableBufferPointer { prefix.finish(UnsafeBufferPointer(rebasing: bytes[prefixLength..<end]), into: $0) }
                }
                #expect(digest == SHA256.hash(message[..<end]), "prefix \(prefixLength), end \(end)")
            }
        }
    }

    @Test func randomBytesHaveTheRequestedLengthAndDiffer() {
        #expect(SecureRandom.bytes(0).isEmpty)
        let a = SecureRandom.bytes(32)
        let b = SecureRandom.bytes(32)
        #expect(a.count == 32)
        #expect(a != b)
    }

    /// Short draws come from a page of the kernel's bytes: across several refills of the page,
    /// no draw repeats another and none is the zeros a wiped, unrefilled page would give.
    @Test func shortDrawsAcrossRefillsNeverRepeat() {
        var seen = Set<[UInt8]>()
        for _ in 0..<2_000 {
            let draw = SecureRandom.bytes(16)
            #expect(draw.contains { $0 != 0 })
            seen.insert(draw)
        }
        #expect(seen.count == 2_000)
        // Sizes beside the page's limit of 64 bytes, drawn between short ones.
        for size in [1, 63, 64, 65, 200] {
            #expect(SecureRandom.bytes(size).count == size)
        }
    }

    /// A forked child must not hand out the bytes its parent hands out next: the kernel wipes
    /// the page in the child (MADV_WIPEONFORK), so the child draws afresh. Without that the two
    /// draws below are equal.
    @Test func aForkedChildDrawsOtherBytesThanItsParent() throws {
        _ = SecureRandom.bytes(16)  // the page of this thread now holds unread bytes
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        // Made before the fork: the child of a process with other threads may only call what is
        // async-signal-safe, and a Swift allocation can wait forever there on a lock (the
        // runtime's metadata cache) that another thread held at the fork (seen under TSan).
        let draw = UnsafeMutablePointer<UInt8>.allocate(capacity: 16)
        defer { draw.deallocate() }
        let writeEnd = ends[1]
        let child = fork()
        if child == 0 {
            let status = versola_random_bytes(draw, 16)
            _ = write(writeEnd, draw, status == 0 ? 16 : 0)
            _exit(0)
        }
        close(ends[1])
        defer { close(ends[0]) }
        try #require(child > 0)
        let parentDraw = SecureRandom.bytes(16)
        var childDraw = [UInt8](repeating: 0, count: 16)
        var got = 0
        while got < 16 {
            let count = childDraw.withUnsafeMutableBytes { read(ends[0], $0.baseAddress! + got, 16 - got) }
            if count <= 0 { break }
            got += count
        }
        var status: Int32 = 0
        waitpid(child, &status, 0)
        #expect(got == 16)
        #expect(childDraw != parentDraw)
    }

    /// `getrandom` may return fewer bytes than asked above 256; every byte must still be drawn.
    @Test func largeRandomDrawsAreFilledThroughout() {
        let bytes = SecureRandom.bytes(1 << 20)
        #expect(bytes.count == 1 << 20)
        // A run of 64 zero bytes has probability 2^-512: it means a part was never written.
        let zeroRuns = stride(from: 0, to: bytes.count, by: 64).filter { start in
            bytes[start..<(start + 64)].allSatisfy { $0 == 0 }
        }
        #expect(zeroRuns.isEmpty)
    }

    @Test func constantTimeComparison() {
        #expect(constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(constantTimeEqual([], []))
    }
}
