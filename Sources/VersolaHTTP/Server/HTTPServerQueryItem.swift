/// One `name=value` pair of a query string or a form body, decoded.
public struct HTTPServerQueryItem: Sendable, Hashable {
    /// The decoded name.
    public var name: String
    /// The decoded value; empty when the item had no `=`.
    public var value: String

    /// Creates an item.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Splits `a=1&b=2` into items, decoding each side as form data (`+` is a space).
    /// Empty pieces (`a=1&&b=2`) are skipped. A malformed `%` escape is kept literally,
    /// and bytes that are not UTF-8 become U+FFFD, so this never fails.
    public static func parse(_ query: String) -> [HTTPServerQueryItem] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { piece in
            if let equals = piece.firstIndex(of: "=") {
                return HTTPServerQueryItem(
                    name: lenientDecode(piece[..<equals]),
                    value: lenientDecode(piece[piece.index(after: equals)...]))
            }
            return HTTPServerQueryItem(name: lenientDecode(piece), value: "")
        }
    }

    /// Strictly percent-decodes `text`: nil when a `%` is not followed by two hex digits or
    /// the result is not valid UTF-8.
    /// - Parameter plusAsSpace: decode `+` as a space (form data) rather than keeping it.
    public static func percentDecoded(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusAsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Form-decodes, keeping malformed escapes literally and repairing invalid UTF-8.
    private static func lenientDecode(_ text: Substring) -> String {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
                continue
            }
            bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
