import Testing
@testable import VersolaCrypto

@Test func placeholderCrypto() { #expect(1 + 1 == 2) }
