import Foundation

/// The profile of a protected resource (A19): `versola login --resource URL` saves the sign-in
/// under a name made from the resource's host and path, so that `versola token --resource URL`
/// and `versola request URL` find it from the URL alone.
enum ResourceProfile {
    /// `api.example.com_mcp` for `https://api.example.com/mcp`: host, port and path, with every
    /// character a profile name cannot hold made `_`, at most 64 characters; nil for no URL.
    static func name(for resource: String) -> String? {
        guard let components = URLComponents(string: resource), let host = components.host, !host.isEmpty else {
            return nil
        }
        var text = host + (components.port.map { "_\($0)" } ?? "")
        let path = components.path.split(separator: "/").joined(separator: "_")
        if !path.isEmpty { text += "_" + path }
        let cleaned = String(
            text.unicodeScalars.map { scalar -> Character in
                let allowed = (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar))) || scalar == "." || scalar == "-"
                return allowed ? Character(scalar) : "_"
            })
        let trimmed = String(cleaned.prefix(64))
        return trimmed.allSatisfy { $0 == "." } ? nil : trimmed
    }

    /// The profile names a request to `url` may be for: the URL's own, then each shorter path
    /// (a request to `…/mcp/tools/list` is for the resource `…/mcp`), longest first.
    static func candidates(for url: String) -> [String] {
        guard var components = URLComponents(string: url), components.host != nil else { return [] }
        components.query = nil
        components.fragment = nil
        var segments = components.path.split(separator: "/").map(String.init)
        var names: [String] = []
        while true {
            components.path = segments.isEmpty ? "" : "/" + segments.joined(separator: "/")
            if let text = components.string, let name = name(for: text), !names.contains(name) { names.append(name) }
            if segments.isEmpty { break }
            segments.removeLast()
        }
        return names
    }
}
