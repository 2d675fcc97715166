import Testing
@testable import VersolaJOSE

@Test func placeholderJOSE() { #expect(1 + 1 == 2) }
