import VersolaHTTP
import Foundation
import VersolaJOSE

extension OpenIDClient {
    /// Uses a refresh token (R6), with a proof by the grant's DPoP key, and validates the new
    /// ID token against the previous claims (A7). The new grant keeps the key.
    /// - Parameter grant: the grant to refresh.
    /// - Throws: `.reauthenticate(.sessionExpired)` without a refresh token (S8); the token
    ///   endpoint's errors; `.configuration(.providerUnsupported)` for a Bearer answer to a
    ///   DPoP refresh in `.require` mode without Bearer fallback (D5).
    public func refresh(_ grant: Grant) async throws(VersolaError) -> Grant {
        try await refresh(grant, budget: nil)
    }

    /// ``refresh(_:)`` as a step of a larger operation (a refresh after a 401, R1), on its
    /// budget; a new one when nil.
    package func refresh(_ grant: Grant, budget: OperationBudget?) async throws(VersolaError) -> Grant {
        try await acceptRefresh(try await requestRefresh(grant, budget: budget))
    }

    /// The first half of ``refresh(_:)``: spends the refresh token and returns the
    /// token endpoint's answer, before anything about it is checked. A caller that stores
    /// sessions saves ``RefreshAnswer/rotatedRefreshToken`` first (P7, P10): once the answer
    /// has arrived the old token is spent, so the new one must survive any later failure.
    /// - Throws: `.reauthenticate(.sessionExpired)` without a refresh token (S8); the token
    ///   endpoint's errors.
    package func requestRefresh(_ grant: Grant, budget: OperationBudget? = nil) async throws(VersolaError)
        -> RefreshAnswer
    {
        guard let refreshToken = grant.refreshToken else { throw .reauthenticate(.sessionExpired) }
        let budget = try operationBudget(budget)
        let metadata = try await discovery.metadata(budget: budget)
        do {
            let tokens = try await TokenEndpoint(metadata: metadata, configuration: configuration, sender: sender)
                .refresh(refreshToken: refreshToken, budget: budget, dpopKey: grant.dpopKey)
            return RefreshAnswer(grant: grant, tokens: tokens, metadata: metadata, budget: budget)
        } catch {
            // A16: a 404 at the token endpoint of a kept copy means the copy is stale.
            await discovery.forgetKeptCopy(after: error)
            throw error
        }
    }

    /// The second half of ``refresh(_:)``: checks the answer (token type against the
    /// DPoP key, D5; the new ID token against the previous claims, A7) and builds the new grant.
    /// - Throws: `.configuration(.providerUnsupported)` for a Bearer answer to a DPoP refresh
    ///   without Bearer fallback; `.configuration(.idTokenRejected)` for a bad new ID token.
    package func acceptRefresh(_ answer: RefreshAnswer) async throws(VersolaError) -> Grant {
        let (grant, tokens) = (answer.grant, answer.tokens)
        try checkTokenType(tokens, boundTo: grant.dpopKey)
        var claims = grant.claims
        var idToken = grant.idToken
        // A grant without an ID token (no `openid`, A16) takes none from a refresh either.
        if let fresh = tokens.idToken, let previous = grant.claims {
            claims = try await validator(answer.metadata).validate(
                fresh, nonce: nil, accessToken: tokens.accessToken, previous: previous, budget: answer.budget)
            idToken = fresh
        }
        return Grant(
            accessToken: tokens.accessToken, tokenType: tokens.tokenType,
            expiresAt: tokens.expiresIn.map { environment.clock.wallClockNow.addingTimeInterval(Self.seconds($0)) },
            refreshToken: tokens.refreshToken ?? grant.refreshToken, idToken: idToken, claims: claims,
            scope: tokens.scope ?? grant.scope, dpopKey: grant.dpopKey)
    }

    /// The UserInfo claims for a grant, checked against its ID token's `sub` (A8). A
    /// DPoP-bound token goes with a proof carrying `ath`.
    /// - Parameter grant: the grant whose access token is used.
    public func userInfo(_ grant: Grant) async throws(VersolaError) -> UserInfo {
        try await userInfo(grant, budget: nil)
    }

