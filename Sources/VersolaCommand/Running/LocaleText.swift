import Foundation

/// Text typed under the locale's character set, as UTF-8 (for a passphrase typed on a
/// terminal whose locale is, say, KOI8-R or GBK).
enum LocaleText {
    /// The character set of the environment's `LC_CTYPE` locale (`LC_ALL`, `LC_CTYPE`, `LANG`),
    /// read without changing this process's locale; nil when it is UTF-8 or plain ASCII (the
    /// bytes are then taken as they are) or cannot be read.
    static func characterSet() -> String? {
        guard let locale = newlocale(LC_CTYPE_MASK, "", nil) else { return nil }
        defer { freelocale(locale) }
        guard let name = nl_langinfo_l(nl_item(CODESET), locale).map({ String(cString: $0) }) else { return nil }
        let plain = ["UTF-8", "UTF8", "ANSI_X3.4-1968", "ASCII", "US-ASCII"]
        return plain.contains(name.uppercased()) ? nil : name
    }

    /// `bytes` in `characterSet` converted to UTF-8 with iconv; nil when the set is unknown or
    /// the bytes are not valid in it.
    static func utf8(_ bytes: [UInt8], from characterSet: String) -> [UInt8]? {
        let converter = iconv_open("UTF-8", characterSet)
        guard converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 4)
        let produced: Int? = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                var inPointer = source.baseAddress
                var inLeft = source.count
                var outPointer = target.baseAddress
                var outLeft = target.count
                let result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                return result == -1 || inLeft != 0 ? nil : target.count - outLeft
            }
        }
        return produced.map { output[..<$0].map { UInt8(bitPattern: $0) } }
    }
}
