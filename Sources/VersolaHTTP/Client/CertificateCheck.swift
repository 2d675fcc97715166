/// Which check of the provider's TLS certificate failed (E14). Such a failure never fixes
/// itself, so it is a configuration error, not a network one.
public enum CertificateCheck: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The chain does not lead to a trusted authority (a private or self-signed CA).
    case unknownIssuer
    /// The certificate is not for the host name (or address) in the URL.
    case nameMismatch
    /// The certificate (or one in its chain) has expired.
    case expired
    /// The certificate (or one in its chain) is not valid yet.
    case notYetValid
    /// Another verification failure (a revoked, malformed or misused certificate).
    case other

    /// The check for a failed verification: libcurl's `CURLE_PEER_FAILED_VERIFICATION` with
    /// OpenSSL's verify result (`CURLINFO_SSL_VERIFYRESULT`, an `X509_V_ERR_*` value). libcurl
    /// checks the host name itself once the chain verified, so a failure whose verify result
    /// is 0 (`X509_V_OK`) or 1 (unspecified) is the name check.
    public init(verifyResult: Int) {
        switch verifyResult {
        case 0, 1, 62, 64: self = .nameMismatch  // ok/unspecified (libcurl's own check), host, IP mismatch
        case 9, 11: self = .notYetValid  // certificate, CRL not yet valid
        case 10, 12: self = .expired  // certificate, CRL expired
        case 2, 18, 19, 20, 21, 27, 28: self = .unknownIssuer  // no issuer, self-signed, untrusted, rejected
        default: self = .other
        }
    }

    /// What failed, in words.
    public var description: String {
        switch self {
        case .unknownIssuer: "it is signed by an unknown issuer (a CA this machine does not trust)"
        case .nameMismatch: "it is not for this host name (name mismatch)"
        case .expired: "it has expired"
        case .notYetValid: "it is not valid yet"
        case .other: "it failed verification"
        }
    }

    /// What fixes it.
    public var advice: String {
        switch self {
        case .unknownIssuer:
            "to trust a private CA, pass its PEM bundle with --ca-file PATH (or set SSL_CERT_FILE)"
        case .nameMismatch:
            "use the host name the certificate is for in the issuer URL; --ca-file cannot fix a name mismatch"
        case .expired, .notYetValid:
            "the provider must renew its certificate, or this machine's clock is wrong; check --ca-file if you gave one"
        case .other: "check the provider's certificate chain, and --ca-file if you gave one"
        }
    }
}
