/// A JSON value (RFC 8259) with exact integers and ordered object members.
///
/// Parse with ``init(parsing:)-(String)`` (strict: duplicate names, trailing characters, lone
/// surrogates, deep nesting and out-of-range numbers are errors), read with the optional
/// accessors, and write with ``serialized()``, which is deterministic (members in order, no
/// whitespace).
///
/// ```swift
/// let document = try JSONValue(parsing: #"{"issuer":"https://id.example","n":3}"#)
/// document["issuer"]?.string   // "https://id.example"
/// document["n"]?.int64         // 3
/// ```
///
/// `description` never shows string contents, because values may hold tokens.
public enum JSONValue: Sendable, Hashable {
    /// An object with ordered, unique member names.
    case object(JSONObject)
    /// An array.
    case array([JSONValue])
    /// A string.
    case string(String)
    /// A number written without fraction or exponent that fits `Int64`.
    case integer(Int64)
    /// Any other number (always finite when parsed).
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// The deepest nesting of arrays and objects the parser accepts.
    public static let maximumDepth = 64

    /// The string, when this is a string.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, when this is a number written as an integer.
    public var int64: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The number as a `Double`, when this is any number.
    public var double: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The Boolean, when this is `true` or `false`.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var object: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The member `name` when this is an object that has it, else nil.
    public subscript(name: String) -> JSONValue? {
        if case .object(let object) = self { return object[name] }
        return nil
    }

    /// The element at `index` when this is an array long enough, else nil (never traps).
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByNilLiteral
{
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object literal, keeping the literal's member order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
    /// `nil` as JSON `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: CustomStringConvertible, CustomDebugStringConvertible {
    /// The shape of the value with member names, numbers and Booleans, but every string
    /// replaced by its length, so that printing a token response cannot leak a token.
    public var description: String {
        switch self {
        case .object(let object):
            let members = object.members.map { "\"\($0.name)\": \($0.value.description)" }
            return "{" + members.joined(separator: ", ") + "}"
        case .array(let elements):
            return "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .string(let value):
            return "<string, \(value.utf8.count) bytes>"
        case .integer(let value):
            return String(value)
        case .double(let value):
            return String(value)
        case .bool(let value):
            return String(value)
        case .null:
            return "null"
        }
    }

    /// Same as ``description``: strings are redacted.
    public var debugDescription: String { description }
}
