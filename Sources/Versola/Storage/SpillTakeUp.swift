import VersolaHTTP

/// A record another process spilled (P10) that this process took up under the profile lock:
/// where it was, where it belongs, and whether the record file now holds it.
package struct SpillTakeUp: Sendable, Hashable {
    /// The spill file it was read from.
    package var spillPath: String
    /// The profile's record file.
    package var recordPath: String
    /// Whether it was written to the record file (false: the disk still refuses it, and the
    /// spill stays where it is).
    package var written: Bool
}
