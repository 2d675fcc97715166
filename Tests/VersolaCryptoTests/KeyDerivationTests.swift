import Testing
import VersolaCrypto

/// Published vectors for the passphrase key source's KDFs.
@Suite struct KeyDerivationTests {
    private static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    // RFC 7914 §12, the first three vectors (the fourth needs 1 GiB).
    @Test func scryptRFC7914Vectors() throws {
        let empty = try KeyDerivation.scrypt(
            passphrase: [], salt: [], parameters: .init(cost: 16, blockSize: 1, parallelism: 1), length: 64)
        #expect(
            empty
                == TestBytes.hex(
                    """
                    77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442
                    fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906
                    """))
        let nacl = try KeyDerivation.scrypt(
            passphrase: Self.ascii("password"), salt: Self.ascii("NaCl"),
            parameters: .init(cost: 1024, blockSize: 8, parallelism: 16), length: 64)
        #expect(
            nacl
                == TestBytes.hex(
                    """
                    fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162
                    2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640
                    """))
        let sodium = try KeyDerivation.scrypt(
            passphrase: Self.ascii("pleaseletmein"), salt: Self.ascii("SodiumChloride"),
            parameters: .init(cost: 16384, blockSize: 8, parallelism: 1), length: 64)
        #expect(
            sodium
                == TestBytes.hex(
                    """
                    7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2
                    d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887
                    """))
    }

    // RFC 7914 §11 (PBKDF2-HMAC-SHA256) and the widely used RFC 6070-style SHA-256 vectors.
    @Test func pbkdf2SHA256Vectors() throws {
        let one = try KeyDerivation.pbkdf2SHA256(
            passphrase: Self.ascii("passwd"), salt: Self.ascii("salt"), iterations: 1, length: 64)
        #expect(
            one
                == TestBytes.hex(
                    """
                    55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc
                    49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783
                    """))
        let many = try KeyDerivation.pbkdf2SHA256(
            passphrase: Self.ascii("Password"), salt: Self.ascii("NaCl"), iterations: 80_000, length: 64)
        #expect(
            many
                == TestBytes.hex(
                    """
                    4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56
                    a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d
                    """))
        let short = try KeyDerivation.pbkdf2SHA256(
            passphrase: Self.ascii("password"), salt: Self.ascii("salt"), iterations: 4096, length: 32)
        #expect(short == TestBytes.hex("c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"))
        let long = try KeyDerivation.pbkdf2SHA256(
            passphrase: Self.ascii("passwordPASSWORDpassword"), salt: Self.ascii("saltSALTsaltSALTsaltSALTsaltSALTsalt"),
            iterations: 4096, length: 40)
        #expect(long == TestBytes.hex("348c89dbcbd32b2f32d814b8116e84cf2b17347ebc1800181c4e2a1fb8dd53e1c635518c7dac47e9"))
    }

    @Test func badParametersAreErrorsNotCrashes() {
        #expect(throws: CryptoError.self) {
            try KeyDerivation.scrypt(
                passphrase: [1], salt: [2], parameters: .init(cost: 1000, blockSize: 8, parallelism: 1), length: 32)
        }
        #expect(throws: CryptoError.self) {
            try KeyDerivation.scrypt(
                passphrase: [1], salt: [2], parameters: .init(cost: 1 << 40, blockSize: 8, parallelism: 1), length: 32)
        }
        #expect(throws: CryptoError.self) {
            try KeyDerivation.scrypt(
                passphrase: [1], salt: [2], parameters: .init(cost: 16, blockSize: 0, parallelism: 1), length: 32)
        }
        #expect(throws: CryptoError.self) {
            try KeyDerivation.scrypt(passphrase: [1], salt: [2], parameters: .interactive, length: 0)
        }
        #expect(throws: CryptoError.self) {
            try KeyDerivation.pbkdf2SHA256(passphrase: [1], salt: [2], iterations: 0, length: 32)
        }
        #expect(throws: CryptoError.self) {
            try KeyDerivation.pbkdf2SHA256(passphrase: [1], salt: [2], iterations: 1, length: 100_000)
        }
    }

    @Test func interactiveParametersFitTheMemoryCap() throws {
        let key = try KeyDerivation.scrypt(
            passphrase: Self.ascii("correct horse"), salt: [UInt8](repeating: 7, count: 16), parameters: .interactive,
            length: 32)
        #expect(key.count == 32)
    }
}
