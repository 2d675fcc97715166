import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTesting

// libFuzzer entry point for the JSON bodies a provider sends: every input is read as a
// discovery document (A1), a token answer and an OAuth error answer (E6, E9). Beyond "no
// crash", it checks what those parsers promise: an accepted discovery document names only
// https endpoints (http on loopback alone) and the configured issuer, re-checking its document
// gives the same value; an accepted token answer has a non-empty access token, a lifetime in
// range and a description that never shows a token. A broken invariant traps on purpose.

private let issuer = "https://idp.example/realms/main"
private let providerOrigin = Origin(scheme: "https", host: "idp.example")

/// libFuzzer entry point: reads `size` bytes at `data` as each of the three provider bodies.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkDiscovery(bytes)
    checkTokenResponse(bytes)
    checkErrorResponse(bytes)
    return 0
}

/// A finding: an invariant of the code under test does not hold.
private func finding(_ what: String) -> Never {
    fatalError("invariant broken: \(what)")
}

private func checkDiscovery(_ bytes: [UInt8]) {
    guard let metadata = try? ProviderMetadata(parsing: bytes, configuredIssuer: issuer) else { return }
    if metadata.issuer != issuer { finding("metadata accepted with another issuer") }
    let endpoints = [
        metadata.authorizationEndpoint, metadata.tokenEndpoint, metadata.jwksURI, metadata.userInfoEndpoint,
        metadata.revocationEndpoint, metadata.endSessionEndpoint, metadata.pushedAuthorizationRequestEndpoint,
    ]
    for case let endpoint? in endpoints {
        guard let endpointOrigin = Origin(url: endpoint) else { finding("an accepted endpoint has no origin") }
        if endpointOrigin.scheme != "https" && !(endpointOrigin.scheme == "http" && endpointOrigin.isLoopback) {
            finding("an accepted endpoint is neither https nor loopback http")
        }
    }
    guard let again = try? ProviderMetadata(document: metadata.document, configuredIssuer: issuer), again == metadata
    else { finding("re-checking the parsed document changed the metadata") }

    var configuration = ClientConfiguration(issuer: issuer, clientID: "versola-test")
    for mode in PushedAuthorizationMode.allCases {
        configuration.pushedAuthorization = mode
        configuration.usesDPoP = mode != .never
        _ = try? metadata.checkSupports(configuration)
        _ = metadata.usesPushedAuthorization(for: configuration)
        if !metadata.idTokenAlgorithms(for: configuration).isSubset(of: configuration.idTokenAlgorithms) {
            finding("ID token algorithms outside the allow-list")
        }
    }
}

private func checkTokenResponse(_ bytes: [UInt8]) {
    guard let providerOrigin, let budget = try? OperationBudget(clock: ManualClock()) else {
        finding("the fixed origin or budget does not build")
    }
    let response = HTTPResponse(status: 200, body: bytes, origin: providerOrigin)
    let tokens: TokenResponse
    do throws(VersolaError) {
        tokens = try TokenResponse(response, budget: budget)
    } catch {
        _ = error.description
        return
    }
    if tokens.accessToken.isEmpty { finding("empty access token accepted") }
    if let expiresIn = tokens.expiresIn,
        expiresIn < .zero || expiresIn > .seconds(TokenResponse.maximumExpiresIn)
    {
        finding("expires_in out of range")
    }
    // The description must not change when a token changes: it never shows one.
    var masked = tokens
    masked.accessToken = "\u{1}"
    masked.refreshToken = tokens.refreshToken.map { _ in "\u{1}" }
    masked.idToken = tokens.idToken.map { _ in "\u{1}" }
    if masked.description != tokens.description { finding("a token shows in TokenResponse.description") }
}

private func checkErrorResponse(_ bytes: [UInt8]) {
    guard let error = OAuthErrorResponse(body: bytes) else { return }
    if error.code.rawValue.isEmpty { finding("OAuth error with an empty code") }
    for status in [400, 401, 403, 500] {
        _ = error.versolaError(status: status).description
    }
    _ = error.description
}
