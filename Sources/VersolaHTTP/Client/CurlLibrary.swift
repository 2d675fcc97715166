import CVersolaSystem

/// libcurl, loaded into the process by the first transfer that needs it rather than at start.
///
/// The engine does not link libcurl: linked, libcurl and the thirty libraries it needs were
/// mapped into every engine process at start, a long-running agent included, which mostly
/// answers from memory and sends a request only to refresh. A library that cannot be loaded
/// is ``TransportError/libraryUnavailable(library:reason:)`` (a configuration error naming the
/// Debian package that provides it), never a crash.
struct CurlLibrary: Sendable {
    /// The name given to the loader.
    let name: String

    /// The system's libcurl (ABI 4), what the engine uses.
    static let system = CurlLibrary(name: "libcurl.so.4")
    /// The Debian and Ubuntu package that provides ``system``.
    static let debianPackage = "libcurl4"
    /// Its name on Debian 13 and Ubuntu 24.04 and later.
    static let debianPackageTime64 = "libcurl4t64"

    /// The outcome of loading ``system``: tried once per process, by the first transfer.
    private static let systemLoaded: Result<Void, TransportError> = system.open()

    /// Makes sure the library is loaded: ``system`` once per process, any other name each time.
    func load() -> Result<Void, TransportError> {
        name == Self.system.name ? Self.systemLoaded : open()
    }

    private func open() -> Result<Void, TransportError> {
        var reason = [CChar](repeating: 0, count: 512)
        if versola_curl_open(name, &reason, reason.count) != 0 { return .success(()) }
        let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .failure(.libraryUnavailable(library: name, reason: text))
    }
}
