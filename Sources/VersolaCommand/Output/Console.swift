import Foundation

/// Where a command writes and reads: the process's standard streams, or a recording in tests.
public protocol Console: Sendable {
    /// Writes to standard output.
    func out(_ text: String)
    /// Writes to standard error.
    func err(_ text: String)
    /// Reads one line from standard input (without its newline), or nil at the end.
    func readLine() -> String?
    /// Whether standard output is a terminal.
    var outputIsTerminal: Bool { get }
    /// Whether standard error is a terminal.
    var errorIsTerminal: Bool { get }
    /// Whether standard input is a terminal.
    var inputIsTerminal: Bool { get }
}

/// The process's standard streams, written with `write(2)` (no buffering to flush).
public struct StandardConsole: Console {
    /// Creates the console.
    public init() {}

    public func out(_ text: String) { Self.write(text, to: STDOUT_FILENO) }
    public func err(_ text: String) { Self.write(text, to: STDERR_FILENO) }

    public func readLine() -> String? { Swift.readLine(strippingNewline: true) }

    public var outputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    public var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    public var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
