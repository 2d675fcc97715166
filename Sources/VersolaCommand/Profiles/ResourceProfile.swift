import Foundation
import Versola
import VersolaCrypto

/// The profile of a protected resource (A19): `versola login --resource URL` saves the sign-in
/// under a name made from the resource, so that `versola token --resource URL` and `versola
/// request URL` find it from the URL alone. The name is readable (host, port and path) and
/// ends in a short hash of the normalized resource (``ResourceURL``), so two resources never
/// share one; a profile found by name serves a URL only when its saved resource covers it.
enum ResourceProfile {
    /// `api.example.com_mcp-3f2a9c01b7e4` for `https://api.example.com/mcp`: host, port and path
    /// with every character a profile name cannot hold made `_` (at most 51 of them), then `-`
    /// and 12 hex digits of the SHA-256 of the normalized URL; nil for no URL.
    static func name(for resource: String) -> String? {
        guard let normalized = ResourceURL(resource) else { return nil }
        let origin = normalized.origin
        let text = ([origin.host + (origin.port.map { "_\($0)" } ?? "")] + normalized.segments).joined(separator: "_")
        var readable = String(
            text.unicodeScalars.map { scalar -> Character in
                let allowed = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "-")
                return allowed ? Character(scalar) : "_"
            }
        ).prefix(51)
        while let range = readable.range(of: "..") { readable.replaceSubrange(range, with: "._") }
        let digest = SHA256.hash(Array(normalized.description.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
        return readable + "-" + digest
    }

    /// The profile names a request to `url` may be for: the URL's own, then each shorter path
    /// (a request to `…/mcp/tools/list` is for the resource `…/mcp`), longest first; then the
    /// same in the form names had before the hash (`api.example.com_mcp`), so that a sign-in an
    /// earlier versola made is still found (``serves(_:url:)`` decides whether it may be used).
    static func candidates(for url: String) -> [String] {
        guard let normalized = ResourceURL(url) else { return [] }
        var segments = normalized.segments
        var prefixes: [String] = []
        while true {
            prefixes.append(normalized.origin.description + (segments.isEmpty ? "" : "/" + segments.joined(separator: "/")))
            if segments.isEmpty { break }
            segments.removeLast()
        }
        var names: [String] = []
        for name in prefixes.compactMap(name(for:)) + prefixes.compactMap(earlierName(for:)) where !names.contains(name) {
            names.append(name)
        }
        return names
    }

    /// The name an earlier versola gave a resource's profile: host, port and path folded into
    /// `_`, at most 64 characters (not injective: found only where the saved resource covers).
    static func earlierName(for resource: String) -> String? {
        guard let components = URLComponents(string: resource), let host = components.host, !host.isEmpty else { return nil }
        var text = host + (components.port.map { "_\($0)" } ?? "")
        let path = components.path.split(separator: "/").joined(separator: "_")
        if !path.isEmpty { text += "_" + path }
        let cleaned = String(
            text.unicodeScalars.map { scalar -> Character in
                let allowed = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "-")
                return allowed ? Character(scalar) : "_"
            }
        ).prefix(64)
        return cleaned.allSatisfy { $0 == "." } || cleaned.contains("..") ? nil : String(cleaned)
    }

    /// Whether a profile whose saved resource is `saved` may serve `url` (A19): the same origin
    /// and a whole-segment path prefix, after RFC 3986 normalization; never without a resource.
    static func serves(_ saved: String?, url: String) -> Bool {
        guard let saved, let resource = ResourceURL(saved), let asked = ResourceURL(url) else { return false }
        return resource.covers(asked)
    }
}
