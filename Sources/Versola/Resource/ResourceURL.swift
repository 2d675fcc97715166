import VersolaHTTP
import Foundation

/// A resource identifier or request URL in the form resources are compared in (A19, RFC 3986
/// §6.2.2): scheme and host lowercased and the default port dropped (``Origin``), dot segments
/// removed, percent-encoded unreserved characters decoded and other escapes in upper case, a
/// trailing `/` aside; query and fragment are not part of it.
///
/// ```swift
/// if let resource = ResourceURL("https://api.example.com/mcp"), let asked = ResourceURL("https://API.example.com:443/mcp/tools") {
///     print(resource.covers(asked))  // true; `…/mcp2` or another port would be false
/// }
/// ```
public struct ResourceURL: Sendable, Hashable, CustomStringConvertible {
    /// The origin.
    public let origin: Origin
    /// The path's segments, normalized; empty for the origin itself.
    public let segments: [String]

    /// Parses an absolute URL; nil without a scheme and host.
    public init?(_ text: String) {
        guard let components = URLComponents(string: text), let scheme = components.scheme, let host = components.host,
            let origin = Origin(scheme: scheme, host: host, port: components.port)
        else { return nil }
        var segments: [String] = []
        let raw = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, part) in raw.enumerated() {
            let segment = Self.normalized(segment: String(part))
            switch segment {
            case ".": continue
            case "..": if !segments.isEmpty { segments.removeLast() }
            case "" where index == raw.count - 1: continue
            default: segments.append(segment)
            }
        }
        self.origin = origin
        self.segments = segments
    }

    /// The normalized URL, `https://api.example.com/mcp`.
    public var description: String {
        origin.description + (segments.isEmpty ? "" : "/" + segments.joined(separator: "/"))
    }

    /// Whether a token for this resource may be sent to `url`: the same origin, and this path
    /// equal to `url`'s or a whole-segment prefix of it (`/mcp` covers `/mcp/tools`, not `/mcp2`).
    public func covers(_ url: ResourceURL) -> Bool {
        origin == url.origin && url.segments.count >= segments.count
            && Array(url.segments.prefix(segments.count)) == segments
    }

    /// Decodes escapes of unreserved characters and upper-cases the others (RFC 3986 §6.2.2.1-2).
    private static func normalized(segment: String) -> String {
        var result = ""
        var bytes = Array(segment.utf8)[...]
        while let byte = bytes.first {
            bytes = bytes.dropFirst()
            guard byte == UInt8(ascii: "%"), bytes.count >= 2,
                let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16)
            else {
                result.unicodeScalars.append(Unicode.Scalar(byte))
                continue
            }
            bytes = bytes.dropFirst(2)
            let scalar = Unicode.Scalar(value)
            let unreserved = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-._~".unicodeScalars.contains(scalar))
            result += unreserved ? String(scalar) : String(format: "%%%02X", value)
        }
        return result
    }
}
