import Foundation
import Versola
import VersolaHTTP

/// Reads the passphrase of a passphrase profile the way Linux tools do: from the file descriptor
/// named by `--passphrase-fd N` or `VERSOLA_PASSPHRASE_FD` (one line, as gpg's `--passphrase-fd`
/// and borg's `BORG_PASSPHRASE_FD`; for scripts), else from the terminal (`/dev/tty`) with echo
/// off, asked twice when it is being set. Never from the command line or an environment
/// variable holding the passphrase itself (both are visible to other processes).
///
/// The key is derived from the bytes as given: a descriptor's bytes without one trailing
/// newline (a regular file, such as `3<keyfile`, is read whole, so a key file of random bytes
/// keeps every byte; a pipe, a terminal or standard input gives one line), and a terminal's text as UTF-8
/// (converted from the locale's character set when that is not UTF-8). What earlier versions
/// derived from (the line decoded as UTF-8 with replacement) goes along, only to open and
/// migrate a passphrase file they wrote.
///
/// Reads block, so they run on a thread of their own (``SyncBridge/run(blocking:)``).
enum PassphraseInput {
    /// The longest passphrase read.
    static let maximumLength = 1024

    /// Whether this process has a terminal to ask on.
    static var hasTerminal: Bool {
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { return false }
        close(terminal)
        return true
    }

