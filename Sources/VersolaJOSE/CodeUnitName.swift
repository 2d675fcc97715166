/// Whether two strings have the same UTF-8 code units. JSON member names compare this way,
/// code unit by code unit with no Unicode normalisation (RFC 8259 §8.3); Swift's `==` would
/// also equate canonically equivalent spellings, and costs more for the short ASCII names of
/// JOSE.
@inline(__always)
func sameCodeUnits(_ a: String, _ b: String) -> Bool {
    let count = a.utf8.count
    guard count == b.utf8.count else { return false }
    // A loop, not memcmp: names are a few bytes long, and the call alone cost more than the
    // comparison (3% of an ID token's validation).
    let compared = a.utf8.withContiguousStorageIfAvailable { x in
        b.utf8.withContiguousStorageIfAvailable { y in
            var index = 0
            while index < count {
                if x[index] != y[index] { return false }
                index += 1
            }
            return true
        }
    }
    if let compared, let compared { return compared }
    return a.utf8.elementsEqual(b.utf8)
}

/// A member name hashed and compared by its UTF-8 code units, for the parser's duplicate check
/// on large objects (the same equality as ``sameCodeUnits(_:_:)``).
struct CodeUnitName: Hashable {
    let text: String

    static func == (lhs: CodeUnitName, rhs: CodeUnitName) -> Bool { sameCodeUnits(lhs.text, rhs.text) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(text.utf8.count)
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }
}
