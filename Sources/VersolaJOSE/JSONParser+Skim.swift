/// Where one member of a JSON object is in the text it was skimmed from.
package struct JSONMemberSpan: Sendable {
    /// The bytes between the name's quotes.
    package let nameRange: Range<Int>
    /// The name decoded, only when those bytes are not already its UTF-8 (it had an escape, or
    /// non-ASCII bytes the parser checked in full).
    package let decodedName: String?
    /// The value's bytes: a complete JSON text, which ``JSONValue/init(parsing:)-(Collection<UInt8>)``
    /// turns into the very value the strict parser builds.
    package let valueRange: Range<Int>

    /// Runs `body` with the name's UTF-8 code units.
    package func withNameBytes<R>(in text: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard var decoded = decodedName else { return body(UnsafeBufferPointer(rebasing: text[nameRange])) }
        return decoded.withUTF8(body)
    }
}

extension JSONValue {
    /// Checks UTF-8 JSON text exactly as ``init(parsing:)-(Collection<UInt8>)`` does, and
    /// throws the same error for the same text, but builds no value: it only says where the
    /// members of a top-level object are (nil when the text is valid JSON but not an object).
    ///
    /// This is the fast reading of ID token claims: a value is built later only for the members
    /// read. The strict parser stays the reference; the two are compared on every input of the
    /// JOSE fuzz corpus and by the `fuzz-jose-differential` target.
    package static func skimObject(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> [JSONMemberSpan]? {
        try JSONParser.skim(bytes)
    }

    /// ``skimObject(_:)`` that hands each member of the top-level object to `visit` as it is
    /// read, in order, instead of collecting them: nothing is allocated for a claims set.
    /// `visit` may see members of a text that later turns out invalid (the error still comes).
    /// - Returns: whether the text is an object.
    package static func skimObject(
        _ bytes: UnsafeBufferPointer<UInt8>, visit: (JSONMemberSpan) -> Void
    ) throws(JSONError) -> Bool {
        try JSONParser.skim(bytes, visit: visit)
    }

    /// ``init(parsing:)-(Collection<UInt8>)`` over a buffer, with no generic entry between
    /// modules (the members of a skimmed object are parsed this way, one at a time).
    package init(parsingBuffer bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) {
        self = try JSONParser.parse(bytes)
    }
}

/// A string skimmed: its bytes between the quotes, and the decoded text when that had to be made.
private typealias SkimmedString = (range: Range<Int>, decoded: String?)

extension JSONParser {
    /// ``parse(_:)`` without building: the same grammar, checks, errors and positions.
    static func skim(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> [JSONMemberSpan]? {
        var members: [JSONMemberSpan] = []
        members.reserveCapacity(32)
        return try skim(bytes) { members.append($0) } ? members : nil
    }

    /// ``skim(_:)`` handing the top-level object's members to `visit`; whether it is an object.
    static func skim(_ bytes: UnsafeBufferPointer<UInt8>, visit: (JSONMemberSpan) -> Void) throws(JSONError) -> Bool {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let isObject = !parser.atEnd && bytes[parser.position] == UInt8(ascii: "{")
        if isObject {
            try parser.skimObject(visit: visit)
        } else {
            try parser.skimValue()
        }
        parser.skipWhitespace()
        if parser.position != bytes.count { throw JSONError(.trailingCharacters, at: parser.position) }
        return isObject
    }

    private mutating func skimValue() throws(JSONError) {
        guard !atEnd else { throw failure(.unexpectedEnd) }
        switch bytes[position] {
        case UInt8(ascii: "{"): try skimObject { _ in }
        case UInt8(ascii: "["): try skimArray()
        case UInt8(ascii: "\""): _ = try skimString()
        // Literals, numbers and wrong bytes: the parser's own code (a scalar is all it makes).
        default: _ = try parseValue()
        }
    }

    /// The string at `position` (its opening quote). Plain ASCII without escapes is only
    /// scanned; anything else goes through ``parseString()``, whose checks decide.
    private mutating func skimString() throws(JSONError) -> SkimmedString {
        let quote = position
        var index = position + 1
        // Eight bytes at a time while none of them is a quote, a backslash, a control
        // character or non-ASCII; then straight to the first that is, which the loop below
        // looks at (with the rest, one by one, near the end of the text).
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                let flags = Self.lookFlags(UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
                if flags == 0 {
                    index += 8
                } else {
                    index += flags.trailingZeroBitCount / 8
                    break
                }
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                position = index + 1
                return ((quote + 1)..<index, nil)
            }
            if byte == UInt8(ascii: "\\") || byte >= 0x80 { break }
            if byte < 0x20 {
                position = index
                throw failure(.controlCharacterInString)
            }
            index += 1
        }
        position = quote
        let text = try parseString()
        return ((quote + 1)..<(position - 1), text)
    }

    /// The high bit of each byte of `word` (loaded little-endian) that may be `"`, `\\`, below
    /// 0x20 or above 0x7F (the "has a zero byte" and "has a byte below n" tests of
    /// bit-twiddling lore). The lowest bit set is exact: a borrow only runs upwards, so only
    /// bytes above the first such byte can be flagged wrongly.
    @inline(__always)
    private static func lookFlags(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let found =
            ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | ((word &- ones &* 0x20) & ~word) | word
        return found & highs
    }

