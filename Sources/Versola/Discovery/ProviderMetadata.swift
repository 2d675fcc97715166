import VersolaHTTP
import Foundation
import VersolaCrypto
import VersolaJOSE

/// A provider's metadata (OpenID Connect Discovery 1.0 §3, RFC 8414 §2), checked against the
/// configured issuer (A1, A16), or made from the configuration's endpoints for a server that
/// publishes none.
///
/// Parsing requires `issuer`, `authorization_endpoint` and `token_endpoint`, and `jwks_uri` in an
/// OpenID Connect discovery document (RFC 8414 makes it optional); reads the optional members
/// Versola uses; and insists that every endpoint is `https` (plain `http` only on a loopback
/// host). Unknown members are kept in ``document``. Endpoints the configuration overrides (A18)
/// replace the document's.
///
/// ```swift
/// let metadata = try ProviderMetadata(parsing: response.body, configuredIssuer: configuration.issuer)
/// try metadata.checkSupports(configuration)
/// ```
public struct ProviderMetadata: Sendable, Hashable {
    /// Where metadata came from (A16).
    public enum Source: String, Sendable, Hashable {
        /// An OpenID Connect discovery document (`openid-configuration`).
        case openIDConnect
        /// RFC 8414 authorization server metadata (`oauth-authorization-server`).
        case oauthAuthorizationServer
        /// No document: the configuration's endpoints alone.
        case configuration
    }

    /// Where this metadata came from.
    public let source: Source
    /// The issuer identifier, equal to the configured one.
    public let issuer: String
    /// Where the browser is sent to authorize.
    public private(set) var authorizationEndpoint: URL
    /// Where codes and refresh tokens are exchanged.
    public private(set) var tokenEndpoint: URL
    /// Where the signing keys are published; always present in an OpenID Connect document, and
    /// optional for a plain OAuth 2.0 server, which then issues no ID token Versola could check.
    public private(set) var jwksURI: URL?
    /// The UserInfo endpoint, when advertised.
    public private(set) var userInfoEndpoint: URL?
    /// The RFC 7009 revocation endpoint, when advertised.
    public private(set) var revocationEndpoint: URL?
    /// The RP-initiated logout endpoint, when advertised.
    public private(set) var endSessionEndpoint: URL?
    /// The RFC 9126 pushed authorization request endpoint, when advertised.
    public private(set) var pushedAuthorizationRequestEndpoint: URL?
    /// The RFC 8628 device authorization endpoint, when advertised (`device_authorization_endpoint`):
    /// where a device flow login (A14) asks for its user code.
    public private(set) var deviceAuthorizationEndpoint: URL?
    /// Whether the provider accepts only pushed authorization requests (RFC 9126 §5). Default false.
    public let requiresPushedAuthorizationRequests: Bool
    /// The response types advertised (`response_types_supported`), when the member is present.
    public let responseTypesSupported: [String]?
    /// The scopes advertised (`scopes_supported`), when the member is present.
    public let scopesSupported: [String]?
    /// The PKCE methods advertised, when the member is present (`S256`, `plain`, …).
    public let codeChallengeMethodsSupported: [String]?
    /// The client authentication methods of the token endpoint, when the member is present
    /// (`client_secret_basic`, `client_secret_post`, `none`, …; A17).
    public let tokenEndpointAuthMethodsSupported: [String]?
    /// The DPoP proof algorithms advertised (RFC 9449 §5.1), when the member is present;
    /// names this library does not know are dropped.
    public let dpopSigningAlgorithmsSupported: Set<SignatureAlgorithm>?
    /// Whether the authorization response carries `iss` (RFC 9207). Default false.
    public let authorizationResponseIssParameterSupported: Bool
    /// The ID token signature algorithms advertised, when the member is present; names this
    /// library never verifies (`none`, `HS256`, …) are dropped.
    public let idTokenSigningAlgorithmsSupported: Set<SignatureAlgorithm>?
    /// The whole document, for members Versola does not read.
    public let document: JSONObject

