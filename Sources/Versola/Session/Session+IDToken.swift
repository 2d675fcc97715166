import VersolaHTTP
import Foundation

extension Session {
    /// The raw ID token of the grant held now (what kube-apiserver's OIDC authenticator and
    /// similar backends validate); nil when signed out. Secret-adjacent: never log it.
    public func idToken() -> String? {
        machine.heldGrant?.grant.idToken
    }

    /// A valid ID token to hand to a backend as a credential: the held one while more than the
    /// refresh margin is left before its `exp`, else the one a refresh brings (providers
    /// issue a new ID token with each refresh; the session checks it as A7 asks).
    ///
    /// ```swift
    /// let credential = try await session.currentIDToken()
    /// request.headers.set("Authorization", "Bearer " + credential.value)
    /// ```
    /// - Parameter forceRefresh: refresh even when the held one is still good.
    /// - Throws: `.reauthenticate(.sessionExpired)` when signed out, or when the ID token has
    ///   expired and there is no refresh token; `.configuration(.providerUnsupported)` when
    ///   the provider answered a refresh without a new ID token and the held one has expired, or
    ///   when the session has no ID token at all (signed in without `openid`, A16);
    ///   the refresh's errors otherwise.
    public func currentIDToken(forceRefresh: Bool = false) async throws(VersolaError) -> IDToken {
        try checkUnlocked()
        await flushUnsaved()
        guard let held = machine.heldGrant, state.holdsGrant, state != .loggingOut else {
            if let readProblem = machine.readProblem, state == .unauthenticated { throw readProblem }
            throw .reauthenticate(.sessionExpired)
        }
        let now = client.environment.clock.wallClockNow
        guard let current = Self.idToken(of: held.grant) else { throw Self.noIDToken }
        let margin = AccessTokenFreshness.seconds(configuration.refreshMargin)
        if !forceRefresh, current.expiresAt.timeIntervalSince(now) > margin { return current }
        // Without a refresh token nothing can renew it; the grant itself is left alone (its
        // access token may still be good).
        guard held.grant.refreshToken != nil else {
            if current.expiresAt > now { return current }
            throw .reauthenticate(.sessionExpired)
        }
        let renewed = try await refresh(from: held.grant)
        guard let fresh = Self.idToken(of: renewed) else { throw Self.noIDToken }
        if fresh.value != current.value { return fresh }
        // The provider kept the old ID token: it serves until its own expiry, not after.
        let later = client.environment.clock.wallClockNow
        if current.expiresAt > later { return current }
        throw .configuration(
            .providerUnsupported(
                "the provider sent no new ID token with the refresh, and the one held expired at "
                    + Self.utc(current.expiresAt) + "; a new sign-in brings a new one"))
    }

    /// A grant's ID token with its expiry, when it has one.
    private static func idToken(of grant: Grant) -> IDToken? {
        guard let value = grant.idToken, let claims = grant.claims else { return nil }
        return IDToken(value: value, expiresAt: claims.expiration)
    }

    /// A16: a session signed in without `openid` has no ID token to hand out.
    private static let noIDToken = VersolaError.configuration(
        .providerUnsupported(
            "this session has no ID token: it was signed in without the openid scope (a plain OAuth 2.0 "
                + "sign-in); sign in again with openid among the scopes where the provider offers it"))

    /// `2026-11-29T21:45:00Z`.
    private static func utc(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
