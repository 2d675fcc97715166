import Foundation

/// A new, empty directory of this user's alone (mode 0700) for one test, removed with
/// everything in it when the value goes away.
///
/// Its path is short (`/tmp/versola-` and eight characters), so that a Unix socket made
/// inside it, such as an agent's, still fits the 107 bytes a socket path may have.
///
/// ```swift
/// let home = try TemporaryDirectory()
/// let store = try FileSessionStore(profile: "work", directory: home.url, keySource: keySource)
/// home.file("config/versola")   // "/tmp/versola-1A2B3C4D/config/versola"
/// ```
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL
    /// The directory's path.
    public var path: String { url.path }

    /// Creates the directory.
    /// - Throws: the file system's error when it cannot be created.
    public init() throws {
        let path = "/tmp/versola-" + String(UUID().uuidString.prefix(8))
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        chmod(path, 0o700)
        url = URL(fileURLWithPath: path, isDirectory: true)
    }

    deinit {
        // Give write permission back where a test took it away, then delete.
        chmod(url.path, 0o700)
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `relative` inside the directory.
    public func file(_ relative: String) -> String { path + "/" + relative }
}
