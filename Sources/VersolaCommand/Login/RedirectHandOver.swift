import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// `versola handle-redirect` for a re-login that another `versola login` is waiting for (L2).
///
/// Over a live session the store keeps the grant as it is and the login's pending request only
/// beside it (P3, P9: the re-login's DPoP key lives in the waiting process alone), so the
/// redirect is handed to that process's loopback listener, exactly as the browser would have
/// delivered it. It is handed over only when the stored pending request is the one this
/// redirect answers (same `state`), and only to a loopback address on the profile's redirect
/// path: a redirect already used, or meant for another login, never reaches a listener, so a
/// code is never exchanged twice.
enum RedirectHandOver {
    /// What became of the redirect.
    enum Outcome: Sendable, Equatable {
        /// The waiting login took it and finishes the sign-in itself.
        case handed
        /// Not a re-login's redirect, or no login listens for it: the stored pending request decides.
        case notHandedOver
    }

    /// Hands `url` to the re-login waiting for it, when there is one.
    /// - Throws: `.configuration(.stateMismatch)` when the waiting login refused it.
    static func toWaitingLogin(_ url: String, store: any SessionStore, redirect: LoopbackRedirect) async throws(VersolaError)
        -> Outcome
    {
        guard let answer = try? AuthorizationRedirect(url: url), let record = try? await store.load(),
            record.refreshToken != nil, let pending = record.pendingAuthorization, answer.carries(state: pending.state),
            let target = loopbackTarget(url, path: redirect.path)
        else { return .notHandedOver }
        var options = TransportOptions()
        options.totalTimeout = .seconds(10)
        let response: HTTPResponse
        do {
            response = try await CurlTransport(idleHandles: 0).send(HTTPRequest(url: target), options: options)
        } catch {
            return .notHandedOver
        }
        guard response.status == 200 else { throw .configuration(.stateMismatch) }
        return .handed
    }

    /// `url` when it is `http://127.0.0.1:PORT` or `http://[::1]:PORT` on `path` with a query.
    static func loopbackTarget(_ url: String, path: String) -> URL? {
        guard let target = URL(string: url), target.scheme == "http", let port = target.port, port > 0,
            let host = target.host, ["127.0.0.1", "::1", "[::1]"].contains(host), target.path == path,
            target.query != nil, target.user == nil
        else { return nil }
        return target
    }

    /// What `handle-redirect` prints once the waiting login has the redirect.
    static func handedText(json: Bool) -> String {
        let message = "Handed the redirect to the sign-in waiting in versola login; it finishes there."
        if json {
            let value: JSONValue = ["handedOver": true, "message": .string(message)]
            return value.serialized() + "\n"
        }
        return message + "\n"
    }
}
