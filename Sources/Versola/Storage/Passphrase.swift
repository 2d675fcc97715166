/// A passphrase as the bytes it was given in: a descriptor's bytes, a terminal's text as
/// UTF-8. The key is derived from exactly these bytes, so a key file of random bytes keeps all
/// its entropy.
///
/// Versions before this one decoded the passphrase as UTF-8 first, each invalid byte becoming
/// U+FFFD, and derived from that text: ``legacyBytes`` is what they used, read only to open a
/// passphrase file they wrote, which is then migrated (``PassphraseKeySource``).
///
/// ```swift
/// let passphrase = Passphrase(bytes: keyFileBytes)
/// try await source.unlock(passphrase: passphrase)
/// ```
public struct Passphrase: Sendable, Hashable, CustomStringConvertible {
    /// The bytes the key is derived from.
    public let bytes: [UInt8]
    /// What versions before this one derived the key from, for the same input.
    public let legacyBytes: [UInt8]

    /// A passphrase of `bytes`.
    /// - Parameters:
    ///   - bytes: the passphrase.
    ///   - legacyBytes: what earlier versions derived from for the same input; by default
    ///     `bytes` decoded as UTF-8 with replacement, encoded again.
    public init(bytes: [UInt8], legacyBytes: [UInt8]? = nil) {
        self.bytes = bytes
        self.legacyBytes = legacyBytes ?? Self.legacy(bytes)
    }

    /// A passphrase given as text: its UTF-8 bytes.
    public init(_ text: String) {
        self.init(bytes: Array(text.utf8))
    }

    /// Whether it has no bytes.
    public var isEmpty: Bool { bytes.isEmpty }

    /// Never the passphrase itself.
    public var description: String { "Passphrase(\(bytes.count) bytes)" }

    /// `bytes` decoded as UTF-8 with each invalid byte replaced by U+FFFD, encoded again:
    /// what earlier versions derived the key from.
    public static func legacy(_ bytes: [UInt8]) -> [UInt8] {
        Array(String(decoding: bytes, as: UTF8.self).utf8)
    }
}
