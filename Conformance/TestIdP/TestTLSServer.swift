import Foundation
import Synchronization

/// Certificates made at run time with the `openssl` command in a temporary directory (nothing
/// committed), and `openssl s_server -www` serving one of them on loopback: an https origin
/// for the TLS verification scenarios (E14). The server answers every request with a small
/// HTML status page, so a client that gets past the handshake sees a non-JSON answer.
///
/// ```swift
/// let certificates = try TestCertificates()
/// let server = try TestTLSServer(certificate: certificates.leaf, key: certificates.leafKey)
/// // https://localhost:\(server.port) is signed by certificates.authority
/// ```
public final class TestCertificates: Sendable {
    /// The directory holding every file; removed on deinit.
    public let directory: String
    /// The test CA's certificate (PEM): trust it to accept ``leaf`` and ``expiredLeaf``.
    public var authority: String { directory + "/ca.pem" }
    /// A certificate for `localhost` (DNS name only: `127.0.0.1` is a name mismatch), valid now.
    public var leaf: String { directory + "/leaf.pem" }
    /// A certificate for `localhost` that expired in February 2020.
    public var expiredLeaf: String { directory + "/expired.pem" }
    /// The private key of both leaf certificates.
    public var leafKey: String { directory + "/leaf.key" }

    /// Makes a CA and two leaf certificates signed by it.
    /// - Throws: ``TestTLSError`` when the `openssl` command fails or is missing.
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("versola-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let dir = directory
        func at(_ name: String) -> String { dir + "/" + name }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try Self.openssl(
            ["req", "-x509"] + ec + ["-keyout", at("ca.key"), "-out", at("ca.pem"), "-days", "2", "-subj", "/CN=Versola Test CA"])
        try Self.openssl(
            ["req", "-new"] + ec + ["-keyout", at("leaf.key"), "-out", at("leaf.csr"), "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost"])
        let configuration = """
            [ca]
            default_ca = test
            [test]
            database = \(at("index.txt"))
            new_certs_dir = \(dir)
            serial = \(at("serial"))
            default_md = sha256
            policy = any
            copy_extensions = copy
            unique_subject = no
            [any]
            commonName = supplied
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: at("ca.cnf")))
        try Data().write(to: URL(fileURLWithPath: at("index.txt")))
        try Data("01\n".utf8).write(to: URL(fileURLWithPath: at("serial")))
        let sign = [
            "ca", "-batch", "-config", at("ca.cnf"), "-cert", at("ca.pem"), "-keyfile", at("ca.key"), "-in", at("leaf.csr"),
            "-notext",
        ]
        try Self.openssl(sign + ["-out", at("leaf.pem"), "-days", "2"])
        try Self.openssl(sign + ["-out", at("expired.pem"), "-startdate", "20200101000000Z", "-enddate", "20200201000000Z"])
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func openssl(_ arguments: [String]) throws {
        let child = try OpenSSLProcess.spawn(arguments, output: "/dev/null")
        let status = OpenSSLProcess.wait(child)
        guard status == 0 else { throw TestTLSError(reason: "openssl \(arguments.first ?? "") exited \(status)") }
    }
}

/// `openssl s_server -www` on `127.0.0.1` and a free port, serving one certificate.
public final class TestTLSServer: Sendable {
    /// The port it listens on.
    public let port: Int
    private let child: pid_t
    private let stopped = Mutex(false)

    /// Starts the server and waits (at most 30 s) for it to say it listens.
    /// - Throws: ``TestTLSError`` when it does not start.
    public init(certificate: String, key: String) throws {
        let directory = (certificate as NSString).deletingLastPathComponent
        let log = directory + "/s_server-\(UUID().uuidString.prefix(8)).out"
        child = try OpenSSLProcess.spawn(
            ["s_server", "-cert", certificate, "-key", key, "-accept", "127.0.0.1:0", "-www"], output: log)
        // It prints "ACCEPT 127.0.0.1:PORT" once it listens: wait for that line of its output.
        let deadline = ContinuousClock.now + .seconds(30)
        var found: Int?
        while found == nil, ContinuousClock.now < deadline {
            let text = String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") && text.contains($0 + "\n") }),
                let colon = line.lastIndex(of: ":")
            {
                found = Int(line[line.index(after: colon)...])
            } else {
                usleep(5000)
            }
        }
        guard let found else {
            kill(child, SIGKILL)
            _ = OpenSSLProcess.wait(child)
            throw TestTLSError(reason: "openssl s_server did not say where it listens")
        }
        port = found
    }

    /// Stops the server.
    public func stop() {
        let first = stopped.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        kill(child, SIGKILL)
        _ = OpenSSLProcess.wait(child)
    }

    deinit {
        stop()
    }
}

/// posix_spawn and waitpid for the openssl command: the test runner's threads block signals
/// (the child starts with none blocked, so it can be stopped) and Foundation's `Process` can
/// miss a child's exit.
enum OpenSSLProcess {
    static func spawn(_ arguments: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = (["openssl"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        guard posix_spawnp(&child, "openssl", &actions, &attributes, argv, environ) == 0 else {
            throw TestTLSError(reason: "cannot run openssl")
        }
        return child
    }

    /// The child's exit status (128 + the signal when a signal ended it).
    static func wait(_ child: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

/// The openssl command failed.
public struct TestTLSError: Error, CustomStringConvertible {
    /// What failed.
    public var reason: String
    public var description: String { "TLS test fixture: \(reason)" }
}
