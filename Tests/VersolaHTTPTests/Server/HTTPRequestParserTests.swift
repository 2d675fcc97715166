import Testing

@testable import VersolaHTTP

/// The request parser on its own, fed whole, pipelined and byte by byte.
/// Rule: SPEC A4 (the loopback listener parses every request safely, whatever arrives).
@Suite struct HTTPRequestParserTests {
    /// Feeds `text` (whole or one byte at a time) and collects every event until the
    /// parser asks for more or fails.
    static func events(_ text: String, limits: HTTPServerLimits = HTTPServerLimits(), byteByByte: Bool = false)
        -> [HTTPRequestParser.Event]
    {
        events(Array(text.utf8), limits: limits, byteByByte: byteByByte)
    }

    static func events(_ bytes: [UInt8], limits: HTTPServerLimits = HTTPServerLimits(), byteByByte: Bool = false)
        -> [HTTPRequestParser.Event]
    {
        var parser = HTTPRequestParser(limits: limits)
        var result: [HTTPRequestParser.Event] = []
        func drain() -> Bool {
            while let event = parser.next() {
                result.append(event)
                if case .failure = event { return false }
            }
            return true
        }
        if byteByByte {
            for byte in bytes {
                parser.append([byte])
                if !drain() { break }
            }
        } else {
            parser.append(bytes)
            _ = drain()
        }
        return result
    }

    static func requests(_ events: [HTTPRequestParser.Event]) -> [HTTPServerRequest] {
        events.compactMap { if case .request(let request) = $0 { request } else { nil } }
    }

    static func failureStatus(_ events: [HTTPRequestParser.Event]) -> Int? {
        events.lazy.compactMap { if case .failure(let error) = $0 { error.status } else { nil } }.first
    }

    /// The status of the first failure for `text`, fed whole and byte by byte (both must agree).
    static func status(_ text: String, limits: HTTPServerLimits = HTTPServerLimits()) -> Int? {
        let whole = failureStatus(events(text, limits: limits))
        let split = failureStatus(events(text, limits: limits, byteByByte: true))
        return whole == split ? whole : -1
    }

    @Test func parsesASimpleGet() throws {
        let text = "GET /callback?code=a%2Bb&state=x+y HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n"
        for byteByByte in [false, true] {
            let request = try #require(Self.requests(Self.events(text, byteByByte: byteByByte)).first)
            #expect(request.method == "GET")
            #expect(request.target == "/callback?code=a%2Bb&state=x+y")
            #expect(request.path == "/callback")
            #expect(request.query == "code=a%2Bb&state=x+y")
            #expect(request.queryValue("code") == "a+b")
            #expect(request.queryValue("state") == "x y")
            #expect(request.version == .http1_1)
            #expect(request.headers["host"] == "127.0.0.1")
            #expect(request.headers.count == 2)
            #expect(request.body.isEmpty)
            #expect(request.keepAlive)
        }
    }

    @Test func parsesAContentLengthBody() throws {
        let text = "POST /token HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\ncode=1&x=%7"
        let request = try #require(Self.requests(Self.events(text, byteByByte: true)).first)
        #expect(request.body == Array("code=1&x=%7".utf8))
        #expect(request.formValue("code") == "1")
        #expect(request.formValue("x") == "%7")  // a malformed escape is kept literally
    }

    @Test func pipelinedRequestsComeOutInOrder() {
        let text =
            "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
            + "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz"
            + "GET /c HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
        for byteByByte in [false, true] {
            let requests = Self.requests(Self.events(text, byteByByte: byteByByte))
            #expect(requests.map(\.path) == ["/a", "/b", "/c"])
            #expect(requests.map(\.keepAlive) == [true, true, false])
            #expect(requests.count == 3 && requests[1].body == Array("xyz".utf8))
        }
    }

    @Test func incompleteInputWaitsForMore() {
        var parser = HTTPRequestParser()
        parser.append(Array("GET / HTTP/1.1\r\nHost: h\r\n".utf8))
        #expect(parser.next() == nil)
        #expect(parser.hasPartialRequest)
        parser.append(Array("\r".utf8))
        #expect(parser.next() == nil)
        parser.append(Array("\n".utf8))
        #expect(Self.requests([parser.next()].compactMap { $0 }).count == 1)
        #expect(!parser.hasPartialRequest)
    }

