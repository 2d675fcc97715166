import Testing
@testable import VersolaCrypto

@Suite struct AESGCMTests {
    // The GCM specification's test cases 13 and 14 (256-bit zero key, zero IV).
    @Test func knownAnswers() throws {
        let key = try SymmetricKey(bytes: [UInt8](repeating: 0, count: 32))
        let nonce = [UInt8](repeating: 0, count: 12)
        let empty = try AESGCM.seal([], key: key, nonce: nonce, authenticating: [])
        #expect(empty == nonce + TestBytes.hex("530f8afbc74536b9a963b4f1c4cb738b"))
        let block = try AESGCM.seal([UInt8](repeating: 0, count: 16), key: key, nonce: nonce, authenticating: [])
        #expect(
            block
                == nonce + TestBytes.hex("cea7403d4d606b6e074ec5d3baf39d18") + TestBytes.hex("d0d1c8a799996bf0265b98b5d48ab919"))
        #expect(try AESGCM.open(block, key: key) == [UInt8](repeating: 0, count: 16))
    }

    @Test func sealOpenRoundTripWithAssociatedData() throws {
        let key = SymmetricKey.generate()
        let plaintext = Array("refresh-token-value".utf8)
        let aad = Array("profile:work".utf8)
        let box = try AESGCM.seal(plaintext, key: key, authenticating: aad)
        #expect(box.count == 12 + plaintext.count + 16)
        #expect(try AESGCM.open(box, key: key, authenticating: aad) == plaintext)
        // A fresh nonce per seal: the same plaintext never seals the same way twice.
        #expect(try AESGCM.seal(plaintext, key: key, authenticating: aad) != box)
    }

    @Test func everyChangedByteFailsCleanly() throws {
        let key = SymmetricKey.generate()
        let box = try AESGCM.seal(Array("secret".utf8), key: key)
        for index in box.indices {
            var tampered = box
            tampered[index] ^= 0x01
            #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(tampered, key: key) }
        }
    }

    @Test func wrongKeyWrongAADAndTruncationFail() throws {
        let key = SymmetricKey.generate()
        let box = try AESGCM.seal(Array("secret".utf8), key: key, authenticating: [1])
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(box, key: SymmetricKey.generate(), authenticating: [1]) }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(box, key: key, authenticating: [2]) }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(box, key: key) }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(Array(box.prefix(27)), key: key, authenticating: [1]) }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open([], key: key) }
    }

    @Test func keysHaveExactlyThirtyTwoBytesAndHideThem() throws {
        #expect(throws: CryptoError.self) { try SymmetricKey(bytes: [1, 2, 3]) }
        let key = SymmetricKey.generate()
        #expect(key.description == "SymmetricKey(<redacted>)")
    }
}