    /// Parses and checks a discovery document.
    /// - Parameters:
    ///   - body: the document's bytes (UTF-8 JSON).
    ///   - configuredIssuer: the issuer the configuration names; the document's `issuer` must
    ///     equal it exactly (A1).
    ///   - source: what kind of document it is: `jwks_uri` is required only in an OpenID
    ///     Connect discovery document.
    /// - Throws: `.configuration(.discoveryIssuerMismatch)` when the issuers differ (even by a
    ///   trailing slash or letter case); `.configuration(.providerUnsupported)` when the document
    ///   is malformed, lacks a required member, or names an endpoint that is not `https` (or
    ///   `http` on loopback).
    public init(
        parsing body: some Collection<UInt8>, configuredIssuer: String, source: Source = .openIDConnect
    ) throws(VersolaError) {
        guard let json = try? JSONValue(parsing: body), case .object(let document) = json else {
            throw Self.unsupported("is not a JSON object")
        }
        try self.init(document: document, configuredIssuer: configuredIssuer, source: source)
    }

    /// Checks an already parsed discovery document.
    /// - Throws: as ``init(parsing:configuredIssuer:source:)``.
    public init(document: JSONObject, configuredIssuer: String, source: Source = .openIDConnect) throws(VersolaError) {
        let reader = Reader(document: document)
        let issuer = try reader.requiredString("issuer")
        guard issuer == configuredIssuer else {
            throw .configuration(.discoveryIssuerMismatch(expected: configuredIssuer, actual: issuer))
        }
        self.source = source
        self.issuer = issuer
        authorizationEndpoint = try reader.requiredEndpoint("authorization_endpoint")
        tokenEndpoint = try reader.requiredEndpoint("token_endpoint")
        jwksURI =
            source == .openIDConnect ? try reader.requiredEndpoint("jwks_uri") : try reader.optionalEndpoint("jwks_uri")
        userInfoEndpoint = try reader.optionalEndpoint("userinfo_endpoint")
        revocationEndpoint = try reader.optionalEndpoint("revocation_endpoint")
        endSessionEndpoint = try reader.optionalEndpoint("end_session_endpoint")
        pushedAuthorizationRequestEndpoint = try reader.optionalEndpoint("pushed_authorization_request_endpoint")
        deviceAuthorizationEndpoint = try reader.optionalEndpoint("device_authorization_endpoint")
        requiresPushedAuthorizationRequests = try reader.optionalBool("require_pushed_authorization_requests") ?? false
        responseTypesSupported = try reader.optionalStrings("response_types_supported")
        scopesSupported = try reader.optionalStrings("scopes_supported")
        codeChallengeMethodsSupported = try reader.optionalStrings("code_challenge_methods_supported")
        tokenEndpointAuthMethodsSupported = try reader.optionalStrings("token_endpoint_auth_methods_supported")
        dpopSigningAlgorithmsSupported = try reader.optionalStrings("dpop_signing_alg_values_supported")
            .map { Set($0.compactMap(SignatureAlgorithm.init(rawValue:))) }
        authorizationResponseIssParameterSupported =
            try reader.optionalBool("authorization_response_iss_parameter_supported") ?? false
        idTokenSigningAlgorithmsSupported = try reader.optionalStrings("id_token_signing_alg_values_supported")
            .map { Set($0.compactMap(SignatureAlgorithm.init(rawValue:))) }
        self.document = document
    }

    /// Metadata for a server that publishes none (A16): the configuration's endpoints alone.
    /// Nothing is advertised, so no PAR, no DPoP and no RFC 9207 `iss` are expected.
    /// - Throws: `.configuration(.invalidConfiguration)` when the authorization or token
    ///   endpoint is not given.
    public init(issuer: String, endpoints: EndpointOverrides) throws(VersolaError) {
        guard let authorization = endpoints[.authorization], let token = endpoints[.token] else {
            throw .configuration(
                .invalidConfiguration(
                    "the provider publishes no metadata, so its authorization and token endpoints must be given "
                        + "(--endpoint authorization=URL --endpoint token=URL)"))
        }
        source = .configuration
        self.issuer = issuer
        authorizationEndpoint = authorization
        tokenEndpoint = token
        requiresPushedAuthorizationRequests = false
        responseTypesSupported = nil
        scopesSupported = nil
        codeChallengeMethodsSupported = nil
        tokenEndpointAuthMethodsSupported = nil
        dpopSigningAlgorithmsSupported = nil
        authorizationResponseIssParameterSupported = false
        idTokenSigningAlgorithmsSupported = nil
        pushedAuthorizationRequestEndpoint = nil
        document = JSONObject()
        applyOverrides(endpoints)
    }

    /// This metadata with the configuration's endpoint overrides in place of its own (A18).
    public func overridden(by endpoints: EndpointOverrides) -> ProviderMetadata {
        var copy = self
        copy.applyOverrides(endpoints)
        return copy
    }

