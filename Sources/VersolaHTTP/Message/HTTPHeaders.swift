/// An ordered list of HTTP header fields. Repeated names are kept, in order, and names
/// compare case-insensitively.
///
/// ```swift
/// var headers = HTTPHeaders()
/// headers.add("Accept", "application/json")
/// print(headers["accept"] ?? "")   // application/json
/// ```
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field as it was sent or received.
    public struct Field: Sendable, Hashable {
        /// The field name, as written.
        public var name: String
        /// The field value, without surrounding whitespace.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Every field, in order.
    public private(set) var fields: [Field]

    /// Creates headers from fields, kept in order.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Creates headers from `name: value` pairs, kept in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// Appends a field, keeping any with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field of this name with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field of this name.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// The values of every field of this name, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// The first value of this name, or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Whether a field of this name is present.
    public func contains(_ name: String) -> Bool {
        self[name] != nil
    }

    /// The number of fields.
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// ASCII case-insensitive comparison of two field names.
    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count
            && zip(a.utf8, b.utf8).allSatisfy { lowercase($0) == lowercase($1) }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}
