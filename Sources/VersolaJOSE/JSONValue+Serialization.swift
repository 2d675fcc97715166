extension JSONValue {
    /// The JSON text of this value: members in order, no whitespace, only `"`, `\` and control
    /// characters escaped (non-ASCII is written as UTF-8). The same value always gives the same
    /// bytes, which is what signing needs. A non-finite `Double` (which the parser never
    /// produces) is written as `null`.
    public func serialized() -> String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }

    /// The UTF-8 bytes of ``serialized()``.
    public func serializedBytes() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        write(to: &output)
        return output
    }

    /// Appends the serialization to `output`.
    func write(to output: inout [UInt8]) {
        switch self {
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            var first = true
            for member in object.members {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                JSONValue.writeString(member.name, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .string(let value):
            JSONValue.writeString(value, to: &output)
        case .integer(let value):
            output.append(contentsOf: String(value).utf8)
        case .double(let value):
            if value.isFinite {
                output.append(contentsOf: String(value).utf8)
            } else {
                output.append(contentsOf: "null".utf8)
            }
        case .bool(let value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case .null:
            output.append(contentsOf: "null".utf8)
        }
    }

    private static func writeString(_ text: String, to output: inout [UInt8]) {
        JSONStringWriter.append(text, to: &output)
    }
}