    private mutating func applyOverrides(_ endpoints: EndpointOverrides) {
        for (name, url) in endpoints.all {
            switch name {
            case .authorization: authorizationEndpoint = url
            case .token: tokenEndpoint = url
            case .device: deviceAuthorizationEndpoint = url
            case .userInfo: userInfoEndpoint = url
            case .revocation: revocationEndpoint = url
            case .endSession: endSessionEndpoint = url
            case .jwks: jwksURI = url
            }
        }
    }

    /// Whether this provider speaks OpenID Connect: its metadata is an OpenID Connect discovery
    /// document, or lists `openid` among its scopes (A16).
    public var speaksOpenIDConnect: Bool {
        source == .openIDConnect || scopesSupported?.contains("openid") == true
    }

    /// The ID token algorithms to accept: the configuration's allow-list, narrowed to what the
    /// provider advertises when it advertises anything (A7). Never `none`, never HMAC: neither
    /// exists in `SignatureAlgorithm`.
    public func idTokenAlgorithms(for configuration: ClientConfiguration) -> Set<SignatureAlgorithm> {
        guard let advertised = idTokenSigningAlgorithmsSupported else { return configuration.idTokenAlgorithms }
        return configuration.idTokenAlgorithms.intersection(advertised)
    }

    /// Whether pushed authorization requests are to be used with this configuration (A3).
    public func usesPushedAuthorization(for configuration: ClientConfiguration) -> Bool {
        switch configuration.pushedAuthorization {
        case .never: false
        case .required: true
        case .whenAdvertised: pushedAuthorizationRequestEndpoint != nil
        }
    }

    /// Whether a login binds a DPoP key (A11): the mode is `.auto` or `.require` and the
    /// provider advertises ES256 proofs. (In `.require` mode without the advertisement,
    /// ``checkSupports(_:)`` refuses the login unless Bearer fallback is allowed; the login then
    /// goes without DPoP.)
    public func bindsDPoP(for configuration: ClientConfiguration) -> Bool {
        configuration.dpop != .off && dpopSigningAlgorithmsSupported?.contains(.es256) == true
    }

    /// Checks that the provider offers what the configuration needs, before any browser opens.
    /// - Throws: `.configuration(.providerUnsupported)` when `response_types_supported` is
    ///   present without `code`, or `code_challenge_methods_supported` is present without
    ///   `S256` (A2, A13); when PAR is required by the configuration but not offered, or
    ///   required by the provider but configured `.never` or offered without an endpoint (A3);
    ///   and for what every login needs (``checkSupportsAnyLogin(_:)``: DPoP, D5 and A11; the
    ///   ID token algorithms, A7).
    public func checkSupports(_ configuration: ClientConfiguration) throws(VersolaError) {
        if let types = responseTypesSupported, !types.contains("code") {
            throw Self.unsupported(
                "the provider does not offer the authorization code flow (response_types_supported: "
                    + "\(Self.listed(types))); versola needs it", whole: false)
        }
        if let methods = codeChallengeMethodsSupported, !methods.contains("S256") {
            throw Self.unsupported(
                "PKCE S256 is not among code_challenge_methods_supported (\(Self.listed(methods))); "
                    + "the provider must offer it", whole: false)
        }
        try checkSupportsAnyLogin(configuration)
        if configuration.pushedAuthorization == .required, pushedAuthorizationRequestEndpoint == nil {
            throw Self.unsupported(
                "pushed authorization is required by the configuration but no pushed_authorization_request_endpoint is advertised",
                whole: false)
        }
        if requiresPushedAuthorizationRequests {
            if configuration.pushedAuthorization == .never {
                throw Self.unsupported(
                    "the provider requires pushed authorization requests but the configuration says never", whole: false)
            }
            if pushedAuthorizationRequestEndpoint == nil {
                throw Self.unsupported(
                    "the provider requires pushed authorization requests but advertises no endpoint for them",
                    whole: false)
            }
        }
    }

    /// Checks that the provider offers the device authorization grant (RFC 8628, A14) and what
    /// every login needs, before any user code is asked for. The code flow's own requirements
    /// (`code` response type, PKCE, PAR) do not apply: the device flow uses none of them.
    /// - Throws: `.configuration(.providerUnsupported)` when no `device_authorization_endpoint`
    ///   is advertised, and as ``checkSupportsAnyLogin(_:)``.
    public func checkSupportsDeviceAuthorization(_ configuration: ClientConfiguration) throws(VersolaError) {
        guard deviceAuthorizationEndpoint != nil else {
            throw Self.unsupported(
                "the provider offers no sign-in on another device (no device_authorization_endpoint in its "
                    + "discovery document); sign in through the browser instead", whole: false)
        }
        try checkSupportsAnyLogin(configuration)
    }

