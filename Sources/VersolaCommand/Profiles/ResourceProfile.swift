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
    /// (a request to `…/mcp/tools/list` is for the resource `…/mcp`), longest first.
    static func candidates(for url: String) -> [String] {
        guard let normalized = ResourceURL(url) else { return [] }
        var segments = normalized.segments
        var names: [String] = []
        while true {
            let prefix = normalized.origin.description + (segments.isEmpty ? "" : "/" + segments.joined(separator: "/"))
            if let name = name(for: prefix), !names.contains(name) { names.append(name) }
            if segments.isEmpty { break }
            segments.removeLast()
        }
        return names
    }

    /// Whether a profile whose saved resource is `saved` may serve `url` (A19): the same origin
    /// and a whole-segment path prefix, after RFC 3986 normalization; never without a resource.
    static func serves(_ saved: String?, url: String) -> Bool {
        guard let saved, let resource = ResourceURL(saved), let asked = ResourceURL(url) else { return false }
        return resource.covers(asked)
    }
}
