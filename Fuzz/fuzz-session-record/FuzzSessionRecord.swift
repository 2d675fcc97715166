import Dispatch
import Foundation
import Versola
import VersolaCrypto

// libFuzzer entry point for the stored session record (P5, P8, E9). The first byte picks the
// path, the rest is the data:
//   0: the plaintext record: `SessionRecord(serialized:)`; what decodes must serialize to bytes
//      that decode to the same record, and serialize deterministically;
//   1: the data sealed with the store's key and binding, written as the record file and
//      loaded by `FileSessionStore`: the load must agree with decoding the plaintext;
//   2: the data written as the record file as is: loading must fail with
//      `.reauthenticate(.credentialsInvalidated)` (nobody can forge the seal).
// Secrets never show in the record's description. A broken invariant traps on purpose.

private let profile = "fuzz"
/// Binds a sealed record to the profile and format version, as the store does.
private let associatedData = Array("versola session record v\(SessionRecord.formatVersion) profile \(profile)".utf8)
private let magic = Array("VSR1".utf8)

/// A per-process state directory; the record file is rewritten for every input.
private let stateHome: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "versola-fuzz-session-\(getpid())", isDirectory: true)
    try? FileManager.default.createDirectory(
        at: url.appendingPathComponent("versola/\(profile)"), withIntermediateDirectories: true)
    atexit {
        try? FileManager.default.removeItem(at: stateHome)
    }
    return url
}()

/// libFuzzer entry point: the first byte picks the path, the rest is the record data.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 3 {
    case 0: checkPlaintext(bytes)
    case 1: checkSealedLoad(bytes)
    default: checkForgedFile(bytes)
    }
    return 0
}

/// A finding: an invariant of the code under test does not hold.
private func finding(_ what: String) -> Never {
    fatalError("invariant broken: \(what)")
}

private func checkPlaintext(_ bytes: [UInt8]) {
    let record: SessionRecord
    do {
        record = try SessionRecord(serialized: bytes)
    } catch {
        if error != .reauthenticate(.credentialsInvalidated) { finding("a bad record gave another error") }
        return
    }
    let written = record.serialized()
    guard let again = try? SessionRecord(serialized: written) else { finding("a serialized record does not decode") }
    if again != record { finding("serialize then decode changed the record") }
    if again.serialized() != written { finding("serialization is not deterministic") }

    var masked = record
    masked.refreshToken = record.refreshToken.map { _ in "\u{1}" }
    masked.idToken = record.idToken.map { _ in "\u{1}" }
    masked.dpopPrivateKey = record.dpopPrivateKey.map { _ in [1] }
    if var pending = masked.pendingAuthorization {
        pending.codeVerifier = "\u{1}"
        pending.state = "\u{1}"
        pending.nonce = "\u{1}"
        masked.pendingAuthorization = pending
        if pending.description != record.pendingAuthorization?.description {
            finding("a secret shows in PendingAuthorization.description")
        }
    }
    if var device = masked.pendingDeviceAuthorization {
        device.deviceCode = "\u{1}"
        masked.pendingDeviceAuthorization = device
        if device.description != record.pendingDeviceAuthorization?.description {
            finding("a secret shows in PendingDeviceAuthorization.description")
        }
    }
    if masked.description != record.description { finding("a secret shows in SessionRecord.description") }
}

private func checkSealedLoad(_ bytes: [UInt8]) {
    guard let key = fixedKey(), let sealed = try? AESGCM.seal(bytes, key: key, authenticating: associatedData) else {
        finding("sealing failed")
    }
    let expected = try? SessionRecord(serialized: bytes)
    switch load(magic + sealed, key: key) {
    case .success(let record):
        if record == nil || record != expected { finding("the store loaded another record than the plaintext holds") }
    case .failure(let error):
        if expected != nil { finding("the store failed on a good record: \(error)") }
        if error != .reauthenticate(.credentialsInvalidated) { finding("a bad sealed record gave \(error)") }
    }
}

private func checkForgedFile(_ bytes: [UInt8]) {
    guard let key = fixedKey() else { finding("the fixed key does not build") }
    switch load(bytes, key: key) {
    case .success: finding("an unsealed file loaded")
    case .failure(let error):
        if error != .reauthenticate(.credentialsInvalidated) { finding("a forged file gave \(error)") }
    }
}

private func fixedKey() -> SymmetricKey? {
    try? SymmetricKey(bytes: (0..<32).map { UInt8($0 &* 7 &+ 3) })
}

/// Writes `file` as the profile's record file and loads it through the store.
private func load(_ file: [UInt8], key: SymmetricKey) -> Result<SessionRecord?, VersolaError> {
    let path = stateHome.appendingPathComponent("versola/\(profile)/session").path
    guard FileManager.default.createFile(atPath: path, contents: Data(file)) else { finding("cannot write \(path)") }
    guard let store = try? FileSessionStore(profile: profile, directory: stateHome, keySource: FixedKeySource(key: key))
    else { finding("the store does not build") }
    let box = ResultBox()
    Task {
        do throws(VersolaError) {
            box.result = .success(try await store.load())
        } catch {
            box.result = .failure(error)
        }
        box.done.signal()
    }
    box.done.wait()
    return box.result
}

/// Carries a result out of a task to the fuzzer's thread, which waits on `done`.
private final class ResultBox: @unchecked Sendable {
    var result: Result<SessionRecord?, VersolaError> = .success(nil)
    let done = DispatchSemaphore(value: 0)
}
