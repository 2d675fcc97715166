/// An `application/x-www-form-urlencoded` body (the HTML form encoding used by RFC 6749 §4.1.3,
/// RFC 7009 and RFC 9126), built field by field in order.
///
/// Encoding leaves only the RFC 3986 unreserved characters (`A–Z a–z 0–9 - . _ ~`) as they are
/// and percent-encodes every other UTF-8 byte (a space becomes `%20`), so values such as
/// redirect URIs and codes arrive exactly as given.
///
/// ```swift
/// var form = FormBody()
/// form.append("grant_type", "authorization_code")
/// form.append("redirect_uri", "http://127.0.0.1:5173/callback")
/// request.body = form.encoded   // grant_type=authorization_code&redirect_uri=http%3A%2F%2F127.0.0.1%3A5173%2Fcallback
/// ```
///
/// The fields may hold secrets (codes, verifiers, refresh tokens), so `description` lists names only.
public struct FormBody: Sendable, Hashable, CustomStringConvertible {
    /// One `name=value` pair.
    public struct Field: Sendable, Hashable {
        /// The field name.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The media type to send in `Content-Type`.
    public static let contentType = "application/x-www-form-urlencoded"

    /// The fields, in order.
    public var fields: [Field]

    /// Creates a body from fields, kept in order.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Appends a field (a repeated name is kept as a second field).
    public mutating func append(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// The first value of the field `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The field names in order.
    public var names: [String] { fields.map(\.name) }

    /// The encoded bytes: `name=value` pairs joined by `&`.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 } * 2)
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "&")) }
            Self.percentEncode(field.name, into: &bytes)
            bytes.append(UInt8(ascii: "="))
            Self.percentEncode(field.value, into: &bytes)
        }
        return bytes
    }

    /// The encoded body as text.
    public var encodedString: String { String(decoding: encoded, as: UTF8.self) }

    /// One name or value encoded as a form body encodes it (RFC 6749 appendix B), as HTTP Basic
    /// client authentication needs for the client id and secret (RFC 6749 §2.3.1).
    public static func encodedComponent(_ text: String) -> String {
        var bytes: [UInt8] = []
        percentEncode(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes a form body: `+` is a space, `%XX` a byte; a pair without `=` has an empty value.
    /// - Returns: nil when an escape is malformed or the decoded bytes are not UTF-8.
    public init?(decoding bytes: some Collection<UInt8>) {
        var fields: [Field] = []
        for pair in Array(bytes).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.percentDecode(parts[0]) else { return nil }
            let value = parts.count > 1 ? Self.percentDecode(parts[1]) : ""
            guard let value else { return nil }
            fields.append(Field(name: name, value: value))
        }
        self.fields = fields
    }

    /// The field names only: values may be secrets.
    public var description: String {
        "FormBody(\(names.joined(separator: ", ")))"
    }

    // MARK: Encoding

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func percentEncode(_ text: String, into bytes: inout [UInt8]) {
        for byte in text.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    private static func percentDecode(_ encoded: ArraySlice<UInt8>) -> String? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let byte = encoded[index]
            if byte == UInt8(ascii: "+") {
                decoded.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard encoded.endIndex - index >= 3, let high = hexValue(encoded[index + 1]),
                    let low = hexValue(encoded[index + 2])
                else { return nil }
                decoded.append(high << 4 | low)
                index += 2
            } else {
                decoded.append(byte)
            }
            index += 1
        }
        return String(validating: decoded, as: UTF8.self)
    }
}
