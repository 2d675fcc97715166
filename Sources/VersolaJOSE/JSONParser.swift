/// A strict recursive-descent JSON parser over UTF-8 bytes (RFC 8259, no extensions). Its
/// helpers are internal so that the skimming mode (`JSONParser+Skim.swift`), which checks the
/// same grammar without building values, uses the very same string, number and literal rules.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses exactly one JSON value surrounded by optional whitespace.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.position != bytes.count { throw JSONError(.trailingCharacters, at: parser.position) }
        return value
    }

    // MARK: Helpers

    func failure(_ reason: JSONError.Reason) -> JSONError { JSONError(reason, at: position) }

    var atEnd: Bool { position >= bytes.count }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func expectLiteral(_ literal: StaticString, _ value: JSONValue) throws(JSONError) -> JSONValue {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else {
            // Either a prefix of the literal that ends early, or a wrong byte.
            for offset in 0..<(bytes.count - position) where bytes[position + offset] != literal.utf8Start[offset] {
                position += offset
                throw failure(.unexpectedCharacter)
            }
            position = bytes.count
            throw failure(.unexpectedEnd)
        }
        for offset in 0..<count where bytes[position + offset] != literal.utf8Start[offset] {
            position += offset
            throw failure(.unexpectedCharacter)
        }
        position += count
        return value
    }

    /// After a member or element: skips whitespace, then a `,` (false: another item follows)
    /// or the container's closing byte (true: it ends here).
    mutating func endOfItem(closing: UInt8) throws(JSONError) -> Bool {
        skipWhitespace()
        guard !atEnd else { throw failure(.unexpectedEnd) }
        switch bytes[position] {
        case UInt8(ascii: ","):
            position += 1
            skipWhitespace()
            return false
        case closing:
            position += 1
            depth -= 1
            return true
        default:
            throw failure(.unexpectedCharacter)
        }
    }

    // MARK: Values

    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard !atEnd else { throw failure(.unexpectedEnd) }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expectLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try expectLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try expectLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure(.unexpectedCharacter)
        }
    }

    mutating func enterContainer() throws(JSONError) {
        depth += 1
        if depth > JSONValue.maximumDepth { throw failure(.nestingTooDeep) }
        position += 1
        skipWhitespace()
    }

    mutating func parseObject() throws(JSONError) -> JSONValue {
        try enterContainer()
        var members: [JSONObject.Member] = []
        if !atEnd, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(JSONObject(uniqueMembers: members))
        }
        // Claims sets and discovery documents have tens of members: growing from one by
        // doubling cost five copies for a typical ID token.
        members.reserveCapacity(16)
        // The duplicate check: for the first 32 members, a 128-bit filter of the names' 7-bit
        // fingerprints, so names are only compared when a fingerprint was seen before; past
        // 32, a set (a hostile object of thousands of names stays linear).
        var filter = (low: UInt64(0), high: UInt64(0))
        var seen: Set<CodeUnitName>?
        while true {
            guard !atEnd else { throw failure(.unexpectedEnd) }
            guard bytes[position] == UInt8(ascii: "\"") else { throw failure(.unexpectedCharacter) }
            let nameOffset = position
            let name = try parseString()
            if members.count < 32 {
                let fingerprint = nameFingerprint(from: nameOffset + 1, to: position - 1, name: name)
                let bit = UInt64(1) << (fingerprint & 63)
                let seenBefore = fingerprint < 64 ? filter.low & bit != 0 : filter.high & bit != 0
                if seenBefore, members.contains(where: { sameCodeUnits($0.name, name) }) {
                    throw JSONError(.duplicateMember(name), at: nameOffset)
                }
                if fingerprint < 64 { filter.low |= bit } else { filter.high |= bit }
            } else {
                if seen == nil { seen = Set(members.map { CodeUnitName(text: $0.name) }) }
                if seen?.insert(CodeUnitName(text: name)).inserted == false {
                    throw JSONError(.duplicateMember(name), at: nameOffset)
                }
            }
            skipWhitespace()
            guard !atEnd else { throw failure(.unexpectedEnd) }
            guard bytes[position] == UInt8(ascii: ":") else { throw failure(.unexpectedCharacter) }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONObject.Member(name: name, value: value))
            if try endOfItem(closing: UInt8(ascii: "}")) { return .object(JSONObject(uniqueMembers: members)) }
        }
    }

    mutating func parseArray() throws(JSONError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        if !atEnd, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            if try endOfItem(closing: UInt8(ascii: "]")) { return .array(elements) }
        }
    }

    // MARK: Strings

    /// A 7-bit hash of a member name's UTF-8 bytes (FNV-1a, folded): read from the input
    /// between `start` and `end` when the name has no escape there, else from `name` itself.
    func nameFingerprint(from start: Int, to end: Int, name: String) -> UInt8 {
        let raw = bytes[start..<end]
        return raw.contains(UInt8(ascii: "\\")) ? Self.fingerprint(of: name.utf8) : Self.fingerprint(of: raw)
    }

    static func fingerprint(of bytes: some Sequence<UInt8>) -> UInt8 {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return UInt8(truncatingIfNeeded: hash ^ hash >> 8 ^ hash >> 16 ^ hash >> 24) & 127
    }

    /// Parses a string starting at its opening quote.
    mutating func parseString() throws(JSONError) -> String {
        position += 1
        let start = position
        var asciiOnly = true
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = try makeString(start..<position, asciiOnly: asciiOnly)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure(.controlCharacterInString) }
            if byte >= 0x80 { asciiOnly = false }
            position += 1
        }
        guard position < bytes.count else { throw failure(.unexpectedEnd) }
        // Slow path: copy, resolving escapes.
        var buffer = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    throw JSONError(.invalidUTF8, at: start)
                }
                return text
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case 0..<0x20:
                throw failure(.controlCharacterInString)
            default:
                buffer.append(byte)
                position += 1
            }
        }
        throw failure(.unexpectedEnd)
    }

    func makeString(_ range: Range<Int>, asciiOnly: Bool) throws(JSONError) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        if asciiOnly { return String(decoding: slice, as: UTF8.self) }
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw JSONError(.invalidUTF8, at: range.lowerBound)
        }
        return text
    }

    /// Resolves the escape at `position` (a backslash) and appends its UTF-8 bytes.
    mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONError) {
        position += 1
        guard !atEnd else { throw failure(.unexpectedEnd) }
        let escaped = bytes[position]
        position += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escaped)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            let escapeStart = position - 2
            let unit = try parseHex4()
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw JSONError(.loneSurrogate, at: escapeStart) }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw JSONError(.loneSurrogate, at: escapeStart) }
                scalarValue = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw JSONError(.loneSurrogate, at: escapeStart)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { throw JSONError(.invalidEscape, at: escapeStart) }
            buffer.append(contentsOf: UTF8.encode(scalar).map { Array($0) } ?? [])
        default:
            position -= 1
            throw failure(.invalidEscape)
        }
    }

    mutating func parseHex4() throws(JSONError) -> UInt16 {
        guard bytes.count - position >= 4 else { throw failure(.unexpectedEnd) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure(.invalidEscape)
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    // MARK: Numbers

    func isDigit(_ index: Int) -> Bool {
        index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
    }

    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = position
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard isDigit(position) else { throw atEnd ? failure(.unexpectedEnd) : failure(.invalidNumber) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if isDigit(position) { throw failure(.invalidNumber) }  // no leading zeros
        } else {
            while isDigit(position) { position += 1 }
        }
        let integerEnd = position
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard isDigit(position) else { throw atEnd ? failure(.unexpectedEnd) : failure(.invalidNumber) }
            while isDigit(position) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard isDigit(position) else { throw atEnd ? failure(.unexpectedEnd) : failure(.invalidNumber) }
            while isDigit(position) { position += 1 }
        }
        if isInteger {
            // Accumulate negatively so that Int64.min fits.
            var value: Int64 = 0
            for index in (negative ? start + 1 : start)..<integerEnd {
                let digit = Int64(bytes[index] - UInt8(ascii: "0"))
                let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = shifted.subtractingReportingOverflow(digit)
                if overflow1 || overflow2 { throw JSONError(.numberOutOfRange, at: start) }
                value = next
            }
            if negative { return .integer(value) }
            guard value != Int64.min else { throw JSONError(.numberOutOfRange, at: start) }
            return .integer(-value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw JSONError(.numberOutOfRange, at: start) }
        return .double(value)
    }
}

extension JSONValue {
    /// Parses JSON text strictly.
    /// - Throws: `JSONError` with the reason and byte offset of the first problem.
    public init(parsing text: String) throws(JSONError) {
        var text = text
        self = try text.withUTF8 { buffer in
            Result { () throws(JSONError) in try JSONParser.parse(buffer) }
        }.get()
    }

    /// Parses JSON from UTF-8 bytes strictly.
    /// - Throws: `JSONError` with the reason and byte offset of the first problem.
    public init(parsing bytes: some Collection<UInt8>) throws(JSONError) {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONError) in try JSONParser.parse(buffer) }
        } ?? Array(bytes).withUnsafeBufferPointer { buffer in
            Result { () throws(JSONError) in try JSONParser.parse(buffer) }
        }
        self = try result.get()
    }
}
