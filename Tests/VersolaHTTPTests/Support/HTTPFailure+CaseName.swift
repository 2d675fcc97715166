import VersolaHTTP

extension HTTPFailure {
    /// The case's name, so a test can say which failure it expected in one comparison.
    var caseName: String {
        switch self {
        case .network: "network"
        case .server: "server"
        case .misconfigured: "misconfigured"
        case .cancelled: "cancelled"
        }
    }
}
