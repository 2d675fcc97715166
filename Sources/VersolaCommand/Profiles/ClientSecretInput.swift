import Foundation
import Glibc
import Versola

/// Reads an installed app's client secret (A17) from where `versola login` was told:
/// `--client-secret-file PATH` or `--client-secret-fd N`. Never from argv, where any local user
/// could read it. The secret is the content up to its first line break (one trailing newline
/// is what `echo` and editors add); what the error messages say names the source, never the
/// content.
enum ClientSecretInput {
    /// The most a secret may be: far more than any provider issues.
    static let maximumBytes = 4096

    /// The secret `options` point to, or nil when they point to none.
    /// - Throws: `.configuration(.invalidConfiguration)` naming the flag when the source cannot
    ///   be read, is empty, or is too large.
    static func read(_ options: LoginOptions) throws(VersolaError) -> ClientSecret? {
        if let path = options.clientSecretFile {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw refused("--client-secret-file \(path) cannot be read (\(String(cString: strerror(errno))))")
            }
            defer { close(descriptor) }
            return try secret(from: descriptor, source: "--client-secret-file \(path)")
        }
        if let descriptor = options.clientSecretDescriptor {
            return try secret(from: descriptor, source: "--client-secret-fd \(descriptor)")
        }
        return nil
    }

    private static func secret(from descriptor: Int32, source: String) throws(VersolaError) -> ClientSecret {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw refused("\(source) cannot be read (\(String(cString: strerror(errno))))")
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
            if bytes.count > maximumBytes { throw refused("\(source) holds more than \(maximumBytes) bytes: not a client secret") }
        }
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        guard let text = String(validating: line, as: UTF8.self), !text.isEmpty else {
            throw refused("\(source) holds no client secret on its first line (empty, or not UTF-8 text)")
        }
        return ClientSecret(text)
    }

    private static func refused(_ reason: String) -> VersolaError {
        .configuration(.invalidConfiguration(reason))
    }
}