    /// The descriptor to read from: the flag's, else `VERSOLA_PASSPHRASE_FD`'s.
    static func descriptor(flag: Int32?, environment: [String: String]) -> Int32? {
        flag ?? environment["VERSOLA_PASSPHRASE_FD"].flatMap { Int32($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// The passphrase of `profile`.
    /// - Parameter isNew: none is set yet: on a terminal it is asked twice.
    /// - Throws: `.configuration(.invalidConfiguration)` when there is neither a descriptor nor
    ///   a terminal, the descriptor cannot be read, the answer is empty, or the two answers differ.
    static func read(profile: String, isNew: Bool, descriptor: Int32?) async throws(VersolaError) -> Passphrase {
        let outcome = await SyncBridge.run { readBlocking(profile: profile, isNew: isNew, descriptor: descriptor) }
        return try outcome.get()
    }

    private static func readBlocking(profile: String, isNew: Bool, descriptor: Int32?) -> Result<Passphrase, VersolaError> {
        if let descriptor {
            let given: Passphrase
            switch read(descriptor: descriptor) {
            case .passphrase(let passphrase): given = passphrase
            case .tooLong:
                return .failure(
                    .configuration(
                        .invalidConfiguration(
                            "the passphrase on file descriptor \(descriptor) is longer than \(maximumLength) bytes")))
            case .unreadable(let code):
                return .failure(
                    .configuration(
                        .invalidConfiguration(
                            "cannot read the passphrase from file descriptor \(descriptor): \(String(cString: strerror(code)))")))
            }
            return given.isEmpty ? .failure(empty) : .success(given)
        }
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else {
            return .failure(
                .configuration(
                    .invalidConfiguration(
                        "there is no terminal to ask for the passphrase of profile '\(profile)': "
                            + "give it on a file descriptor with --passphrase-fd N (or VERSOLA_PASSPHRASE_FD)")))
        }
        defer { close(terminal) }
        let question = isNew ? "New passphrase for profile '\(profile)': " : "Passphrase for profile '\(profile)': "
        guard let first = TerminalLine.readHidden(prompt: question, terminal: terminal).map(typed) else {
            return .failure(unreadable)
        }
        if first.isEmpty { return .failure(empty) }
        guard isNew else { return .success(first) }
        guard let second = TerminalLine.readHidden(prompt: "The same passphrase again: ", terminal: terminal).map(typed) else {
            return .failure(unreadable)
        }
        guard first == second else {
            return .failure(.configuration(.invalidConfiguration("the two passphrases differ; none was set")))
        }
        return .success(first)
    }

    private static let empty = VersolaError.configuration(.invalidConfiguration("an empty passphrase is not accepted"))
    private static let unreadable = VersolaError.configuration(
        .invalidConfiguration("cannot read the passphrase from the terminal"))

    /// What a descriptor gave.
    enum DescriptorReading: Equatable {
        case passphrase(Passphrase)
        case tooLong
        case unreadable(Int32)
    }

    /// The passphrase on `descriptor`: a regular file whole, less one trailing newline (a key
    /// file's bytes may hold a newline anywhere); anything else, and standard input, one line
    /// (they may carry more after it, such as a pasted redirect). Earlier versions read one
    /// line, less a trailing carriage return, decoded as UTF-8: the legacy bytes.
    static func read(descriptor: Int32) -> DescriptorReading {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .unreadable(errno) }
        guard status.st_mode & S_IFMT == S_IFREG, descriptor != STDIN_FILENO else {
            guard let line = readLine(from: descriptor) else { return .unreadable(errno) }
            if line.count > maximumLength { return .tooLong }
            return .passphrase(Passphrase(bytes: line, legacyBytes: legacy(line)))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while bytes.count <= maximumLength + 1 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .unreadable(errno)
            }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.count > maximumLength { return .tooLong }
        let firstLine = Array(bytes.prefix { $0 != UInt8(ascii: "\n") })
        return .passphrase(Passphrase(bytes: bytes, legacyBytes: legacy(firstLine)))
    }

    /// What earlier versions derived from for `line`: less a trailing carriage return, decoded
    /// as UTF-8 with replacement.
    static func legacy(_ line: [UInt8]) -> [UInt8] {
        Passphrase.legacy(line.last == UInt8(ascii: "\r") ? Array(line.dropLast()) : line)
    }

    /// A line typed on the terminal: its text as UTF-8, converted from the locale's character
    /// set (so the same passphrase typed under KOI8-R or UTF-8 gives the same key); the bytes
    /// as typed when the locale is UTF-8 or ASCII, or the conversion fails.
    static func typed(_ line: [UInt8]) -> Passphrase {
        let bytes = line.last == UInt8(ascii: "\r") ? Array(line.dropLast()) : line
        let converted = LocaleText.characterSet().flatMap { LocaleText.utf8(bytes, from: $0) } ?? bytes
        return Passphrase(bytes: converted, legacyBytes: legacy(line))
    }

    /// One line from `descriptor` (at most ``maximumLength`` + 1 bytes, without its newline),
    /// read a byte at a time so that nothing after it is consumed (standard input may carry
    /// more, such as a pasted redirect). Nil when it cannot be read.
    static func readLine(from descriptor: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count <= maximumLength {
            let count = Glibc.read(descriptor, &byte, 1)
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 || byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        return bytes
    }
}

/// A line typed on the terminal without echo. If a signal ends the process meanwhile (Ctrl-C),
/// the terminal gets its echo back first.
private enum TerminalLine {
    /// What the signal handler restores. Set before the handler is installed, cleared after.
    nonisolated(unsafe) private static var savedDescriptor: Int32 = -1
    nonisolated(unsafe) private static var savedSettings = termios()

    static func readHidden(prompt: String, terminal: Int32) -> [UInt8]? {
        StandardConsole.write(prompt, to: terminal)
        var settings = termios()
        guard tcgetattr(terminal, &settings) == 0 else { return nil }
        savedSettings = settings
        savedDescriptor = terminal
        var quiet = settings
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)
        let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
        var previous: [sigaction] = []
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                if TerminalLine.savedDescriptor >= 0 {
                    tcsetattr(TerminalLine.savedDescriptor, TCSANOW, &TerminalLine.savedSettings)
                }
                signal(number, SIG_DFL)
                raise(number)
            }
            sigemptyset(&action.sa_mask)
            var old = sigaction()
            sigaction(number, &action, &old)
            previous.append(old)
        }
        tcsetattr(terminal, TCSAFLUSH, &quiet)
        let line = PassphraseInput.readLine(from: terminal)
        tcsetattr(terminal, TCSANOW, &settings)
        for (number, old) in zip(signals, previous) {
            var restored = old
            sigaction(number, &restored, nil)
        }
        savedDescriptor = -1
        return line
    }
}
