import VersolaHTTP

/// Form and query handling for the provider: decoding reuses the HTTP server's parser,
/// encoding the engine's `FormBody`.
enum FormEncoding {
    /// Decodes `a=1&b=2` into a dictionary; the first occurrence of a name wins.
    static func decode(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for item in HTTPServerQueryItem.parse(text) where result[item.name] == nil {
            result[item.name] = item.value
        }
        return result
    }

    /// Encodes ordered pairs as a form body or query (the engine's own encoder).
    static func encode(_ pairs: [(String, String)]) -> String {
        FormBody(pairs.map { FormBody.Field(name: $0.0, value: $0.1) }).encodedString
    }

    /// Appends `pairs` to `url` as query items (after `?`, or `&` when it has a query).
    static func appending(_ pairs: [(String, String)], to url: String) -> String {
        guard !pairs.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + encode(pairs)
    }
}
