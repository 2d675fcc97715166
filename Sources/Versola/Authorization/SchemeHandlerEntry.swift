import VersolaHTTP
import Foundation

/// The desktop entry that makes a private-use scheme redirect reach the waiting login (L7):
/// `$XDG_DATA_HOME/applications/<name>.desktop` with `MimeType=x-scheme-handler/<scheme>` and
/// an `Exec` line running `command` with the redirect URL (`%u`), registered as the default
/// handler of that MIME type with `xdg-mime default`. When the browser follows the provider's
/// redirect to `com.example.app:/callback?code=…`, the desktop runs that command, which hands
/// the URL to the pending request (`versola handle-redirect`, or the application's own
/// executable calling ``Session/deliverRedirect(_:)``); validation is L2's.
///
/// ```swift
/// let redirect = try PrivateUseRedirect("com.example.app:/callback")
/// let entry = try SchemeHandlerEntry(redirect: redirect, name: "com.example.app", displayName: "Example",
///                                    command: ["/usr/bin/example-app", "--redirect"])
/// try entry.install()      // …and entry.remove() when the application is uninstalled
/// ```
public struct SchemeHandlerEntry: Sendable, Hashable {
    /// The redirect whose scheme is handled.
    public let redirect: PrivateUseRedirect
    /// The desktop file's name without `.desktop`.
    public let name: String
    /// The `Name=` shown by desktops.
    public let displayName: String
    /// The program and its arguments; the redirect URL is added after them.
    public let command: [String]

