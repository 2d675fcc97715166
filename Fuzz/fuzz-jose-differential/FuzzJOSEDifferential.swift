import VersolaJOSE

// libFuzzer entry point for the in-place readings of ID tokens: every input is read as JSON by
// the strict parser and by skimming, and as a compact JWS by `JWS(compact:)` and in place; any
// disagreement (acceptance, error, member or part) is a bug in one of them and traps.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let disagreement = FastPathDifferential.disagreement(bytes) {
        fatalError("invariant broken: the fast and strict readings disagree (\(disagreement))")
    }
    return 0
}
