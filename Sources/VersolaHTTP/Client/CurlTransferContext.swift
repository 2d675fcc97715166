import Synchronization

/// What libcurl's header, body and progress callbacks collect during one transfer.
///
/// The callbacks run on the thread performing the transfer, one at a time, and the context is
/// read only after `curl_easy_perform` returned; the only cross-thread field is the atomic
/// cancel flag. It is handed to libcurl through `Unmanaged` and kept alive by the transfer.
final class CurlTransferContext: @unchecked Sendable {
    /// Why a callback stopped the transfer.
    enum AbortReason: Equatable {
        case headerBlockTooLarge
        case bodyTooLarge
        case cancelled
    }

    let maxHeaderBytes: Int
    let maxBodyBytes: Int
    /// Set from any thread when the Swift task is cancelled; the progress callback then aborts.
    let cancelRequested = Atomic<Bool>(false)

    private(set) var status = 0
    private(set) var fields: [HTTPHeaders.Field] = []
    private(set) var headerBytes = 0
    /// Whether the blank line ending the final answer's header block arrived.
    private(set) var headerBlockComplete = false
    private(set) var body: [UInt8] = []
    private(set) var abortReason: AbortReason?

    init(maxHeaderBytes: Int, maxBodyBytes: Int) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
    }

    /// Takes one header line as libcurl delivers it (CRLF included). Returns false to abort.
    ///
    /// A status line starts a new answer (interim 1xx answers and proxy CONNECT answers are
    /// replaced by the next one), an empty line ends the block, a line starting with
    /// whitespace continues the previous field (obsolete folding), anything else is `name: value`.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        guard headerBytes <= maxHeaderBytes else {
            abortReason = .headerBlockTooLarge
            return false
        }
        var line = Array(bytes)
        while let last = line.last, last == 0x0A || last == 0x0D { line.removeLast() }
        if line.isEmpty {
            headerBlockComplete = status != 0
            return true
        }
        if line.starts(with: Array("HTTP/".utf8)) {
            startAnswer(statusLine: line)
        } else if line[0] == 0x20 || line[0] == 0x09 {
            continueField(line)
        } else if let colon = line.firstIndex(of: 0x3A) {
            let name = String(decoding: line[..<colon], as: UTF8.self)
            let value = Self.trimmed(String(decoding: line[(colon + 1)...], as: UTF8.self))
            fields.append(HTTPHeaders.Field(name: name, value: value))
        }
        return true
    }

    /// Takes a chunk of body bytes. Returns false (abort) when the body would pass its limit.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= maxBodyBytes else {
            abortReason = .bodyTooLarge
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Called by the progress callback: true when the transfer must stop because the task was cancelled.
    func shouldAbortForCancel() -> Bool {
        guard cancelRequested.load(ordering: .relaxed) else { return false }
        abortReason = .cancelled
        return true
    }

    /// Records that the body limit was hit by libcurl's own `Content-Length` check.
    func noteBodyTooLarge() {
        abortReason = .bodyTooLarge
    }

    private func startAnswer(statusLine: [UInt8]) {
        fields = []
        headerBlockComplete = false
        let parts = statusLine.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: true)
        status = 0
        if parts.count >= 2, parts[1].count == 3, let code = Int(String(decoding: parts[1], as: UTF8.self)) {
            status = code
        }
    }

    private func continueField(_ line: [UInt8]) {
        guard var last = fields.popLast() else { return }
        let more = Self.trimmed(String(decoding: line, as: UTF8.self))
        last.value = last.value.isEmpty ? more : "\(last.value) \(more)"
        fields.append(last)
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