    /// Describes an entry.
    /// - Parameters:
    ///   - redirect: the private-use redirect.
    ///   - name: the desktop file's name (letters, digits, `.`, `-`, `_`), e.g. the scheme.
    ///   - displayName: what desktops show for it.
    ///   - command: an absolute program path and its arguments; the URL comes last.
    /// - Throws: `.configuration(.invalidConfiguration)` for a bad name or command.
    public init(redirect: PrivateUseRedirect, name: String, displayName: String, command: [String]) throws(VersolaError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        guard !name.isEmpty, name.allSatisfy({ allowed.contains($0) }), name.first != "." else {
            throw .configuration(.invalidConfiguration("desktop entry name \(name) must be letters, digits, ., - and _"))
        }
        guard let program = command.first, program.hasPrefix("/") else {
            throw .configuration(.invalidConfiguration("the redirect handler's command must start with an absolute program path"))
        }
        let texts = command + [displayName]
        guard !texts.contains(where: { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) else {
            throw .configuration(.invalidConfiguration("the redirect handler's command and name must have no control characters"))
        }
        self.redirect = redirect
        self.name = name
        self.displayName = displayName
        self.command = command
    }

    /// The desktop file's text (Desktop Entry Specification 1.5).
    public var contents: String {
        let exec = (command.map(Self.quoted) + ["%u"]).joined(separator: " ")
        return """
            [Desktop Entry]
            Type=Application
            Name=\(Self.escaped(displayName))
            Exec=\(Self.escaped(exec))
            MimeType=\(redirect.mimeType);
            NoDisplay=true
            Terminal=false

            """
    }

    /// The desktop file's path under `dataHome` (`$XDG_DATA_HOME` or `~/.local/share`).
    public func path(dataHome: String) -> String { dataHome + "/applications/" + name + ".desktop" }

    /// Writes the desktop file (0600, replaced atomically) and makes it the default handler
    /// of `x-scheme-handler/<scheme>` with `xdg-mime default`.
    /// - Parameter environment: where `XDG_DATA_HOME`, `HOME` and `PATH` are read.
    /// - Throws: `.configuration(.invalidConfiguration)` when the file cannot be written or
    ///   `xdg-mime` is missing or fails (the message says to install xdg-utils).
    public func install(environment: [String: String] = ProcessInfo.processInfo.environment) throws(VersolaError) {
        let dataHome = try Self.dataHome(environment)
        let directory = dataHome + "/applications"
        do {
            try PrivateFiles.ensureDirectory(directory, privateDirectories: [])
            try PrivateFiles.writeAtomically(Array(contents.utf8), to: path(dataHome: dataHome), in: directory)
        } catch {
            throw error.versolaError
        }
        let (status, _) = Self.run(["xdg-mime", "default", name + ".desktop", redirect.mimeType], environment: environment)
        guard status == 0 else {
            throw .configuration(
                .invalidConfiguration(
                    status == 127
                        ? "xdg-mime is not installed: install xdg-utils to register the \(redirect.scheme): redirect handler"
                        : "xdg-mime could not register \(name).desktop for \(redirect.mimeType) (exit status \(status))"))
        }
    }

    /// Removes the desktop file and this entry's line from `mimeapps.list`. Removing an
    /// entry that is not installed does nothing.
    /// - Throws: `.configuration(.invalidConfiguration)` when a file cannot be changed.
    public func remove(environment: [String: String] = ProcessInfo.processInfo.environment) throws(VersolaError) {
        let dataHome = try Self.dataHome(environment)
        let file = path(dataHome: dataHome)
        if unlink(file) != 0, errno != ENOENT { throw FileSystemFailure("remove", file).versolaError }
        let configHome = try XDGDirectories.current(environment: environment).configHome.path
        let list = configHome + "/mimeapps.list"
        guard let text = try? String(contentsOfFile: list, encoding: .utf8) else { return }
        let line = redirect.mimeType + "=" + name + ".desktop"
        let kept = text.split(separator: "\n", omittingEmptySubsequences: false).filter {
            $0.trimmingCharacters(in: .whitespaces) != line && $0.trimmingCharacters(in: .whitespaces) != line + ";"
        }
        let updated = kept.joined(separator: "\n")
        guard updated != text else { return }
        do {
            try PrivateFiles.writeAtomically(Array(updated.utf8), to: list, in: configHome)
        } catch {
            throw error.versolaError
        }
    }

    /// The program `xdg-mime query default x-scheme-handler/<scheme>` names, nil when none.
    public static func registeredHandler(
        for redirect: PrivateUseRedirect, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        let (status, output) = run(["xdg-mime", "query", "default", redirect.mimeType], environment: environment)
        let text = output.trimmingCharacters(in: .whitespacesAndNewlines)
        return status == 0 && !text.isEmpty ? text : nil
    }

    private static func dataHome(_ environment: [String: String]) throws(VersolaError) -> String {
        if let value = environment["XDG_DATA_HOME"], value.hasPrefix("/") { return value }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw .configuration(.invalidConfiguration("no home directory: set HOME or XDG_DATA_HOME"))
        }
        return home + "/.local/share"
    }

    /// Runs `arguments` through `env`: its exit status (127: not found) and standard output.
    private static func run(_ arguments: [String], environment: [String: String]) -> (Int32, String) {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (127, "") }
        // Read before waiting, so a long answer cannot fill the pipe and stall the child.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// One `Exec` argument: as it is when it holds none of the specification's reserved
    /// characters (xdg-utils' own opener splits `Exec` on blanks and does not read quotes),
    /// else double-quoted with `"`, `` ` ``, `$` and `\` escaped; `%` is doubled either way.
    static func quoted(_ argument: String) -> String {
        let reserved = Set(" \t\n\"'\\><~|&;$*?#()`")
        let percent = argument.replacingOccurrences(of: "%", with: "%%")
        guard !argument.isEmpty, argument.contains(where: { reserved.contains($0) }) else {
            return argument.isEmpty ? "\"\"" : percent
        }
        var result = "\""
        for character in percent {
            switch character {
            case "\"", "`", "$", "\\": result += "\\" + String(character)
            default: result.append(character)
            }
        }
        return result + "\""
    }

    /// A desktop file string value: backslashes doubled (the file's own escaping).
    static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\")
    }
}
