/// An incremental HTTP/1.1 request parser (RFC 9112) with no I/O: feed it bytes as they
/// arrive with ``append(_:)`` and take events with ``next()`` until it returns nil.
///
/// It is strict where leniency has caused request smuggling:
/// - lines end with CRLF; a bare LF or a bare CR is 400;
/// - obs-fold (a header line starting with a space or tab) is 400;
/// - whitespace between a field name and its colon is 400;
/// - a request with more than one `Content-Length` (repeated fields or a list), or a value
///   that is not all digits, is 400; one larger than the limit is 413;
/// - any `Transfer-Encoding` on a request is answered 501: request bodies must carry a
///   `Content-Length` (chunked uploads are not supported);
/// - an HTTP/1.1 request must carry exactly one `Host` (400 otherwise).
/// Empty lines before a request line are skipped (RFC 9112 §2.2). After a failure the
/// parser stays failed: the connection must be closed.
///
/// ```swift
/// var parser = HTTPRequestParser(limits: HTTPServerLimits())
/// parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
/// if case .request(let request)? = parser.next() { print(request.path) }
/// ```
public struct HTTPRequestParser: Sendable {
    /// What the parser found in the bytes given so far.
    public enum Event: Sendable, Hashable {
        /// A complete request. Further requests on the same connection may follow.
        case request(HTTPServerRequest)
        /// The head asked `Expect: 100-continue` and the body has not all arrived: the
        /// server should send `100 Continue`. Given at most once per request.
        case continueExpected
        /// The input cannot be served; answer `error.status`, then close the connection.
        case failure(HTTPRequestParseError)
    }

    /// A request head whose body is still awaited.
    private struct Head: Sendable {
        var method: String
        var target: String
        var version: HTTPServerRequest.Version
        var headers = HTTPHeaders()
        var headerBytes = 0
        var bodyLength = 0
        var keepAlive = true
        var expectsContinue = false
    }

    private enum State: Sendable {
        case requestLine
        case headers(Head)
        case body(Head)
        case failed(HTTPRequestParseError)
    }

    /// The limits this parser enforces.
    public let limits: HTTPServerLimits
    private var buffer: [UInt8] = []
    /// Index of the first byte not yet consumed.
    private var start = 0
    /// How many bytes after `start` are known to hold no LF.
    private var scanned = 0
    private var state = State.requestLine

    /// Creates a parser enforcing `limits`.
    public init(limits: HTTPServerLimits = HTTPServerLimits()) {
        self.limits = limits
    }

