import VersolaHTTP
/// Why stored bytes are not a ``SessionRecord``. Names fields, never values.
struct SessionRecordFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, e.g. `missing member "issuer"`.
    var reason: String

    init(_ reason: String) { self.reason = reason }

    var description: String { "not a session record: \(reason)" }
}
