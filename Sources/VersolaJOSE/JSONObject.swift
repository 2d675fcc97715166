/// A JSON object whose members keep the order they were parsed or built in.
///
/// Lookups by name are linear, which is the fastest choice for the small objects of JOSE and
/// OAuth (headers, claims, discovery documents). Names match when their UTF-8 code units are
/// the same, with no Unicode normalisation (RFC 8259 §8.3). Names are unique: setting an
/// existing name replaces its value in place. Equality compares members in order.
///
/// ```swift
/// var header: JSONObject = ["alg": "ES256", "typ": "dpop+jwt"]
/// header["kid"] = "key-1"
/// header["typ"]?.string  // "dpop+jwt"
/// ```
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One name/value pair.
    public struct Member: Sendable, Hashable {
        /// The member name.
        public var name: String
        /// The member value.
        public var value: JSONValue

        /// Creates a member.
        public init(name: String, value: JSONValue) {
            self.name = name
            self.value = value
        }
    }

    /// The members in order.
    public private(set) var members: [Member]

    /// Creates an empty object.
    public init() { members = [] }

    /// Creates an object from name/value pairs in order; a repeated name keeps the last value
    /// at the position of its first appearance.
    public init(_ pairs: some Sequence<(String, JSONValue)>) {
        members = []
        for (name, value) in pairs { self[name] = value }
    }

    /// Creates an object from a literal, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// Builds from members already known to have unique names (the parser checked them).
    init(uniqueMembers: [Member]) { members = uniqueMembers }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The member names in order.
    public var names: [String] { members.map(\.name) }

    /// The value of the member `name`, or nil. Setting nil removes the member; setting a new
    /// name appends it.
    public subscript(name: String) -> JSONValue? {
        get {
            for member in members where sameCodeUnits(member.name, name) { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { sameCodeUnits($0.name, name) }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(name: name, value: newValue))
            }
        }
    }

    /// Iterates the members in order.
    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }
}

extension JSONObject: CustomStringConvertible, CustomDebugStringConvertible {
    /// The members with string values redacted, as ``JSONValue/description`` shows them.
    public var description: String { JSONValue.object(self).description }

    /// Same as ``description``.
    public var debugDescription: String { description }
}
