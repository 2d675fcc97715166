import VersolaHTTP
/// The `Host` check of the loopback listener (L6): a request is answered only when its `Host`
/// names the loopback address and port listened on, so a page on another name that resolves
/// to 127.0.0.1 (DNS rebinding) is refused.
enum LoopbackHost {
    /// Whether `host` (the request's `Host` field) is `address:port`, or `address` alone for
    /// port 80. Compared without regard to case; a missing field never matches.
    static func matches(_ host: String?, address: HTTPServerAddress, port: UInt16) -> Bool {
        guard let host else { return false }
        let given = host.lowercased()
        let expected = address.urlHost
        return given == "\(expected):\(port)" || (port == 80 && given == expected)
    }
}
