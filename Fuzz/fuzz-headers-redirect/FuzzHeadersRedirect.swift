import Foundation
import Versola
import VersolaHTTP

// libFuzzer entry point for the small text parsers of outside input. The first byte picks
// the parser, the rest is the text:
//   0: WWW-Authenticate (RFC 9110 §11.6.1; DPoP errors, step-up A10)
//   1: Retry-After (R8)
//   2: DPoP-Nonce (D3), learned from a value and from a response, then stored and restored
//   3: the authorization redirect (A5, E12), absolute URL or query
// Besides "no crash", each checks a property (see the functions); a broken one traps on purpose.

private let now = Date(timeIntervalSince1970: 1_735_689_600)
private let providerIssuer = "https://idp.example/realms/main"
private let pendingState = "st-8f2c"

/// libFuzzer entry point: the first byte picks the parser, the rest is its text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = data[0]
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    switch selector % 4 {
    case 0: checkWWWAuthenticate(text)
    case 1: checkRetryAfter(text)
    case 2: checkDPoPNonce(text)
    default: checkRedirect(text)
    }
    return 0
}

/// A finding: an invariant of the code under test does not hold.
private func finding(_ what: String) -> Never {
    fatalError("invariant broken: \(what)")
}

// MARK: WWW-Authenticate

/// Parsing never fails; writing the challenges back in canonical form (every value quoted)
/// and parsing that gives the same challenges.
private func checkWWWAuthenticate(_ text: String) {
    let header = WWWAuthenticate(text)
    for challenge in header.challenges {
        if challenge.scheme.isEmpty { finding("a challenge with an empty scheme") }
        if challenge.token68 != nil && !challenge.parameters.isEmpty { finding("token68 and parameters together") }
        _ = challenge.error
        _ = challenge.hasScheme("DPoP")
    }
    _ = header.challenge(scheme: "dpop")?["error"]
    if let stepUp = header.stepUpChallenge, let maxAge = stepUp.maxAge, maxAge < 0 {
        finding("a negative max_age in a step-up challenge")
    }
    let again = WWWAuthenticate(canonical(header))
    if again != header { finding("WWW-Authenticate canonical round trip changed the challenges") }
    let fields = WWWAuthenticate(headers: ["WWW-Authenticate": text, "www-authenticate": text])
    if fields.challenges != header.challenges + header.challenges { finding("two fields are not both read") }
}

private func canonical(_ header: WWWAuthenticate) -> String {
    header.challenges.map { challenge in
        if let token68 = challenge.token68 { return "\(challenge.scheme) \(token68)" }
        if challenge.parameters.isEmpty { return challenge.scheme }
        let parameters = challenge.parameters.map { parameter in
            var quoted = "\""
            for character in parameter.value.unicodeScalars {
                if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
                quoted.unicodeScalars.append(character)
            }
            return "\(parameter.name)=\(quoted)\""
        }
        return "\(challenge.scheme) " + parameters.joined(separator: ", ")
    }.joined(separator: ", ")
}

// MARK: Retry-After

/// nil or a wait within 0...longest; delta-seconds read exactly (capped); surrounding spaces
/// ignored; a later `now` never gives a longer wait.
private func checkRetryAfter(_ text: String) {
    let wait = RetryAfter.parse(text, now: now)
    guard let wait else { return }
    if wait < .zero || wait > RetryAfter.longest { finding("Retry-After outside 0...longest") }
    if RetryAfter.parse(" \t\(text) ", now: now) != wait { finding("surrounding blanks changed Retry-After") }
    let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
        let digits = trimmed.drop { $0 == "0" }
        let expected: Duration =
            digits.count > 6 ? RetryAfter.longest : min(.seconds(Int64(digits) ?? 0), RetryAfter.longest)
        if wait != expected { finding("delta-seconds misread") }
        return
    }
    guard let later = RetryAfter.parse(text, now: now.addingTimeInterval(1)) else {
        finding("a date stopped parsing one second later")
    }
    if later > wait { finding("a later now gave a longer wait") }
}

// MARK: DPoP-Nonce

/// A nonce is kept only when it is 1*NQCHAR and at most 1 KB, only for its origin; what is kept
/// survives a snapshot and restore.
private func checkDPoPNonce(_ text: String) {
    guard let origin = Origin(scheme: "https", host: "idp.example"),
        let other = Origin(scheme: "https", host: "api.example")
    else { finding("the fixed origins do not build") }
    let usable =
        !text.isEmpty && text.utf8.count <= 1024
        && text.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E && $0 != 0x22 && $0 != 0x5C }

    let cache = DPoPNonceCache()
    cache.learn(text, from: origin)
    if cache.nonce(for: origin) != (usable ? text : nil) { finding("DPoP nonce acceptance differs from 1*NQCHAR") }
    if cache.nonce(for: other) != nil { finding("a nonce leaked to another origin") }

    let fromResponse = DPoPNonceCache()
    fromResponse.learn(from: HTTPResponse(status: 401, headers: ["DPoP-Nonce": text], origin: other))
    if fromResponse.nonce(for: other) != (usable ? text : nil) { finding("a response's DPoP-Nonce misread") }
    if fromResponse.nonce(for: origin) != nil { finding("a response's nonce stored under another origin") }

    let restored = DPoPNonceCache()
    restored.restore(cache.snapshot())
    if restored.snapshot() != cache.snapshot() { finding("snapshot and restore lost a nonce") }
    // A stored snapshot is outside input too: arbitrary keys are skipped or read as origins,
    // and only usable nonces are kept. (An origin whose host came percent-encoded, such as
    // `https://%2Fa`, is kept under a text that does not parse back: it is dropped at the
    // next restore. Harmless, a nonce is learned again; so no round trip is asked of these.)
    let hostile = DPoPNonceCache()
    let stored = [(text, "n-1"), ("https://\(text)", "n-2"), (origin.description, text)]
    hostile.restore(Dictionary(stored, uniquingKeysWith: { first, _ in first }))
    for (_, nonce) in hostile.snapshot() where nonce != "n-1" && nonce != "n-2" && !usable {
        finding("an unusable nonce restored")
    }
    let single = DPoPNonceCache()
    single.restore(["https://API.example:443": text])
    if single.nonce(for: other) != (usable ? text : nil) { finding("a restored nonce misread") }
}

// MARK: Redirect

/// The redirect parses as a URL and as a query; a code is handed out only with the pending
/// state, the provider's issuer (or none when not required) and no error.
private func checkRedirect(_ text: String) {
    let pending = PendingAuthorization(
        state: pendingState, nonce: "n-1", codeVerifier: "verifier", redirectURI: "http://127.0.0.1:49152/callback",
        issuer: providerIssuer, clientID: "versola-test", scope: "openid", createdAt: now)
    let fromQuery = AuthorizationRedirect(query: text)
    let candidates = [fromQuery, try? AuthorizationRedirect(url: text)]
    for case let redirect? in candidates {
        _ = redirect.description
        _ = redirect.isAuthorizationResponse
        for required in [false, true] {
            guard let code = try? redirect.validatedCode(for: pending, issuerParameterRequired: required) else {
                continue
            }
            if redirect.state != pendingState { finding("a code accepted with another state") }
            if redirect.error != nil { finding("a code accepted from an error response") }
            if code.isEmpty || code != redirect.code { finding("the code handed out is not the redirect's") }
            if let issuer = redirect.issuer, issuer != providerIssuer { finding("a code accepted from another issuer") }
            if required && redirect.issuer == nil { finding("a code accepted without the required iss") }
        }
    }
}
