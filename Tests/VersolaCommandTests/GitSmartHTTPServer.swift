import Foundation
import Synchronization
import VersolaHTTP
import VersolaTestIdP

/// A git server as a forge runs one: `git http-backend` (smart HTTP) behind a loopback HTTP
/// listener that lets a request through only with a token the test provider accepts at its
/// protected resource. Basic credentials carry the token as the password (what git sends with
/// a helper's `password`); `Authorization: Bearer` is accepted too.
final class GitSmartHTTPServer: Sendable {
    /// The directory holding the bare repositories.
    let root: String
    private let server: HTTPServer
    private let tally = Tally()

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { server.baseURL }
    /// The tokens let through, in order.
    var acceptedTokens: [String] { tally.seen.withLock { $0.accepted } }
    /// How many requests carried a credential the provider refused.
    var refusedCount: Int { tally.seen.withLock { $0.refused } }

    init(root: String, idp: TestIdentityServer) throws {
        self.root = root
        let resourcePath = URL(string: idp.resourceURL)?.path ?? "/resource"
        let provider = idp.provider
        let tally = self.tally
        var limits = HTTPServerLimits()
        limits.maxBodyBytes = 16 << 20
        server = try HTTPServer.start(address: .ipv4Loopback, port: 0, limits: limits) { request in
            guard let token = Self.token(in: request) else { return .respond(Self.challenge) }
            // The forge asks the provider whether the token is good, as a resource server does.
            let check = HTTPServerRequest(
                method: "GET", target: resourcePath, headers: ["Authorization": "Bearer \(token)"])
            guard case .respond(let answer) = await provider.handle(check, arrivedAt: .authorizationServer),
                answer.status == 200
            else {
                tally.seen.withLock { $0.refused += 1 }
                return .respond(Self.challenge)
            }
            tally.seen.withLock { $0.accepted.append(token) }
            return .respond(await Self.backend(request, root: root))
        }
    }

    func stop() async { await server.stop() }

    private static let challenge = HTTPServerResponse(
        status: 401, headers: ["WWW-Authenticate": "Basic realm=\"git\"", "Content-Length": "0"])

    /// The token of `Authorization: Basic` (the password) or `Authorization: Bearer`.
    private static func token(in request: HTTPServerRequest) -> String? {
        guard let field = request.headers["Authorization"], let space = field.firstIndex(of: " ") else { return nil }
        let scheme = field[..<space].lowercased()
        let value = String(field[field.index(after: space)...])
        if scheme == "bearer" { return value }
        guard scheme == "basic", let data = Data(base64Encoded: value), let text = String(data: data, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        let password = String(text[text.index(after: colon)...])
        return password.isEmpty ? nil : password
    }

    /// Runs `git http-backend` as a CGI program for `request`, on a thread of its own.
    private static func backend(_ request: HTTPServerRequest, root: String) async -> HTTPServerResponse {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: runBackend(request, root: root)) }.start()
        }
    }

    private static func runBackend(_ request: HTTPServerRequest, root: String) -> HTTPServerResponse {
        let stem = root + "/cgi-" + UUID().uuidString.prefix(8)
        _ = FileManager.default.createFile(atPath: stem + ".in", contents: Data(request.body))
        defer { for suffix in [".in", ".out"] { unlink(stem + suffix) } }
        var environment = [
            "GIT_PROJECT_ROOT": root, "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": request.path,
            "QUERY_STRING": request.query ?? "", "REQUEST_METHOD": request.method, "REMOTE_USER": "git-user",
            "REMOTE_ADDR": "127.0.0.1", "CONTENT_LENGTH": String(request.body.count), "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": root, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        if let type = request.headers["Content-Type"] { environment["CONTENT_TYPE"] = type }
        if let encoding = request.headers["Content-Encoding"] { environment["HTTP_CONTENT_ENCODING"] = encoding }
        if let version = request.headers["Git-Protocol"] { environment["GIT_PROTOCOL"] = version }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stem + ".in", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stem + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        _ = CloseOnExec.closeDescriptors(from: 3, in: &actions)
        let words: [String] = ["git", "http-backend"]
        let argv = words.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        guard posix_spawnp(&child, "git", &actions, nil, argv, envp) == 0 else { return .text("no git", status: 500) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return parseCGI(Array(FileManager.default.contents(atPath: stem + ".out") ?? Data()))
    }

    /// A CGI answer: header lines, a blank line, the body; `Status:` gives the status.
    private static func parseCGI(_ output: [UInt8]) -> HTTPServerResponse {
        var index = 0
        var headers = HTTPHeaders()
        var status = 200
        while index < output.count {
            guard let end = output[index...].firstIndex(of: UInt8(ascii: "\n")) else { break }
            var line = String(decoding: output[index..<end], as: UTF8.self)
            index = end + 1
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name.lowercased() == "status" {
                status = Int(value.prefix(3)) ?? 500
            } else {
                headers.add(name, value)
            }
        }
        let body = Array(output[min(index, output.count)...])
        headers.set("Content-Length", String(body.count))
        return HTTPServerResponse(status: status, headers: headers, body: body)
    }
}

/// What the forge saw, shared with its request handler.
private final class Tally: Sendable {
    let seen = Mutex<(accepted: [String], refused: Int)>(([], 0))
}
