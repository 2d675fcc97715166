import CVersolaSystem
import Synchronization

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

    /// Whether ``system`` is loaded (it stays loaded until the process exits).
    private static let systemLoaded = Atomic<Bool>(false)

    /// Makes sure the library is loaded. A failure is not remembered: the next request tries
    /// again, so a long-running agent uses a libcurl installed after it failed.
    func load() -> Result<Void, TransportError> {
        let isSystem = name == Self.system.name
        if isSystem, Self.systemLoaded.load(ordering: .acquiring) { return .success(()) }
        let result = open()
        if isSystem, case .success = result { Self.systemLoaded.store(true, ordering: .releasing) }
        return result
    }

    private func open() -> Result<Void, TransportError> {
        var reason = [CChar](repeating: 0, count: 512)
        if versola_curl_open(name, &reason, reason.count) != 0 { return .success(()) }
        let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .failure(.libraryUnavailable(library: name, reason: text))
    }
}