    /// ``userInfo(_:)`` as a step of a larger operation, on its budget; a new one when nil.
    package func userInfo(_ grant: Grant, budget: OperationBudget?) async throws(VersolaError) -> UserInfo {
        let budget = try operationBudget(budget)
        let metadata = try await discovery.metadata(budget: budget)
        guard let endpoint = metadata.userInfoEndpoint else {
            throw .configuration(.providerUnsupported("the provider has no UserInfo endpoint"))
        }
        do {
            return try await UserInfoEndpoint(url: endpoint, sender: sender)
                .fetch(
                    accessToken: grant.accessToken, expectedSubject: grant.claims?.subject, budget: budget,
                    dpopKey: grant.resourceProofKey)
        } catch {
            await discovery.forgetKeptCopy(after: error)
            throw error
        }
    }

    /// Sends an application request to a resource with the grant's access token: `Authorization:
    /// DPoP` with a proof carrying `ath` for a DPoP-bound token (D2), else `Bearer`.
    ///
    /// Kind `.application` (R7): every status comes back as the response, nothing is repeated on
    /// a status. A resource's nonce demand (`401`, `WWW-Authenticate: DPoP
    /// error="use_dpop_nonce"`) is retried once with the nonce, and `invalid_dpop_proof` once
    /// with a fresh proof (R3); a 401 for any other reason is returned (the session layer
    /// refreshes and replays, E10).
    ///
    /// ```swift
    /// let answer = try await client.send(HTTPRequest(url: apiURL), grant: grant)
    /// print(answer.status)
    /// ```
    /// - Parameters:
    ///   - request: the request, without `Authorization` or `DPoP`.
    ///   - grant: whose token to present.
    /// - Throws: `.recoverable(.network)` when nothing answered; `.recoverable(.nonceLoop)` for a
    ///   second nonce demand (D3); `.configuration(.invalidConfiguration)` for an unusable URL.
    public func send(_ request: HTTPRequest, grant: Grant) async throws(VersolaError) -> HTTPResponse {
        try await send(request, grant: grant, budget: nil)
    }

    /// ``send(_:grant:)`` as a step of a larger operation (a replay after a refresh, R1), on
    /// its budget; a new one when nil.
    package func send(_ request: HTTPRequest, grant: Grant, budget: OperationBudget?) async throws(VersolaError)
        -> HTTPResponse
    {
        let budget = try operationBudget(budget)
        return try await sender.send(
            request, kind: .application, budget: budget, accessToken: grant.accessToken,
            dpopKey: grant.resourceProofKey)
    }

    /// Revokes a grant's refresh token (A9); fire-and-forget: the result only says whether
    /// the provider confirmed.
    ///
    /// For a provider that wants revocation authenticated (a 401 to the plain request), the
    /// grant's access token authenticates it; when the grant holds no live access token (a
    /// session restored from disk keeps none, P4), one refresh gets one, and the refresh token
    /// it rotated in is the one revoked.
    /// A grant without a refresh token (P13) has its access token revoked instead.
    @discardableResult
    public func revoke(_ grant: Grant) async -> Bool {
        guard grant.revocableToken != nil, let budget = try? newBudget(),
            let metadata = try? await discovery.metadata(budget: budget), let endpoint = metadata.revocationEndpoint
        else { return false }
        let revocation = RevocationEndpoint(
            url: endpoint, client: ClientAuthentication(configuration: configuration, metadata: metadata), sender: sender)
        guard let refreshToken = grant.refreshToken else {
            return await revocation.attempt(accessToken: grant.accessToken, budget: budget, dpopKey: grant.dpopKey) == .confirmed
        }
        let now = environment.clock.wallClockNow
        let live = !grant.accessToken.isEmpty && (grant.expiresAt.map { $0 > now } ?? true)
        let outcome = await revocation.attempt(
            refreshToken: refreshToken, budget: budget, dpopKey: grant.dpopKey,
            accessToken: live ? grant.accessToken : nil)
        guard outcome == .authenticationRequired, let renewed = try? await refresh(grant, budget: budget) else {
            return outcome == .confirmed
        }
        return await revocation.revoke(
            refreshToken: renewed.refreshToken ?? refreshToken, budget: budget, dpopKey: renewed.dpopKey,
            accessToken: renewed.accessToken)
    }
}