    private mutating func skimArray() throws(JSONError) {
        try enterContainer()
        if !atEnd, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return
        }
        while true {
            try skimValue()
            if try endOfItem(closing: UInt8(ascii: "]")) { return }
        }
    }

    /// An object's members, each handed to `visit` once its value is read.
    private mutating func skimObject(visit: (JSONMemberSpan) -> Void) throws(JSONError) {
        try enterContainer()
        if !atEnd, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return
        }
        var names = NameCheck()
        while true {
            guard !atEnd else { throw failure(.unexpectedEnd) }
            guard bytes[position] == UInt8(ascii: "\"") else { throw failure(.unexpectedCharacter) }
            let nameOffset = position
            let name = try skimString()
            try names.insert(name, at: nameOffset, bytes: bytes)
            skipWhitespace()
            guard !atEnd else { throw failure(.unexpectedEnd) }
            guard bytes[position] == UInt8(ascii: ":") else { throw failure(.unexpectedCharacter) }
            position += 1
            skipWhitespace()
            let valueStart = position
            try skimValue()
            visit(JSONMemberSpan(nameRange: name.range, decodedName: name.decoded, valueRange: valueStart..<position))
            if try endOfItem(closing: UInt8(ascii: "}")) { return }
        }
    }
}

/// The duplicate-name check of ``JSONParser/parseObject()`` over skimmed names: the same
/// fingerprint filter for the first 32 members, then the same set, compared by code units. It
/// keeps where the first 32 names are (and the few that had to be decoded), so a name whose
/// fingerprint was seen is compared only with the names of that fingerprint.
private struct NameCheck {
    private static let filtered = 32
    private var filter = (low: UInt64(0), high: UInt64(0))
    private var count = 0
    private var ranges = InlineArray<32, Range<Int>>(repeating: 0..<0)
    private var fingerprints = InlineArray<32, UInt8>(repeating: 0)
    /// The decoded names among the first 32, by index (names with escapes are rare: nil until one comes).
    private var decoded: [Int: String]?
    private var seen: Set<CodeUnitName>?

    mutating func insert(_ name: SkimmedString, at offset: Int, bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) {
        let raw = UnsafeBufferPointer(rebasing: bytes[name.range])
        defer { count += 1 }
        guard count < Self.filtered else {
            if seen == nil { seen = Set((0..<Self.filtered).map { CodeUnitName(text: self.text(at: $0, in: bytes)) }) }
            let text = Self.text(of: name, raw)
            if seen?.insert(CodeUnitName(text: text)).inserted == false {
                throw JSONError(.duplicateMember(text), at: offset)
            }
            return
        }
        let fingerprint = Self.withBytes(of: name, raw, Self.fingerprint(of:))
        let bit = UInt64(1) << (fingerprint & 63)
        let seenBefore = fingerprint < 64 ? filter.low & bit != 0 : filter.high & bit != 0
        if seenBefore {
            for index in 0..<count where fingerprints[index] == fingerprint {
                let same = withBytes(at: index, in: bytes) { earlier in Self.withBytes(of: name, raw) { earlier.elementsEqual($0) } }
                if same { throw JSONError(.duplicateMember(Self.text(of: name, raw)), at: offset) }
            }
        }
        if fingerprint < 64 { filter.low |= bit } else { filter.high |= bit }
        ranges[count] = name.range
        fingerprints[count] = fingerprint
        if let text = name.decoded {
            if decoded == nil { decoded = [:] }
            decoded?[count] = text
        }
    }

    /// A 7-bit filter value of a name from its length and three of its bytes: names that
    /// differ there (nearly all claim names do) never need comparing. Any function of the
    /// bytes would be exact, as equal fingerprints only lead to a comparison.
    private static func fingerprint(of name: UnsafeBufferPointer<UInt8>) -> UInt8 {
        guard let first = name.first, let last = name.last else { return 0 }
        let mixed = name.count &* 0x9D &+ Int(first) &* 0x3B &+ Int(name[name.count / 2]) &* 0x61 &+ Int(last)
        return UInt8(truncatingIfNeeded: mixed ^ mixed >> 7) & 127
    }

    /// Runs `body` with the UTF-8 of the name kept at `index`.
    private func withBytes<R>(at index: Int, in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard var text = decoded?[index] else { return body(UnsafeBufferPointer(rebasing: bytes[ranges[index]])) }
        return text.withUTF8(body)
    }

    private func text(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        decoded?[index] ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[ranges[index]]), as: UTF8.self)
    }

    private static func withBytes<R>(
        of name: SkimmedString, _ raw: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
        guard var decoded = name.decoded else { return body(raw) }
        return decoded.withUTF8(body)
    }

    private static func text(of name: SkimmedString, _ raw: UnsafeBufferPointer<UInt8>) -> String {
        name.decoded ?? String(decoding: raw, as: UTF8.self)
    }
}
