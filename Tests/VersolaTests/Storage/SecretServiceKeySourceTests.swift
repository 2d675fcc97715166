import Foundation
import Testing
import VersolaCrypto

@testable import Versola
import VersolaTesting

/// `SecretServiceKeySource` against a stand-in `secret-tool` that behaves as the real one was
/// measured to (libsecret 0.20 with gnome-keyring 42, headless): it logs every invocation, so
/// the tests can tell which calls were made. The real keyring is exercised end to end by
/// `KeyringProcessScenarios` in the command's tests.
@Suite struct SecretServiceKeySourceTests {
    /// A stand-in `secret-tool` in `directory`, whose behaviour is the word in `mode`:
    /// `ok`, `locked` (a locked collection whose unlock prompt cannot be shown), `nobus`,
    /// `noservice`.
    final class FakeTool: Sendable {
        let directory: TemporaryDirectory
        let url: URL

        init(_ directory: TemporaryDirectory, mode: String = "ok") throws {
            self.directory = directory
            let secret = directory.file("secret")
            let log = directory.file("log")
            let body = """
                echo "$1" >> '\(log)'
                echo "$LC_ALL" > '\(log).locale'
                echo "${DBUS_SESSION_BUS_ADDRESS:-}" > '\(log).bus'
                mode=$(cat '\(directory.file("mode"))')
                case "$mode" in
                  nobus) echo 'secret-tool: Cannot autolaunch D-Bus without X11 $DISPLAY' >&2; exit 1 ;;
                  noservice) echo 'secret-tool: The name org.freedesktop.secrets was not provided by any .service files' >&2; exit 1 ;;
                esac
                case "$1" in
                  lookup)
                    [ "$mode" = ok ] && [ -f '\(secret)' ] || exit 1
                    cat '\(secret)' ;;
                  search)
                    [ -f '\(secret)' ] || exit 0
                    printf '[/1]\\nlabel = Versola session key\\n'
                    [ "$mode" = locked ] && echo 'secret-tool: Cannot get secret of a locked object' >&2
                    echo 'attribute.application = versola' >&2 ;;
                  store)
                    if [ "$mode" = locked ]; then
                      echo 'secret-tool: Cannot create an item in a locked collection' >&2; exit 1
                    fi
                    cat > '\(secret)'; echo "$@" > '\(secret).args' ;;
                  clear)
                    [ "$mode" = ok ] || exit 1
                    rm -f '\(secret)' ;;
                  *) exit 2 ;;
                esac
                """
            url = URL(fileURLWithPath: directory.file("secret-tool"))
            try Self.write("#!/bin/sh\n\(body)\n", to: url.path, mode: 0o700)
            try setMode(mode)
        }

        func setMode(_ mode: String) throws {
            try Self.write(mode + "\n", to: directory.file("mode"), mode: 0o600)
        }

