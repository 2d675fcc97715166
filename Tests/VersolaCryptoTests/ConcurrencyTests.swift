import Testing
@testable import VersolaCrypto

@Suite struct ConcurrencyTests {
    // Keys reuse initialised OpenSSL contexts from a pool; concurrent signers and
    // verifiers must each get their own and every result must still be right.
    @Test func concurrentSigningAndVerificationWithOneKey() async throws {
        let key = try P256PrivateKey()
        let rsa = try SharedKeys.rsa()
        let rsaVerifier = rsa.verificationKey
        let rsaSignature = try rsa.sign([1, 2, 3], algorithm: .rs256)
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let message = [UInt8(index)]
                    guard let signature = try? key.signES256(message) else { return false }
                    let good = key.verificationKey.verify(signature: signature, message: message, algorithm: .es256)
                    let bad = key.verificationKey.verify(signature: signature, message: message + [0], algorithm: .es256)
                    let rsaGood = rsaVerifier.verify(signature: rsaSignature, message: [1, 2, 3], algorithm: .rs256)
                    let rsaBad = rsaVerifier.verify(signature: rsaSignature, message: [1, 2, 4], algorithm: .rs256)
                    return good && !bad && rsaGood && !rsaBad
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }
}
