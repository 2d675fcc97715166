import Testing
@testable import VersolaHTTP

@Test func placeholderHTTP() { #expect(1 + 1 == 2) }