    @Test func keepAliveRules() throws {
        func keepAlive(_ version: String, _ connection: String?) throws -> Bool {
            var text = "GET / \(version)\r\nHost: h\r\n"
            if let connection { text += "Connection: \(connection)\r\n" }
            return try #require(Self.requests(Self.events(text + "\r\n")).first).keepAlive
        }
        #expect(try keepAlive("HTTP/1.1", nil))
        #expect(try !keepAlive("HTTP/1.1", "close"))
        #expect(try !keepAlive("HTTP/1.1", "Upgrade, CLOSE"))
        #expect(try !keepAlive("HTTP/1.0", nil))
        #expect(try keepAlive("HTTP/1.0", "keep-alive"))
    }

    @Test func http10NeedsNoHost() {
        #expect(Self.requests(Self.events("GET / HTTP/1.0\r\n\r\n")).count == 1)
    }

    @Test func leadingEmptyLinesAreSkipped() {
        #expect(Self.requests(Self.events("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")).count == 1)
    }

    @Test func absoluteFormAndAsteriskTargets() throws {
        let absolute = try #require(
            Self.requests(Self.events("GET http://h:1/p/q?x=1 HTTP/1.1\r\nHost: h\r\n\r\n")).first)
        #expect(absolute.path == "/p/q")
        #expect(absolute.queryValue("x") == "1")
        #expect(Self.requests(Self.events("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n")).first?.path == "*")
        #expect(Self.status("GET * HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(Self.status("GET example.com:443 HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
    }

    @Test func expectContinueIsAnnouncedOnce() {
        let text = "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
        var parser = HTTPRequestParser()
        parser.append(Array(text.utf8))
        #expect(parser.next() == .continueExpected)
        #expect(parser.next() == nil)
        parser.append(Array("ok".utf8))
        #expect(Self.requests([parser.next()].compactMap { $0 }).first?.body == Array("ok".utf8))
    }

    // MARK: Malformed input → 400

    @Test(arguments: [
        "GET /  HTTP/1.1\r\nHost: h\r\n\r\n",  // two spaces
        "GET / HTTP/1.1 \r\nHost: h\r\n\r\n",  // trailing space
        " GET / HTTP/1.1\r\nHost: h\r\n\r\n",  // leading space
        "GET\r\nHost: h\r\n\r\n",
        "G@T / HTTP/1.1\r\nHost: h\r\n\r\n",  // bad method byte
        "GET /a\u{7F}b HTTP/1.1\r\nHost: h\r\n\r\n",  // DEL in the target
        "GET nopath HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET / http/1.1\r\nHost: h\r\n\r\n",  // version is case-sensitive
        "GET / HTTP/1.10\r\nHost: h\r\n\r\n",
        "GET / HTTP/x.1\r\nHost: h\r\n\r\n",
    ])
    func malformedRequestLinesAre400(_ text: String) {
        #expect(Self.status(text) == 400)
    }

    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: h\r\nBad Name: v\r\n\r\n",  // space in name
        "GET / HTTP/1.1\r\nHost: h\r\nName : v\r\n\r\n",  // space before colon
        "GET / HTTP/1.1\r\nHost: h\r\n: v\r\n\r\n",  // empty name
        "GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\nNa(me: v\r\n\r\n",  // separator in name
        "GET / HTTP/1.1\r\nHost: h\r\nName: a\u{01}b\r\n\r\n",  // control byte in value
        "GET / HTTP/1.1\r\nHost: h\r\nName: a\r\n folded\r\n\r\n",  // obs-fold
        "GET / HTTP/1.1\r\nHost: h\r\nName: a\r\n\tfolded\r\n\r\n",  // obs-fold with tab
    ])
    func badHeaderFieldsAre400(_ text: String) {
        #expect(Self.status(text) == 400)
    }

    @Test func bareLineFeedsAndCarriageReturnsAre400() {
        #expect(Self.status("GET / HTTP/1.1\nHost: h\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: h\r\n\n") == 400)
        #expect(Self.status("\nGET / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n") == 400)
        #expect(Self.status("GET /\r HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
    }

    /// Fuzz finding (crash-2f9e9151…): a CR ending one chunk escaped the bare-CR check
    /// when the next chunk did not start with LF, so split input waited where whole input failed.
    @Test func bareCarriageReturnAtAChunkEndIsStillFound() {
        var parser = HTTPRequestParser()
        parser.append(Array("GET /abc\r".utf8))
        #expect(parser.next() == nil)
        parser.append(Array("x HTTP/1.1".utf8))
        #expect(parser.next() == .failure(HTTPRequestParseError(status: 400, detail: "bare CR")))
        let bytes: [UInt8] = Array(repeating: 0x0F, count: 8) + [0x0D] + Array(repeating: 0x0F, count: 20)
        #expect(Self.failureStatus(Self.events(bytes)) == 400)
        #expect(Self.failureStatus(Self.events(bytes, byteByByte: true)) == 400)
    }

    /// Fuzz finding (crash-3168db83…): a body ending in CR left the line scanner at -1.
    @Test func bodyEndingInCarriageReturnThenMoreInput() {
        for byteByByte in [false, true] {
            let text =
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\n\r"
                + "GET /next HTTP/1.1\r\nHost: h\r\n\r\n"
            let requests = Self.requests(Self.events(text, byteByByte: byteByByte))
            #expect(requests.map(\.path) == ["/", "/next"])
            #expect(requests.first?.body == [0x0D])
        }
        var parser = HTTPRequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\n\r".utf8))
        #expect(Self.requests([parser.next()].compactMap { $0 }).count == 1)
        #expect(parser.next() == nil)
        #expect(parser.next() == nil)
        parser.append(Array("G".utf8))
        #expect(parser.next() == nil)
    }

    @Test func hostRules() {
        #expect(Self.status("GET / HTTP/1.1\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == 400)
        #expect(Self.status("GET / HTTP/1.0\r\nHost: a\r\nhost: b\r\n\r\n") == 400)
    }

    // MARK: Content-Length and Transfer-Encoding

    @Test(arguments: [
        "Content-Length: 3\r\nContent-Length: 3",  // duplicate, even if equal
        "Content-Length: 3\r\nContent-Length: 4",  // conflicting
        "Content-Length: 3, 3",  // a list
        "Content-Length: -1",
        "Content-Length: +3",
        "Content-Length: 0x10",
        "Content-Length: 3 4",
        "Content-Length:",
    ])
    func badContentLengthsAre400(_ field: String) {
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\n\(field)\r\n\r\nabcd") == 400)
    }

    @Test func hugeContentLengthIs413() {
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999999\r\n\r\n") == 413)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775807\r\n\r\n") == 413)
    }

    @Test func bodyLimitJustUnderAndOver() {
        let limits = HTTPServerLimits(maxBodyBytes: 10)
        let ten = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789"
        #expect(Self.requests(Self.events(ten, limits: limits)).first?.body.count == 10)
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", limits: limits) == 413)
    }

    @Test func transferEncodingIs501() {
        #expect(Self.status("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == 501)
        #expect(
            Self.status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n")
                == 501)
    }

    // MARK: Limits

    @Test func versionsOtherThan10And11Are505() {
        #expect(Self.status("GET / HTTP/2.0\r\nHost: h\r\n\r\n") == 505)
        #expect(Self.status("GET / HTTP/1.2\r\nHost: h\r\n\r\n") == 505)
        #expect(Self.status("GET / HTTP/0.9\r\nHost: h\r\n\r\n") == 505)
    }

    @Test func requestLineLimitJustUnderAndOver() {
        let limits = HTTPServerLimits(maxRequestLineBytes: 40)
        func line(length: Int) -> String {
            let fixed = "GET / HTTP/1.1".utf8.count
            return "GET /" + String(repeating: "a", count: length - fixed) + " HTTP/1.1"
        }
        #expect(line(length: 40).utf8.count == 40)
        #expect(Self.requests(Self.events(line(length: 40) + "\r\nHost: h\r\n\r\n", limits: limits)).count == 1)
        #expect(Self.status(line(length: 41) + "\r\nHost: h\r\n\r\n", limits: limits) == 414)
        // Without any line end, an endless line is refused as soon as it passes the limit.
        #expect(Self.status(String(repeating: "a", count: 100), limits: limits) == 414)
    }

    @Test func headerCountJustUnderAndOver() {
        let limits = HTTPServerLimits(maxHeaderCount: 5)
        func request(fields: Int) -> String {
            "GET / HTTP/1.1\r\nHost: h\r\n" + (1..<fields).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        }
        #expect(Self.requests(Self.events(request(fields: 5), limits: limits)).count == 1)
        #expect(Self.status(request(fields: 6), limits: limits) == 431)
    }

    @Test func headerBytesJustUnderAndOver() {
        let limits = HTTPServerLimits(maxHeaderBytes: 50)
        // "Host: h\r\n" is 9 bytes; "X: " + value + "\r\n" is 5 + value bytes.
        let fits = "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 36) + "\r\n\r\n"
        let over = "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 37) + "\r\n\r\n"
        #expect(Self.requests(Self.events(fits, limits: limits)).count == 1)
        #expect(Self.requests(Self.events(fits, limits: limits, byteByByte: true)).count == 1)
        #expect(Self.status(over, limits: limits) == 431)
        // An endless header line is refused before its end arrives.
        #expect(Self.status("GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: 200), limits: limits) == 431)
    }

    @Test func failureIsSticky() {
        var parser = HTTPRequestParser()
        parser.append(Array("BAD\r\n".utf8))
        #expect(parser.next() == .failure(HTTPRequestParseError(status: 400, detail: "request line is not METHOD SP TARGET SP VERSION")))
        parser.append(Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        if case .failure? = parser.next() {} else { Issue.record("a failed parser must stay failed") }
        #expect(parser.hasFailed)
    }

    @Test func arbitraryBytesNeverCrash() {
        // A fixed pseudo-random stream (a linear congruential generator), fed in odd splits.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var bytes: [UInt8] = []
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        var parser = HTTPRequestParser()
        var offset = 0
        while offset < bytes.count {
            let size = Int(bytes[offset] % 37) + 1
            parser.append(bytes[offset..<min(bytes.count, offset + size)])
            while let event = parser.next() { if case .failure = event { break } }
            offset += size
        }
        #expect(parser.hasFailed)
    }

    @Test func descriptionsHideQueryAndBody() throws {
        let request = try #require(
            Self.requests(Self.events("POST /cb?code=SECRET HTTP/1.1\r\nHost: h\r\nContent-Length: 6\r\n\r\nSECRET")).first)
        #expect(!request.description.contains("SECRET"))
        #expect(!HTTPServerResponse.text("SECRET").description.contains("SECRET"))
    }

    @Test func percentDecoding() {
        #expect(HTTPServerQueryItem.percentDecoded("a%20b%2Fc") == "a b/c")
        #expect(HTTPServerQueryItem.percentDecoded("a+b") == "a+b")
        #expect(HTTPServerQueryItem.percentDecoded("a+b", plusAsSpace: true) == "a b")
        #expect(HTTPServerQueryItem.percentDecoded("%zz") == nil)
        #expect(HTTPServerQueryItem.percentDecoded("%4") == nil)
        #expect(HTTPServerQueryItem.percentDecoded("%FF") == nil)  // not UTF-8
        #expect(HTTPServerQueryItem.percentDecoded("%C3%A9") == "é")
        #expect(HTTPServerQueryItem.parse("a=1&&b&c=%ZZ&=v") == [
            HTTPServerQueryItem(name: "a", value: "1"), HTTPServerQueryItem(name: "b", value: ""),
            HTTPServerQueryItem(name: "c", value: "%ZZ"), HTTPServerQueryItem(name: "", value: "v"),
        ])
    }
}
