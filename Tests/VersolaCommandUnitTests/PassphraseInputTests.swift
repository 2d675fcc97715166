import Foundation
import Testing
import Versola

@testable import VersolaCommand

/// How a passphrase is read from a descriptor and a terminal: the bytes as given.
@Suite struct PassphraseInputTests {
    /// A descriptor open on a file holding `bytes`.
    static func file(_ bytes: [UInt8]) throws -> Int32 {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("versola-pass-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        #expect(descriptor >= 0)
        return descriptor
    }

    @Test("S10: a key file is read whole, less one trailing newline: a newline or invalid UTF-8 inside keeps every byte")
    func keyFileIsReadWhole() throws {
        let key: [UInt8] = [0xFF, 0x0A, 0x80, 0x00, 0x0D, 0x9F, 0x41]
        let descriptor = try Self.file(key + [0x0A])
        defer { close(descriptor) }
        let reading = PassphraseInput.read(descriptor: descriptor)
        // What earlier versions read: the first line, decoded as UTF-8 with replacement.
        #expect(reading == .passphrase(Passphrase(bytes: key, legacyBytes: Array("\u{FFFD}".utf8))))

        let long = try Self.file([UInt8](repeating: 0x41, count: PassphraseInput.maximumLength + 1))
        defer { close(long) }
        #expect(PassphraseInput.read(descriptor: long) == .tooLong)
        let exact = try Self.file([UInt8](repeating: 0x41, count: PassphraseInput.maximumLength) + [0x0A])
        defer { close(exact) }
        #expect(PassphraseInput.read(descriptor: exact) == .passphrase(Passphrase(bytes: [UInt8](repeating: 0x41, count: 1024))))
    }

    @Test("S10: a pipe gives one line, its bytes as sent; what follows stays unread")
    func pipeGivesOneLine() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let sent: [UInt8] = [0xFE, 0x80, 0x61, 0x0D, 0x0A, 0x62, 0x0A]
        #expect(write(ends[1], sent, sent.count) == sent.count)
        close(ends[1])
        #expect(
            PassphraseInput.read(descriptor: ends[0])
                == .passphrase(Passphrase(bytes: [0xFE, 0x80, 0x61, 0x0D], legacyBytes: Array("\u{FFFD}\u{FFFD}a".utf8))))
        var rest: UInt8 = 0
        #expect(read(ends[0], &rest, 1) == 1 && rest == 0x62)
    }

    @Test("S10: text typed under a KOI8-R locale is its UTF-8; unknown sets and invalid bytes give nil")
    func localeTextIsUTF8() {
        #expect(LocaleText.utf8([0xC1, 0xC2], from: "KOI8-R") == Array("аб".utf8))
        #expect(LocaleText.utf8([0x81, 0x40], from: "GBK") == Array("丂".utf8))
        #expect(LocaleText.utf8([0x41], from: "NO-SUCH-SET") == nil)
        #expect(LocaleText.utf8([0xFF], from: "UTF-8") == nil)
    }

    @Test("S10: a passphrase reaches the agent as its bytes, legacy bytes along when they differ")
    func agentArgumentsCarryBytes() {
        let binary = Passphrase(bytes: [0xFF, 0x00, 0x80], legacyBytes: Array("\u{FFFD}".utf8))
        let encoded = AgentUnlockArguments(passphrase: binary).object
        #expect(encoded.names == ["passphraseBytes", "legacyPassphraseBytes"])
        #expect(AgentUnlockArguments(encoded).passphrase == binary)
        let text = Passphrase("correct horse")
        #expect(AgentUnlockArguments(passphrase: text).object.names == ["passphraseBytes"])
        #expect(AgentUnlockArguments(AgentUnlockArguments(passphrase: text).object).passphrase == text)
        #expect(AgentUnlockArguments(["passphrase": "correct horse"]).passphrase == text)
        #expect(AgentUnlockArguments([:]).passphrase == nil)
    }
}