    /// What any login needs, whatever the flow.
    /// - Throws: `.configuration(.providerUnsupported)` when the DPoP mode is `.require` and the
    ///   provider does not advertise ES256 proofs, unless Bearer fallback is allowed (D5, A11);
    ///   when no allowed ID token algorithm is advertised (A7).
    public func checkSupportsAnyLogin(_ configuration: ClientConfiguration) throws(VersolaError) {
        if configuration.dpop == .require, !configuration.allowsBearerFallback,
            dpopSigningAlgorithmsSupported?.contains(.es256) != true
        {
            let fix = "use --dpop auto or --dpop off (DPoP mode auto or off)"
            throw Self.unsupported(
                dpopSigningAlgorithmsSupported == nil
                    ? "DPoP is required but the provider does not advertise it (no dpop_signing_alg_values_supported); \(fix)"
                    : "DPoP is required but ES256 is not among dpop_signing_alg_values_supported; \(fix)", whole: false)
        }
        if idTokenAlgorithms(for: configuration).isEmpty {
            // The document's own list: the parsed one has already dropped what is never
            // accepted (`none`, HMAC), which is exactly what the person needs to see.
            let advertised = document["id_token_signing_alg_values_supported"]?.array?.compactMap(\.string) ?? []
            let accepted = configuration.idTokenAlgorithms.map(\.rawValue).sorted().joined(separator: ", ")
            throw Self.unsupported(
                "no ID token algorithm versola accepts is advertised: id_token_signing_alg_values_supported lists "
                    + "\(Self.listed(advertised)); versola accepts \(accepted) (never none, never HMAC)",
                whole: false)
        }
    }

    /// The provider's list as a message shows it (cleaned: it came from the network).
    private static func listed(_ values: [String]) -> String {
        values.isEmpty ? "empty" : ProviderText.clean(values.joined(separator: ", "), limit: 120)
    }

    private static func unsupported(_ reason: String, whole: Bool = true) -> VersolaError {
        .configuration(.providerUnsupported(whole ? "discovery document \(reason)" : reason))
    }

    /// Reads members with the exact error for each way they can be wrong.
    private struct Reader {
        let document: JSONObject

        func requiredString(_ name: String) throws(VersolaError) -> String {
            guard let value = document[name] else { throw unsupported("lacks the required \(name)") }
            guard let text = value.string, !text.isEmpty else { throw unsupported("has a \(name) that is not a string") }
            return text
        }

        func requiredEndpoint(_ name: String) throws(VersolaError) -> URL {
            try endpoint(name, try requiredString(name))
        }

        func optionalEndpoint(_ name: String) throws(VersolaError) -> URL? {
            guard let value = document[name], !value.isNull else { return nil }
            guard let text = value.string, !text.isEmpty else { throw unsupported("has a \(name) that is not a string") }
            return try endpoint(name, text)
        }

        func optionalBool(_ name: String) throws(VersolaError) -> Bool? {
            guard let value = document[name], !value.isNull else { return nil }
            guard let flag = value.bool else { throw unsupported("has a \(name) that is not a Boolean") }
            return flag
        }

        func optionalStrings(_ name: String) throws(VersolaError) -> [String]? {
            guard let value = document[name], !value.isNull else { return nil }
            guard let elements = value.array else { throw unsupported("has a \(name) that is not an array") }
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for element in elements {
                guard let text = element.string else { throw unsupported("has a \(name) with a non-string element") }
                strings.append(text)
            }
            return strings
        }

        /// An absolute `https` URL (or `http` on loopback) with a host and no fragment.
        private func endpoint(_ name: String, _ text: String) throws(VersolaError) -> URL {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let origin = Origin(url: url),
                url.fragment == nil
            else {
                throw unsupported("has a \(name) that is not an absolute URL without fragment")
            }
            guard scheme == "https" || (scheme == "http" && origin.isLoopback) else {
                throw unsupported("has a \(name) that is not https (plain http is accepted only on loopback)")
            }
            return url
        }

        private func unsupported(_ reason: String) -> VersolaError {
            ProviderMetadata.unsupported(reason)
        }
    }
}
