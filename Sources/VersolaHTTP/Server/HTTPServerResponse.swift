/// An answer for the server to send. `Content-Length` and `Date` are added when the
/// answer is written (a `Content-Length` set by hand is replaced by the true one), and
/// `Connection: close` when the connection will close after it. A handler that sets
/// `Connection: close` itself makes the server close the connection after this answer.
///
/// ```swift
/// .respond(HTTPServerResponse(status: 404))
/// .respond(.text("You can close this window."))
/// ```
public struct HTTPServerResponse: Sendable, Hashable, CustomStringConvertible {
    /// The status code, 100...999.
    public var status: Int
    /// The reason phrase; the standard one for `status` unless given.
    public var reason: String
    /// Header fields to send, in order.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    /// - Parameters:
    ///   - status: the status code; values outside 100...999 are sent as 500.
    ///   - reason: the reason phrase; nil picks the standard one.
    ///   - headers: fields to send; CR, LF and NUL in names or values are replaced by spaces.
    ///   - body: the body bytes.
    public init(status: Int, reason: String? = nil, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        let status = (100...999).contains(status) ? status : 500
        self.status = status
        self.reason = reason ?? Self.standardReason(status)
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` answer.
    public static func text(_ text: String, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(
            status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// A `text/html; charset=utf-8` answer.
    public static func html(_ html: String, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(
            status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.utf8))
    }

    /// An `application/json` answer from already encoded bytes.
    public static func json(_ body: [UInt8], status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// `STATUS REASON (N body bytes)`; never the body.
    public var description: String { "\(status) \(reason) (\(body.count) body bytes)" }

    /// Whether the handler set `Connection: close`: the server then closes after sending.
    var asksToClose: Bool {
        headers.values("Connection").contains { value in
            value.split(separator: ",").contains { $0.trimmingSpacesAndTabs().lowercased() == "close" }
        }
    }

    /// The bytes on the wire.
    /// - Parameters:
    ///   - date: the `Date` value to add when the headers have none.
    ///   - close: whether `Connection: close` is announced.
    ///   - includeBody: false for an answer to HEAD (the length is still announced).
    func serialized(date: String, close: Bool, includeBody: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.clean(reason))\r\n"
        var hasDate = false
        for field in headers {
            if HTTPHeaders.sameName(field.name, "Content-Length") { continue }
            if HTTPHeaders.sameName(field.name, "Connection") && close { continue }
            if HTTPHeaders.sameName(field.name, "Date") { hasDate = true }
            text += "\(Self.clean(field.name)): \(Self.clean(field.value))\r\n"
        }
        if !hasDate { text += "Date: \(date)\r\n" }
        if close { text += "Connection: close\r\n" }
        if Self.allowsBody(status) { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        var bytes = Array(text.utf8)
        if includeBody && Self.allowsBody(status) { bytes += body }
        return bytes
    }

    /// 1xx, 204 and 304 answers carry no body (RFC 9110 §6.4.1).
    private static func allowsBody(_ status: Int) -> Bool {
        !(100...199).contains(status) && status != 204 && status != 304
    }

    private static func clean(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else { return text }
        return String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" || $0 == "\0" ? " " : $0 })
    }

    /// The standard reason phrase of a status code (RFC 9110), or an empty string.
    public static func standardReason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: ""
        }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingSpacesAndTabs() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