    /// Adds bytes received from the connection.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if case .failed = state { return }
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Whether some bytes of an unfinished request are buffered (a connection that times
    /// out in this state is owed a 408 rather than a silent close).
    public var hasPartialRequest: Bool {
        switch state {
        case .requestLine: buffer[start...].contains { $0 != Self.cr && $0 != Self.lf }
        case .headers, .body: true
        case .failed: false
        }
    }

    /// Whether the parser has failed; it then ignores further input.
    public var hasFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// The next event, or nil when more bytes are needed.
    public mutating func next() -> Event? {
        while true {
            switch state {
            case .failed(let error):
                return .failure(error)
            case .requestLine:
                switch nextLine(limit: limits.maxRequestLineBytes + 1) {
                case .needMore: return nil
                case .failure(let error): return fail(error)
                case .tooLong: return fail(.requestLineTooLong)
                case .line(let range):
                    if range.isEmpty { continue }  // RFC 9112 §2.2: skip empty lines
                    if range.count > limits.maxRequestLineBytes { return fail(.requestLineTooLong) }
                    switch parseRequestLine(range) {
                    case .success(let head): state = .headers(head)
                    case .failure(let error): return fail(error)
                    }
                }
            case .headers(var head):
                let budget = limits.maxHeaderBytes - head.headerBytes
                switch nextLine(limit: max(budget - 1, 1)) {
                case .needMore: return nil
                case .failure(let error): return fail(error)
                case .tooLong: return fail(.headersTooLarge)
                case .line(let range):
                    if range.isEmpty {
                        switch finishHead(head) {
                        case .failure(let error): return fail(error)
                        case .success(let finished): state = .body(finished)
                        }
                        continue
                    }
                    head.headerBytes += range.count + 2
                    if head.headerBytes > limits.maxHeaderBytes { return fail(.headersTooLarge) }
                    if head.headers.count >= limits.maxHeaderCount { return fail(.tooManyHeaders) }
                    if let error = parseField(range, into: &head.headers) { return fail(error) }
                    state = .headers(head)
                }
            case .body(var head):
                let available = buffer.count - start
                if available < head.bodyLength {
                    if head.expectsContinue {
                        head.expectsContinue = false
                        state = .body(head)
                        return .continueExpected
                    }
                    return nil
                }
                let body = Array(buffer[start..<start + head.bodyLength])
                start += head.bodyLength
                scanned = 0
                state = .requestLine
                return .request(
                    HTTPServerRequest(
                        method: head.method, target: head.target, version: head.version,
                        headers: head.headers, body: body, keepAlive: head.keepAlive))
            }
        }
    }

    // MARK: - Lines

    private enum LineResult {
        case line(Range<Int>)
        case needMore
        case tooLong
        case failure(HTTPRequestParseError)
    }

    /// Finds the next CRLF-terminated line (its content without the CRLF) and consumes it.
    /// `limit` is the most content bytes (CR included) that may wait without an LF.
    private mutating func nextLine(limit: Int) -> LineResult {
        let searchFrom = start + scanned
        guard let lf = buffer[searchFrom...].firstIndex(of: Self.lf) else {
            if let cr = buffer[searchFrom...].firstIndex(of: Self.cr), cr < buffer.count - 1 {
                return .failure(.malformed("bare CR"))
            }
            let pending = buffer.count - start
            // A CR as the last byte is looked at again: the next byte decides if it is bare.
            scanned = pending > 0 && buffer[buffer.count - 1] == Self.cr ? pending - 1 : pending
            return pending > limit ? .tooLong : .needMore
        }
        guard lf > start, buffer[lf - 1] == Self.cr else {
            return .failure(.malformed("line ends with a bare LF"))
        }
        let range = start..<(lf - 1)
        if buffer[range].contains(Self.cr) { return .failure(.malformed("bare CR")) }
        start = lf + 1
        scanned = 0
        return .line(range)
    }

    private mutating func fail(_ error: HTTPRequestParseError) -> Event {
        state = .failed(error)
        buffer = []
        start = 0
        scanned = 0
        return .failure(error)
    }

    // MARK: - Request line

    private func parseRequestLine(_ range: Range<Int>) -> Result<Head, HTTPRequestParseError> {
        let line = buffer[range]
        let parts = line.split(separator: Self.space, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            return .failure(.malformed("request line is not METHOD SP TARGET SP VERSION"))
        }
        let (methodBytes, targetBytes, versionBytes) = (parts[0], parts[1], parts[2])
        guard methodBytes.allSatisfy(Self.isTokenByte) else { return .failure(.malformed("bad method")) }
        guard targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.malformed("bad request target"))
        }
        let version: HTTPServerRequest.Version
        switch Self.parseVersion(versionBytes) {
        case .failure(let error): return .failure(error)
        case .success(let parsed): version = parsed
        }
        let method = String(decoding: methodBytes, as: UTF8.self)
        let target = String(decoding: targetBytes, as: UTF8.self)
        guard Self.isAcceptableTarget(target, method: method) else {
            return .failure(.malformed("unsupported request target form"))
        }
        return .success(Head(method: method, target: target, version: version))
    }

    private static func parseVersion(_ bytes: ArraySlice<UInt8>) -> Result<HTTPServerRequest.Version, HTTPRequestParseError> {
        let prefix = Array("HTTP/".utf8)
        guard bytes.count == 8, bytes.starts(with: prefix) else { return .failure(.malformed("bad HTTP version")) }
        let major = bytes[bytes.startIndex + 5]
        let dot = bytes[bytes.startIndex + 6]
        let minor = bytes[bytes.startIndex + 7]
        guard isDigit(major), dot == UInt8(ascii: "."), isDigit(minor) else {
            return .failure(.malformed("bad HTTP version"))
        }
        switch (major, minor) {
        case (UInt8(ascii: "1"), UInt8(ascii: "1")): return .success(.http1_1)
        case (UInt8(ascii: "1"), UInt8(ascii: "0")): return .success(.http1_0)
        default: return .failure(.versionNotSupported)
        }
    }

    /// Origin-form (`/…`), absolute-form (`http://…`, `https://…`) or `*` for OPTIONS.
    private static func isAcceptableTarget(_ target: String, method: String) -> Bool {
        if target.hasPrefix("/") { return true }
        if target == "*" { return method == "OPTIONS" }
        let lowered = target.lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }

    // MARK: - Header fields

    private func parseField(_ range: Range<Int>, into headers: inout HTTPHeaders) -> HTTPRequestParseError? {
        let line = buffer[range]
        guard let first = line.first, first != Self.space, first != Self.tab else {
            return .malformed("obsolete line folding")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            return .malformed("header line without a colon")
        }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else {
            return .malformed("bad header field name")
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == Self.space || byte == Self.tab { value = value.dropFirst() }
        while let byte = value.last, byte == Self.space || byte == Self.tab { value = value.dropLast() }
        guard value.allSatisfy(Self.isFieldValueByte) else {
            return .malformed("bad byte in a header field value")
        }
        headers.add(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        return nil
    }

    /// Checks the head once all fields are in and works out the body length and
    /// connection persistence.
    private func finishHead(_ head: Head) -> Result<Head, HTTPRequestParseError> {
        var head = head
        let hosts = head.headers.values("Host")
        if hosts.count > 1 || (head.version == .http1_1 && hosts.isEmpty) {
            return .failure(.malformed("an HTTP/1.1 request needs exactly one Host"))
        }
        if head.headers.contains("Transfer-Encoding") {
            return .failure(.transferEncodingNotImplemented)
        }
        let lengths = head.headers.values("Content-Length")
        if lengths.count > 1 { return .failure(.malformed("more than one Content-Length")) }
        if let length = lengths.first {
            guard !length.isEmpty, length.utf8.allSatisfy(Self.isDigit) else {
                return .failure(.malformed("Content-Length is not a number"))
            }
            guard let value = Int(length), value <= limits.maxBodyBytes else {
                return .failure(.bodyTooLarge)
            }
            head.bodyLength = value
        }
        let connection = Self.tokens(head.headers.values("Connection"))
        switch head.version {
        case .http1_1: head.keepAlive = !connection.contains("close")
        case .http1_0: head.keepAlive = connection.contains("keep-alive") && !connection.contains("close")
        }
        head.expectsContinue =
            head.bodyLength > 0 && head.version == .http1_1
            && Self.tokens(head.headers.values("Expect")).contains("100-continue")
        return .success(head)
    }

    /// Lower-cased comma-separated tokens of every field value.
    private static func tokens(_ values: [String]) -> Set<String> {
        var result = Set<String>()
        for value in values {
            for piece in value.split(separator: ",") {
                let token = piece.trimmingSpaces.lowercased()
                if !token.isEmpty { result.insert(token) }
            }
        }
        return result
    }

    // MARK: - Bytes

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// RFC 9110 §5.5: visible characters, space, tab and obs-text.
    private static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
