import Foundation
@testable import VersolaCommand

/// A `versola login --no-browser` whose standard input is a FIFO the test writes to, as a
/// person pastes the address their browser ended on.
struct PastingLogin {
    /// The login's process.
    let child: pid_t
    /// Where its output goes (`stem.out`, `stem.err`).
    let stem: String
    /// The FIFO's write end; ``close()`` closes it.
    let writer: Int32
    /// The redirect a genuine sign-in at the printed address ends on.
    let redirect: String

    /// Starts the login, waits for the address it prints, and signs in there (headlessly).
    init(_ cli: CLIHarness) async throws {
        let fifo = cli.home.path + "/paste"
        guard mkfifo(fifo, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        stem = cli.home.path + "/login"
        child = try cli.spawn(
            CLIHarness.executable, ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--no-browser"],
            stem: stem, input: fifo)
        let started = child
        do {
            let prompt = await cli.contents(of: stem + ".err", containing: "/authorize?") ?? ""
            let lines = prompt.split(separator: "\n").map { String($0).trimmingBlanks }
            guard let url = lines.first(where: { $0.hasPrefix("http") }), let redirect = try await cli.finalRedirect(from: url)
            else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "no sign-in address in: \(prompt)"]) }
            self.redirect = redirect
            // The login holds the FIFO open for reading (it was opened read-write): this does not block.
            writer = open(fifo, O_WRONLY)
            guard writer >= 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            // A login that never got its address is not left waiting for one.
            kill(started, SIGKILL)
            _ = await cli.finished(started, stem: stem)
            throw error
        }
    }

    /// Pastes `line` and a newline.
    func paste(_ line: String) {
        _ = Array((line + "\n").utf8).withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
    }

    /// Closes the FIFO's write end.
    func close() {
        _ = Glibc.close(writer)
    }
}
