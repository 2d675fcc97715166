import VersolaHTTP
import Foundation

/// Opens the authorization URL for the person (L1). Applications and tests supply their
/// own; ``SystemBrowser`` follows Linux conventions.
public protocol BrowserLauncher: Sendable {
    /// Tries to open `url`; returns false when no browser could be started, in which case
    /// the URL is shown to the person to open elsewhere and the flow still completes.
    func open(_ url: String) async -> Bool
}

/// The Linux browser: an explicit command if the application gives one, else each command
/// of `$BROWSER` (colon-separated, `%s` replaced by the URL, else the URL appended), else
/// `xdg-open` when a graphical session is present (`DISPLAY` or `WAYLAND_DISPLAY`).
///
/// Inside SSH or a bare console there is no display, so nothing is started (a text browser
/// taking over the terminal would hide the prompt); the caller prints the URL instead.
public struct SystemBrowser: BrowserLauncher {
    /// The command line to use instead of `$BROWSER`, following its conventions.
    public var command: String?
    /// The environment consulted (`BROWSER`, `DISPLAY`, `WAYLAND_DISPLAY`).
    public var environment: [String: String]

    /// Creates the launcher.
    public init(command: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.command = command
        self.environment = environment
    }

    /// The argument vectors that would be tried, in order, for `url`.
    public func candidates(for url: String) -> [[String]] {
        if let command, !command.isEmpty { return [Self.arguments(of: command, url: url)].filter { !$0.isEmpty } }
        var result: [[String]] = []
        if let browsers = environment["BROWSER"], !browsers.isEmpty {
            for entry in browsers.split(separator: ":") {
                let arguments = Self.arguments(of: String(entry), url: url)
                if !arguments.isEmpty { result.append(arguments) }
            }
        }
        let graphical = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        if result.isEmpty, graphical { result.append(["xdg-open", url]) }
        return result
    }

    public func open(_ url: String) async -> Bool {
        for arguments in candidates(for: url) where await Self.launch(arguments) {
            return true
        }
        return false
    }

    /// Splits a command line on blanks (single and double quotes group words), replacing
    /// `%s` with the URL (`%%` is a literal `%`), or appending the URL when no `%s` appears.
    static func arguments(of command: String, url: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in command {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        var substituted = false
        let replaced = words.map { word -> String in
            var output = ""
            var characters = word.makeIterator()
            while let character = characters.next() {
                guard character == "%" else {
                    output.append(character)
                    continue
                }
                switch characters.next() {
                case "s":
                    output += url
                    substituted = true
                case "%": output.append("%")
                case let other?: output += "%" + String(other)
                case nil: output.append("%")
                }
            }
            return output
        }
        guard !replaced.isEmpty else { return [] }
        return substituted ? replaced : replaced + [url]
    }

    /// Starts the program detached from our terminal's input; true when it started and
    /// did not fail within two seconds (xdg-open exits at once; a browser keeps running).
    static func launch(_ arguments: [String]) async -> Bool {
        guard let program = arguments.first else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments.dropFirst()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        for _ in 0..<20 {
            if !process.isRunning { return process.terminationStatus == 0 }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return true
    }
}
