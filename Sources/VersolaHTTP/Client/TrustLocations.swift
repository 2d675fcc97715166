import Glibc

/// Where the transport finds the certificate authorities it trusts when no CA file is
/// configured, the way OpenSSL's own default does: `SSL_CERT_FILE` names a PEM bundle that
/// replaces the system bundle, `SSL_CERT_DIR` a directory (or `:`-separated directories) of
/// hashed certificates that replaces the system directory. Unset or empty, libcurl's built-in
/// defaults (the system store) apply.
public struct TrustLocations: Sendable, Hashable {
    /// The bundle to trust instead of the system's, from `SSL_CERT_FILE`.
    public var file: String?
    /// The certificate directory to use instead of the system's, from `SSL_CERT_DIR`.
    public var directory: String?

    /// Creates locations; nil means the system default.
    public init(file: String? = nil, directory: String? = nil) {
        self.file = file
        self.directory = directory
    }

    /// The locations `SSL_CERT_FILE` and `SSL_CERT_DIR` of `environment` name.
    public init(environment: [String: String]) {
        self.init(
            file: environment["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 },
            directory: environment["SSL_CERT_DIR"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The locations this process's environment names, read now.
    public static func processEnvironment() -> TrustLocations {
        func variable(_ name: String) -> String? {
            guard let value = getenv(name) else { return nil }
            let text = String(cString: value)
            return text.isEmpty ? nil : text
        }
        return TrustLocations(file: variable("SSL_CERT_FILE"), directory: variable("SSL_CERT_DIR"))
    }
}

extension TransportOptions {
    /// Checks the settings that can be checked before any request: the CA file, when one is
    /// configured, must be a readable regular file.
    /// - Throws: `.misconfigured` naming the file and the flag.
    public func validate() throws(HTTPFailure) {
        guard let caFile else { return }
        guard Self.isReadableFile(caFile) else {
            throw .misconfigured(Self.unusableCAFileReason(caFile))
        }
    }

    /// The reason given for a CA file that cannot be used.
    static func unusableCAFileReason(_ path: String) -> String {
        "the CA file \(path) does not exist, cannot be read or holds no usable certificate; "
            + "give a readable PEM bundle with --ca-file PATH (or SSL_CERT_FILE)"
    }

    /// Whether `path` opens for reading and is a regular file (not a directory).
    static func isReadableFile(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFREG
    }
}
