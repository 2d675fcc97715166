import CVersolaTestTLS
import Foundation
import Synchronization
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand
@testable import VersolaHTTP

/// An https stand-in for kube-apiserver on loopback (kubectl sends credentials over https
/// only): `GET /api` answers the APIVersions object when `Authorization: Bearer` carries a
/// token the test provider issued, and 401 otherwise. With `.access` the token must be an
/// access token the provider's resource accepts; with `.id` an ID token signed with one of
/// the provider's published keys, for the client, from the issuer, not expired, as
/// kube-apiserver's OIDC authenticator checks it. `/version` answers too (kubectl's version
/// dispatcher asks it first).
///
/// Each connection is served on a thread of its own (the TLS calls block); the check runs
/// on the cooperative pool while that thread waits.
final class KubeAPIStandIn: Sendable {
    /// `https://127.0.0.1:PORT`; the certificate is for `localhost` (`tls-server-name`).
    let url: String
    private let listener: Int32
    private let context: TLSContext
    private let tally = StandInTally()

    /// The tokens let through, in order.
    var acceptedTokens: [String] { tally.seen.withLock { $0.accepted } }
    /// How many requests were answered 401.
    var refusedCount: Int { tally.seen.withLock { $0.refused } }

    /// Starts the stand-in with `certificates.leaf`, checking tokens of `kind` against `idp`.
    init(certificates: TestCertificates, idp: TestIdentityServer, accepting kind: TokenKind) throws {
        guard let tls = versola_test_tls_context(certificates.leaf, certificates.leafKey) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        context = TLSContext(pointer: tls)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            close(descriptor)
            throw CocoaError(.fileWriteUnknown)
        }
        listener = descriptor
        url = "https://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        let check = Self.checker(for: kind, idp: idp)
        let (listener, context, tally) = (self.listener, self.context, self.tally)
        Thread {
            while true {
                let connection = CloseOnExec.accept(listener)
                if connection < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                Thread { Self.serve(connection, context: context, check: check, tally: tally) }.start()
            }
        }.start()
    }

    /// Stops accepting (connections open now end when their client closes them).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// The APIVersions object kube-apiserver answers on `/api`.
    static let apiVersions = #"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":"#
        + #"[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:6443"}]}"#

    private static func serve(
        _ connection: Int32, context: TLSContext, check: @escaping @Sendable (String) async -> Bool,
        tally: StandInTally
    ) {
        defer { close(connection) }
        guard let tls = versola_test_tls_accept(context.pointer, connection) else { return }
        defer { versola_test_tls_close(tls) }
        var parser = HTTPRequestParser()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { versola_test_tls_read(tls, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            parser.append(buffer[0..<count])
            while let event = parser.next() {
                guard case .request(let request) = event else { return }
                let response = SyncBridge.wait { await answer(request, check: check, tally: tally) }
                let bytes = response.serialized(date: "Thu, 01 Jan 2026 00:00:00 GMT", close: !request.keepAlive, includeBody: true)
                let written = bytes.withUnsafeBytes { versola_test_tls_write(tls, $0.baseAddress, $0.count) }
                if written != 0 || !request.keepAlive { return }
            }
        }
    }

    private static func answer(
        _ request: HTTPServerRequest, check: @Sendable (String) async -> Bool,
        tally: StandInTally
    ) async -> HTTPServerResponse {
        let field = request.headers["Authorization"] ?? ""
        let token = field.hasPrefix("Bearer ") ? String(field.dropFirst(7)) : ""
        guard !token.isEmpty, await check(token) else {
            tally.seen.withLock { $0.refused += 1 }
            let status = #"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","code":401}"#
            return .json(Array(status.utf8), status: 401)
        }
        tally.seen.withLock { $0.accepted.append(token) }
        switch request.path {
        case "/api": return .json(Array(apiVersions.utf8))
        case "/version": return .json(Array(#"{"major":"1","minor":"32","gitVersion":"v1.32.0"}"#.utf8))
        default: return .text("not found", status: 404)
        }
    }

    /// How a token is judged: at the provider's resource (an access token), or by its
    /// signature and claims (an ID token).
    private static func checker(for kind: TokenKind, idp: TestIdentityServer) -> @Sendable (String) async -> Bool {
        let provider = idp.provider
        let issuer = idp.issuer
        let base = URL(string: issuer)?.path ?? ""
        switch kind {
        case .access:
            let resource = URL(string: idp.resourceURL)?.path ?? "/resource"
            return { token in
                let check = HTTPServerRequest(method: "GET", target: resource, headers: ["Authorization": "Bearer \(token)"])
                guard case .respond(let answer) = await provider.handle(check, arrivedAt: .authorizationServer) else {
                    return false
                }
                return answer.status == 200
            }
        case .id:
            return { token in
                let fetch = HTTPServerRequest(method: "GET", target: base + "/jwks")
                guard case .respond(let answer) = await provider.handle(fetch, arrivedAt: .authorizationServer),
                    let keys = try? JWKSet(parsing: answer.body), let jws = try? JWS(compact: token),
                    (try? jws.verify(using: keys, allowedAlgorithms: [.rs256, .es256])) != nil,
                    let claims = try? JWTClaims(payload: jws.payload), let expiry = claims.expiration
                else { return false }
                return claims.issuer == issuer && claims.audiences?.contains("versola-test") == true && expiry > Date()
            }
        }
    }
}

/// The OpenSSL server context, freed with the stand-in.
private final class TLSContext: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init(pointer: UnsafeMutableRawPointer) {
        self.pointer = pointer
    }

    deinit { versola_test_tls_context_free(pointer) }
}

/// What the stand-in saw, shared with its connection threads.
private final class StandInTally: Sendable {
    let seen = Mutex<(accepted: [String], refused: Int)>(([], 0))
}
