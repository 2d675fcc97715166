/// What a request is for, which decides whether a failed one may be repeated (R4–R7).
public enum OperationKind: String, Sendable, Hashable, CaseIterable {
    /// Discovery, JWKS, UserInfo, revocation, PAR: repeated after transport failures and
    /// 408/429/500/502/503/504 (R5).
    case read
    /// The refresh-token grant: repeated only when provably not processed (R6).
    case refresh
    /// The authorization-code exchange: never repeated (R4).
    case codeExchange
    /// A request the application sends through the authenticated client: every status is its
    /// answer, never repeated on a status (R7).
    case application
    /// A candidate location asked once (A16: one of an issuer's metadata locations): never
    /// repeated, and every status is its answer; the caller passes to the next location, or
    /// repeats its whole search under the budget.
    case probe

    /// Whether the request must go over a fresh connection so libcurl cannot silently re-send it
    /// (true for the code exchange and the refresh).
    public var forbidsConnectionReuse: Bool {
        self == .codeExchange || self == .refresh
    }
}
