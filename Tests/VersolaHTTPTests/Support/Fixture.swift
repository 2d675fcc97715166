import Foundation

@testable import VersolaHTTP

/// Fixed test values.
enum Fixture {
    static let origin = Origin(scheme: "https", host: "idp.example")!
    static let url = URL(string: "https://idp.example/token")!
}
