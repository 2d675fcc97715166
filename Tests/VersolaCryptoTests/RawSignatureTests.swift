import Testing
@testable import VersolaCrypto

/// The DER-to-`r || s` conversion of ECDSA signatures, read in place (no BIGNUMs): DER's
/// minimal INTEGERs are shorter than 32 bytes when the value is small, and carry a leading zero
/// when the top bit is set; both must come out as exactly 32 bytes each.
@Suite struct RawSignatureTests {
    static func der(_ r: [UInt8], _ s: [UInt8]) -> [UInt8] {
        let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(s.count)] + s
        return [0x30, UInt8(body.count)] + body
    }

    @Test func fullLengthShortAndPaddedIntegersComeOutAs32BytesEach() throws {
        let high = [UInt8](repeating: 0xA5, count: 32)  // top bit set: DER adds a zero byte
        let short = [UInt8](repeating: 0x11, count: 31)  // a small value: DER drops a byte
        let raw = try rawSignature(der: Self.der([0] + high, short), size: 32)
        #expect(raw == high + [0] + short)
        let tiny = try rawSignature(der: Self.der([0x01], [0x7F] + [UInt8](repeating: 0, count: 31)), size: 32)
        #expect(tiny == [UInt8](repeating: 0, count: 31) + [0x01] + [0x7F] + [UInt8](repeating: 0, count: 31))
    }

    @Test(arguments: [
        [UInt8](),
        [0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],  // not a SEQUENCE
        [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],  // length past the end
        [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00],  // trailing byte
        [0x30, 0x06, 0x04, 0x01, 0x01, 0x02, 0x01, 0x01],  // not an INTEGER
        [0x30, 0x05, 0x02, 0x00, 0x02, 0x01, 0x01],  // empty INTEGER
        [0x30, 0x03, 0x02, 0x01, 0x01],  // one INTEGER only
    ])
    func malformedDERIsAnErrorNotATrap(_ der: [UInt8]) {
        #expect(throws: CryptoError.self) { try rawSignature(der: der, size: 32) }
    }

    @Test func anIntegerTooLongForTheCurveIsRefused() {
        let long = [UInt8](repeating: 0x22, count: 33)
        #expect(throws: CryptoError.self) { try rawSignature(der: Self.der(long, [0x01]), size: 32) }
    }

    // Every one of many real signatures (some with short components) verifies after conversion.
    @Test func manyRealSignaturesVerify() throws {
        let key = try P256PrivateKey()
        let message = Array("header.payload".utf8)
        for _ in 0..<300 {
            let signature = try key.signES256(message)
            #expect(signature.count == 64)
            #expect(key.verificationKey.verify(signature: signature, message: message, algorithm: .es256))
        }
    }
}
