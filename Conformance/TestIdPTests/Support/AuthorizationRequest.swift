/// The front-channel parameters of one authorization request, correct by default.
struct AuthorizationRequest: Sendable {
    var clientID = "versola-test"
    var redirectURI = "http://127.0.0.1:53682/callback"
    var pkce = PKCEPair()
    var state = "state-123"
    var nonce = "nonce-456"
    var scope = "openid profile offline_access"
    /// Parameters added after the standard ones (`prompt`, `dpop_jkt`, `acr_values`, …).
    var extra: [(String, String)] = []
    /// Standard parameters to leave out.
    var omit: Set<String> = []
    /// Overrides of standard parameters (`code_challenge_method` → `plain`).
    var overrides: [String: String] = [:]

    /// The parameters in order, after omissions and overrides.
    var parameters: [(String, String)] {
        let standard = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scope),
            ("state", state), ("nonce", nonce), ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"),
        ]
        return standard.filter { !omit.contains($0.0) }.map { ($0.0, overrides[$0.0] ?? $0.1) } + extra
    }
}

/// What a successful token request returned.
struct IssuedTokens: Sendable {
    var accessToken: String
    var refreshToken: String?
    var idToken: String
    var tokenType: String
}
