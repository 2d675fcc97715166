/// What ``JWTClaims/validate(_:now:)`` checks: the exact issuer, an audience that must be
/// listed, and the time claims with a bounded clock tolerance.
///
/// ```swift
/// let requirements = JWTClaimRequirements(issuer: "https://id.example", audience: "my-client")
/// try claims.validate(requirements, now: clock())
/// ```
public struct JWTClaimRequirements: Sendable, Hashable {
    /// The clock tolerance used unless another is given: 60 seconds.
    public static let defaultClockTolerance: Duration = .seconds(60)
    /// The largest clock tolerance honoured: 5 minutes. Larger values are reduced to it.
    public static let maximumClockTolerance: Duration = .seconds(300)

    /// The `iss` the token must carry, compared exactly.
    public var issuer: String
    /// The value `aud` must equal (string form) or contain (array form); for ID tokens the client ID.
    public var audience: String
    /// Whether `exp` must be present (true for ID tokens).
    public var requiresExpiration: Bool
    /// Whether `iat` must be present (true for ID tokens).
    public var requiresIssuedAt: Bool
    private var tolerance: Duration

    /// How far the local clock may disagree with the issuer's, between zero and
    /// ``maximumClockTolerance``; values outside are clamped into that range.
    public var clockTolerance: Duration {
        get { tolerance }
        set { tolerance = min(max(newValue, .zero), JWTClaimRequirements.maximumClockTolerance) }
    }

    /// Creates requirements.
    /// - Parameters:
    ///   - issuer: the exact expected `iss`.
    ///   - audience: the audience that must be listed in `aud`.
    ///   - clockTolerance: clamped to 0…5 minutes; default 60 s.
    ///   - requiresExpiration: whether a missing `exp` is an error (default true).
    ///   - requiresIssuedAt: whether a missing `iat` is an error (default true).
    public init(
        issuer: String, audience: String, clockTolerance: Duration = defaultClockTolerance,
        requiresExpiration: Bool = true, requiresIssuedAt: Bool = true
    ) {
        self.issuer = issuer
        self.audience = audience
        self.requiresExpiration = requiresExpiration
        self.requiresIssuedAt = requiresIssuedAt
        tolerance = .zero
        self.clockTolerance = clockTolerance
    }

    /// The tolerance in seconds.
    var toleranceSeconds: Double {
        let components = tolerance.components
        return Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
