// README block 4, compiled with exactly the imports it shows.
// ReadmeExampleTests keeps the two equal.

import VersolaCrypto

func readmeExample4() async throws {
    let key = SymmetricKey.generate()
    let sealed = try AESGCM.seal(Array("refresh-token".utf8), key: key, authenticating: Array("profile".utf8))
    let opened = try AESGCM.open(sealed, key: key, authenticating: Array("profile".utf8))
    assert(opened == Array("refresh-token".utf8))

    let dpopKey = try P256PrivateKey()
    let signature = try dpopKey.signES256(Array("header.payload".utf8))   // 64 bytes, r || s
    let valid = dpopKey.verificationKey.verify(signature: signature, message: Array("header.payload".utf8), algorithm: .es256)
    print("signature verifies:", valid)
}
