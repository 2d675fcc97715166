extension Array where Element == UInt8 {
    /// Appends what `write` puts into a scratch buffer of `count` bytes; `write` returns how
    /// many it wrote (at most `count`). The writers that know their exact length (an escaped
    /// JSON string, a base64url encoding) fill it in one pass and the bytes are copied on in
    /// one block. Growing the array by `count` zeros first and writing over them went through
    /// the standard library's generic sequence path, element by element where it is not
    /// specialised (a debug build): seconds for a record of a megabyte.
    mutating func append(writing count: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        guard count > 0 else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { scratch in
            let written = write(scratch)
            append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<Swift.min(written, count)]))
        }
    }
}
