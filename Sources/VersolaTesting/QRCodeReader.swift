import Foundation

/// Reads back a QR code drawn on a terminal in Unicode half blocks (a block is light, a blank
/// dark, as versola draws it), with zbar's `zbarimg` (Debian's zbar-tools).
public enum QRCodeReader {
    /// The modules of drawn lines (quiet zone included), dark = true, two rows a line.
    public static func modules(of lines: [String]) -> [[Bool]] {
        lines.flatMap { line -> [[Bool]] in
            let cells = Array(line)
            // A blank is dark above and below; ▀ light above; ▄ light below; █ light in both.
            return [cells.map { $0 == " " || $0 == "▄" }, cells.map { $0 == " " || $0 == "▀" }]
        }
    }

    /// What zbarimg reads from `lines` drawn as an image, 8 pixels a module; nil when it reads
    /// nothing (or is not installed).
    public static func decode(_ lines: [String]) throws -> String? {
        let modules = modules(of: lines)
        let scale = 8
        var pbm = "P1\n\((modules.first?.count ?? 0) * scale) \(modules.count * scale)\n"
        for row in modules {
            let line = row.flatMap { dark in Array(repeating: dark ? "1" : "0", count: scale) }.joined(separator: " ")
            for _ in 0..<scale { pbm += line + "\n" }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("versola-qr-\(UUID().uuidString).pbm")
        try pbm.write(to: file, atomically: true, encoding: .ascii)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["zbarimg", "--quiet", "--raw", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
}
