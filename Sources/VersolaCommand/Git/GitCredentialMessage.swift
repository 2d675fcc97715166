/// A message of git's credential-helper protocol (gitcredentials(7), git-credential(1)):
/// `key=value` lines ended by a blank line or the end of input. Keys ending in `[]` may repeat
/// (`capability[]=authtype`).
public struct GitCredentialMessage: Sendable, Hashable {
    /// One `key=value` line.
    public struct Attribute: Sendable, Hashable {
        /// The key.
        public var key: String
        /// The value.
        public var value: String

        /// Creates an attribute.
        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    /// The attributes in order.
    public var attributes: [Attribute]

    /// A message of `attributes`.
    public init(_ attributes: [Attribute] = []) {
        self.attributes = attributes
    }

    /// Reads lines from `next` (nil at the end of input) up to a blank line.
    public static func read(_ next: () -> String?) -> GitCredentialMessage {
        var message = GitCredentialMessage()
        while let line = next() {
            let trimmed = line.hasSuffix("\r") ? String(line.dropLast()) : line
            if trimmed.isEmpty { break }
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            message.attributes.append(
                Attribute(String(trimmed[..<equals]), String(trimmed[trimmed.index(after: equals)...])))
        }
        return message
    }

    /// The first value of `key`.
    public subscript(key: String) -> String? { attributes.first { $0.key == key }?.value }

    /// Every value of a repeated key such as `capability[]`.
    public func values(_ key: String) -> [String] { attributes.filter { $0.key == key }.map(\.value) }

    /// The lines git reads back; values holding a newline or NUL are left out (git refuses them).
    public var text: String {
        attributes.filter { !$0.value.contains("\n") && !$0.value.contains("\0") }
            .map { "\($0.key)=\($0.value)\n" }.joined()
    }
}
