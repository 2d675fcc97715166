/// Why a server could not start listening.
public enum HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The fixed port asked for is already taken on that address (`EADDRINUSE`).
    case addressInUse(address: HTTPServerAddress, port: UInt16)
    /// The system refused the port (`EACCES`), e.g. a port below 1024 without privilege.
    case permissionDenied(address: HTTPServerAddress, port: UInt16)
    /// The address family is not available here, e.g. IPv6 disabled (`EADDRNOTAVAIL`,
    /// `EAFNOSUPPORT`).
    case addressUnavailable(address: HTTPServerAddress)
    /// Another socket call failed; `operation` names it and `code` is the `errno`.
    case socketFailed(operation: String, code: Int32)

    /// A one-line explanation, naming the port when one is involved.
    public var description: String {
        switch self {
        case .addressInUse(let address, let port):
            "port \(port) on \(address.urlHost) is already in use"
        case .permissionDenied(let address, let port):
            "not permitted to listen on port \(port) on \(address.urlHost)"
        case .addressUnavailable(let address):
            "the address \(address.urlHost) is not available on this machine"
        case .socketFailed(let operation, let code):
            "\(operation) failed (errno \(code))"
        }
    }
}