        /// The subcommands run so far, in order; `clearLog()` starts afresh.
        var calls: [String] {
            ((try? String(contentsOfFile: directory.file("log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        func clearLog() { unlink(directory.file("log")) }

        /// The stored secret (never printed by the tests).
        var secret: String? { try? String(contentsOfFile: directory.file("secret"), encoding: .utf8) }

        func source(environment: [String: String] = ["PATH": "/usr/bin:/bin"]) throws -> SecretServiceKeySource {
            try SecretServiceKeySource(profile: "team", tool: url, environment: environment)
        }

        /// Written close-on-exec: a program another test starts while this file is open for
        /// writing then drops the descriptor when it execs (else running it fails with ETXTBSY).
        static func write(_ text: String, to path: String, mode: mode_t) throws {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
            guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
            let bytes = Array(text.utf8)
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
            chmod(path, mode)
        }
    }

    @Test func storesAKeyOnFirstUseAndReadsItBack() async throws {
        let directory = try TemporaryDirectory()
        let tool = try FakeTool(directory)
        let source = try tool.source()
        let first = try await source.dataKey()
        // Nothing found, nothing listed (locked or not): only then a store, then the read-back.
        #expect(tool.calls == ["lookup", "search", "store", "lookup"])
        let second = try await source.dataKey()
        #expect(first == second)
        let arguments = try String(contentsOfFile: directory.file("secret.args"), encoding: .utf8)
        #expect(arguments == "store --label=Versola session key (team) -- application versola profile team\n")
    }

    @Test func theToolRunsInTheCLocaleWithTheGivenBus() async throws {
        let directory = try TemporaryDirectory()
        let tool = try FakeTool(directory)
        _ = try await tool.source(environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "de_DE.UTF-8", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"])
            .dataKey()
        // The complaints are read in English; the bus is the caller's.
        #expect(try String(contentsOfFile: directory.file("log.locale"), encoding: .utf8) == "C\n")
        #expect(try String(contentsOfFile: directory.file("log.bus"), encoding: .utf8) == "unix:path=/x\n")
    }

    @Test("S10: a lookup that fails on a locked collection never stores a new key over the old one")
    func lockedLookupNeverStores() async throws {
        let directory = try TemporaryDirectory()
        let tool = try FakeTool(directory)
        let store = try FileSessionStore(profile: "team", directory: directory.url, keySource: try tool.source())
        try await store.save(StorageSamples.full)
        let sealed = try Data(contentsOf: store.recordFile)
        let key = tool.secret
        try tool.setMode("locked")
        tool.clearLog()
        // `lookup` says nothing on a locked collection, exactly as when there is no item.
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in try await store.load() }
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in
            try await store.save(StorageSamples.minimal)
        }
        #expect(!tool.calls.contains("store"), "a key was stored while the keyring was locked: \(tool.calls)")
        #expect(tool.calls.contains("search"))
        let keyUnchanged = tool.secret == key
        #expect(keyUnchanged)
        #expect(try Data(contentsOf: store.recordFile) == sealed)
        try tool.setMode("ok")
        #expect(try await store.load() == StorageSamples.full)
    }

    @Test("S9: wiping the record removes the keyring item; the next record gets a new key")
    func wipeRemovesTheItem() async throws {
        let directory = try TemporaryDirectory()
        let tool = try FakeTool(directory)
        let store = try FileSessionStore(profile: "team", directory: directory.url, keySource: try tool.source())
        try await store.save(StorageSamples.full)
        let first = tool.secret
        try await store.wipe()
        #expect(tool.calls.last == "clear")
        #expect(tool.secret == nil)
        try await store.save(StorageSamples.minimal)
        let renewed = tool.secret != nil && tool.secret != first
        #expect(renewed)
        #expect(try await store.load() == StorageSamples.minimal)
    }

    @Test("E4: a missing secret-tool is a configuration error saying what to install")
    func missingToolIsConfiguration() async throws {
        let source = try SecretServiceKeySource(profile: "team", environment: ["PATH": "/nonexistent"])
        #expect(source.tool == nil)
        await expectInvalidConfiguration(containing: "apt install libsecret-tools") { () throws(VersolaError) in
            try await source.dataKey()
        }
        let named = try SecretServiceKeySource(profile: "team", tool: URL(fileURLWithPath: "/nonexistent/secret-tool"))
        await expectInvalidConfiguration(containing: "apt install libsecret-tools") { () throws(VersolaError) in
            try await named.dataKey()
        }
    }

    @Test("E4: no D-Bus session bus is a configuration error saying what to set")
    func noSessionBusIsConfiguration() async throws {
        let directory = try TemporaryDirectory()
        let tool = try FakeTool(directory, mode: "nobus")
        let source = try tool.source()
        for fragment in ["no D-Bus session bus", "DBUS_SESSION_BUS_ADDRESS", "--key-source file", "Cannot autolaunch"] {
            await expectInvalidConfiguration(containing: fragment) { () throws(VersolaError) in try await source.dataKey() }
        }
        #expect(!tool.calls.contains("store"))
    }

    @Test("E4: a session bus without a Secret Service is a configuration error saying what to install")
    func noSecretServiceIsConfiguration() async throws {
        let directory = try TemporaryDirectory()
        let source = try FakeTool(directory, mode: "noservice").source()
        await expectInvalidConfiguration(containing: "apt install gnome-keyring") { () throws(VersolaError) in
            try await source.dataKey()
        }
    }

    @Test("E4: a profile named like an option is an attribute value to the real secret-tool, never its --help")
    func profileNamedLikeAnOption() async throws {
        let tool = URL(fileURLWithPath: "/usr/bin/secret-tool")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            Issue.record("secret-tool is not installed (libsecret-tools), so this was not tested")
            return
        }
        // No bus: the real tool must try to reach one, not print its usage (which read as a foreign item).
        let source = try SecretServiceKeySource(profile: "--help", tool: tool, environment: ["PATH": "/usr/bin:/bin"])
        await expectInvalidConfiguration(containing: "no D-Bus session bus") { () throws(VersolaError) in
            try await source.dataKey()
        }
    }

    @Test func aForeignItemIsAConfigurationError() async throws {
        let directory = try TemporaryDirectory()
        let tool = try FakeTool(directory)
        try FakeTool.write("hunter2", to: directory.file("secret"), mode: 0o600)
        let source = try tool.source()
        await expectInvalidConfiguration(containing: "not a Versola key") { () throws(VersolaError) in
            try await source.dataKey()
        }
        #expect(tool.secret == "hunter2")
    }

    /// The words of the real tool, as measured (LC_ALL=C), sorted into the categories.
    @Test(arguments: [
        ("secret-tool: Cannot get secret of a locked object\nattribute.profile = team\n", "locked"),
        ("secret-tool: Cannot create an item in a locked collection\n", "locked"),
        ("secret-tool: Prompt dismissed\n", "locked"),
        ("secret-tool: Cannot autolaunch D-Bus without X11 $DISPLAY\n", "bus"),
        ("secret-tool: Could not connect: No such file or directory\n", "bus"),
        ("secret-tool: The name org.freedesktop.secrets was not provided by any .service files\n", "service"),
        ("secret-tool: Timeout was reached\n", "other"),
    ])
    func complaintsAreSorted(text: String, kind: String) throws {
        let complaint = try #require(SecretToolComplaint(errorOutput: Array(text.utf8)))
        switch (complaint, kind) {
        case (.locked, "locked"), (.noSessionBus, "bus"), (.noSecretService, "service"), (.other, "other"): break
        default: Issue.record("\(text) read as \(complaint)")
        }
        #expect((complaint.error(action: "read") == .recoverable(.unlockRequired)) == (kind == "locked"))
    }

    @Test func itemListingsAreNoComplaint() {
        // `search` writes the attributes of what it lists on standard error.
        #expect(SecretToolComplaint(errorOutput: Array("attribute.application = versola\nattribute.profile = unlocked\n".utf8)) == nil)
        #expect(SecretToolComplaint(errorOutput: []) == nil)
    }
}
