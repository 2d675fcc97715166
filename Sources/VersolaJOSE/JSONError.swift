/// Why a JSON text was rejected by ``JSONValue/init(parsing:)``.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        /// The text ended inside a value.
        case unexpectedEnd
        /// A byte that cannot start or continue the value being read.
        case unexpectedCharacter
        /// Something other than whitespace after the top-level value.
        case trailingCharacters
        /// An object names the same member twice (the name is not secret, only the values are).
        case duplicateMember(String)
        /// A backslash escape JSON does not define, or a malformed `\u` escape.
        case invalidEscape
        /// A `\u` escape of a UTF-16 surrogate without its partner.
        case loneSurrogate
        /// A raw control character (below U+0020) inside a string.
        case controlCharacterInString
        /// Bytes that are not well-formed UTF-8 inside a string.
        case invalidUTF8
        /// A number that does not follow the JSON grammar.
        case invalidNumber
        /// An integer outside `Int64` or a number whose magnitude overflows `Double`.
        case numberOutOfRange
        /// Arrays and objects nested deeper than ``JSONValue/maximumDepth``.
        case nestingTooDeep
    }

    /// What was wrong.
    public var reason: Reason
    /// The UTF-8 byte offset where the problem was found.
    public var offset: Int

    /// Creates an error for `reason` at byte `offset`.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// A short account of the problem (it never quotes values from the text).
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}
