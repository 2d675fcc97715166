import Foundation

/// A QR code of a device sign-in's page (A14, issue 39 item 3), drawn with Unicode half blocks
/// (two rows of modules per line) so it fits 80 columns. The encoding is libqrencode's, loaded
/// at run time (`dlopen`), so versola runs, and prints the page as text, where it is absent.
///
/// ```swift
/// if let lines = TerminalQRCode.lines(for: "https://id.example/device?user_code=WDJB-MJHT") {
///     console.err(lines.joined(separator: "\n") + "\n")
/// }
/// ```
enum TerminalQRCode {
    /// The widest code drawn, quiet zone included: an 80-column terminal with a margin.
    static let maximumColumns = 78
    /// The light border around the code, in modules.
    static let quietZone = 2

    /// The dark modules of `text`'s QR code, row by row, or nil without libqrencode.
    static func modules(for text: String) -> [[Bool]]? {
        guard let library = Library.shared else { return nil }
        return library.encode(text)
    }

    /// The code drawn in half blocks, dark modules as the terminal's foreground colour on a light
    /// quiet zone; nil without libqrencode or when it would be wider than ``maximumColumns``.
    static func lines(for text: String) -> [String]? {
        guard let modules = modules(for: text) else { return nil }
        return draw(modules)
    }

    /// ``lines(for:)`` for given modules.
    static func draw(_ modules: [[Bool]]) -> [String]? {
        let size = modules.count + 2 * quietZone
        guard size <= maximumColumns else { return nil }
        // A light module is drawn (a block in the foreground colour) and a dark one left blank, so
        // that the code reads dark on light on a terminal with light text on a dark background.
        // Past the last row (an odd count) is quiet zone: light.
        func light(_ row: Int, _ column: Int) -> Bool {
            let (r, c) = (row - quietZone, column - quietZone)
            guard modules.indices.contains(r), modules.indices.contains(c) else { return true }
            return !modules[r][c]
        }
        return stride(from: 0, to: size, by: 2).map { row in
            String((0..<size).map { column -> Character in
                switch (light(row, column), light(row + 1, column)) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            })
        }
    }

    /// libqrencode's two functions, found once.
    private final class Library: Sendable {
        typealias Encode = @convention(c) (UnsafePointer<CChar>, Int32, Int32, Int32, Int32) -> UnsafeMutableRawPointer?
        typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Void
        let encodeString: Encode
        let free: Free

        static let shared: Library? = {
            guard let handle = dlopen("libqrencode.so.4", RTLD_NOW | RTLD_LOCAL),
                let encode = dlsym(handle, "QRcode_encodeString"), let free = dlsym(handle, "QRcode_free")
            else { return nil }
            return Library(encode: unsafeBitCast(encode, to: Encode.self), free: unsafeBitCast(free, to: Free.self))
        }()

        private init(encode: Encode, free: Free) {
            encodeString = encode
            self.free = free
        }

        /// `QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1)`; the result is
        /// `struct QRcode { int version; int width; unsigned char *data; }`, bit 0 of each byte dark.
        func encode(_ text: String) -> [[Bool]]? {
            guard let code = encodeString(text, 0, 0, 2, 1) else { return nil }
            defer { free(code) }
            let width = Int(code.load(fromByteOffset: 4, as: Int32.self))
            guard width > 0, let data = code.load(fromByteOffset: 8, as: UnsafePointer<UInt8>?.self) else { return nil }
            return (0..<width).map { row in (0..<width).map { column in data[row * width + column] & 1 == 1 } }
        }
    }
}
