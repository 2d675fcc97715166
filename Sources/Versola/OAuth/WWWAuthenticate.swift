import VersolaHTTP
/// The challenges of `WWW-Authenticate` header fields (RFC 9110 §11.6.1): each an
/// auth-scheme with either a token68 or a list of auth-params (`name=token` or
/// `name="quoted string"`). One field may hold several challenges, and a response several fields.
///
/// Used for RFC 9449 §7.1 DPoP errors (`use_dpop_nonce`, `invalid_dpop_proof`) and RFC 9470
/// step-up challenges (`insufficient_user_authentication` with `acr_values`, `max_age`, A10).
/// Parsing never fails: what cannot be read is skipped.
///
/// ```swift
/// let header = WWWAuthenticate(#"DPoP algs="ES256", error="use_dpop_nonce", Bearer realm="api""#)
/// print(header.challenges.map(\.scheme))                   // ["DPoP", "Bearer"]
/// print(header.challenge(scheme: "dpop")?["error"] ?? "")  // use_dpop_nonce
/// ```
public struct WWWAuthenticate: Sendable, Hashable {
    /// One challenge.
    public struct Challenge: Sendable, Hashable {
        /// One auth-param; the name is lowercased (names are case-insensitive).
        public struct Parameter: Sendable, Hashable {
            /// The lowercased name.
            public var name: String
            /// The value, unquoted and unescaped.
            public var value: String

            /// Creates a parameter; the name is lowercased.
            public init(name: String, value: String) {
                self.name = name.lowercased()
                self.value = value
            }
        }

        /// The auth-scheme as written (`Bearer`, `DPoP`, …); compare it case-insensitively.
        public var scheme: String
        /// The token68 form of the credentials, when the challenge uses it instead of parameters.
        public var token68: String?
        /// The auth-params in order.
        public var parameters: [Parameter]

        /// Creates a challenge.
        public init(scheme: String, token68: String? = nil, parameters: [Parameter] = []) {
            self.scheme = scheme
            self.token68 = token68
            self.parameters = parameters
        }

        /// The value of the first parameter called `name` (case-insensitive), or nil.
        public subscript(name: String) -> String? {
            let wanted = name.lowercased()
            return parameters.first { $0.name == wanted }?.value
        }

        /// The `error` parameter (RFC 6750 §3, RFC 9449 §7.1), when present.
        public var error: String? { self["error"] }

        /// Whether the scheme is `scheme`, ignoring letter case.
        public func hasScheme(_ scheme: String) -> Bool {
            self.scheme.lowercased() == scheme.lowercased()
        }
    }

    /// Every challenge, in order.
    public var challenges: [Challenge]

    /// Creates the value from challenges.
    public init(challenges: [Challenge]) {
        self.challenges = challenges
    }

    /// Parses one field value.
    public init(_ fieldValue: String) {
        var parser = Parser(Array(fieldValue.utf8))
        challenges = parser.challenges()
    }

    /// Parses every `WWW-Authenticate` field of `headers`, in order.
    public init(headers: HTTPHeaders) {
        challenges = headers.values("WWW-Authenticate").flatMap { WWWAuthenticate($0).challenges }
    }

    /// The first challenge with this scheme (case-insensitive), or nil.
    public func challenge(scheme: String) -> Challenge? {
        challenges.first { $0.hasScheme(scheme) }
    }

    /// A step-up demand (RFC 9470, A10): the first challenge whose `error` is
    /// `insufficient_user_authentication`, with its `acr_values` (space-separated) and
    /// `max_age`; nil when there is none, and nil when that challenge is malformed (see
    /// ``validatedStepUpChallenge()``): a malformed challenge is never acted on.
    public var stepUpChallenge: StepUpChallenge? {
        try? validatedStepUpChallenge()
    }

    /// The step-up demand as ``stepUpChallenge``, refusing a malformed one instead of
    /// ignoring it.
    /// - Returns: nil when no challenge demands a step-up.
    /// - Throws: `.configuration(.providerUnsupported)` when `acr_values` holds a value that
    ///   is not visible ASCII free of quotes and shell metacharacters
    ///   (`StepUpChallenge.isAcceptableACRValue(_:)`, L5), or `max_age` is not a
    ///   non-negative integer. The offending text is not repeated.
    public func validatedStepUpChallenge() throws(VersolaError) -> StepUpChallenge? {
        guard let challenge = challenges.first(where: { $0.error == "insufficient_user_authentication" }) else {
            return nil
        }
        let acrValues = (challenge["acr_values"] ?? "").split(separator: " ")
        guard acrValues.allSatisfy(StepUpChallenge.isAcceptableACRValue) else {
            throw .configuration(
                .providerUnsupported(
                    "the resource's step-up challenge is malformed: acr_values must be visible ASCII without quotes or shell metacharacters"
                ))
        }
        var maxAge: Int?
        if let text = challenge["max_age"] {
            guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(text)
            else {
                throw .configuration(
                    .providerUnsupported("the resource's step-up challenge is malformed: max_age is not a number of seconds"))
            }
            maxAge = value
        }
        return StepUpChallenge(acrValues: acrValues.map(String.init), maxAge: maxAge)
    }

    /// The scopes a challenge names that `held` lacks (A20): from the first `Bearer` or
    /// `DPoP` challenge whose `error` is `insufficient_scope` or that carries `scope`, each
    /// an RFC 6749 §3.3 scope-token (a value that is not one is ignored, L5); empty when it
    /// names nothing beyond `held`.
    public func scopesLacking(from held: Set<String>) -> [String] {
        let challenge = challenges.first { candidate in
            (candidate.hasScheme("Bearer") || candidate.hasScheme("DPoP"))
                && (candidate.error == "insufficient_scope" || candidate["scope"] != nil)
        }
        guard let named = challenge?["scope"] else { return [] }
        var lacking: [String] = []
        for scope in named.split(separator: " ").map(String.init)
        where Self.isScopeToken(scope) && !held.contains(scope) && !lacking.contains(scope) {
            lacking.append(scope)
        }
        return lacking
    }

    /// RFC 6749 §3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`.
    private static func isScopeToken(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// A byte-level reader of the grammar:
    /// `challenge = scheme [ 1*SP ( token68 / #auth-param ) ]`,
    /// `auth-param = token BWS "=" BWS ( token / quoted-string )`.
    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func challenges() -> [Challenge] {
            var result: [Challenge] = []
            while true {
                skip { $0 == UInt8(ascii: ",") || Self.isWhitespace($0) }
                guard position < bytes.count else { return result }
                let scheme = readToken()
                guard !scheme.isEmpty else {
                    // Not a challenge: skip to the next list element.
                    position += 1
                    skip { $0 != UInt8(ascii: ",") }
                    continue
                }
                var challenge = Challenge(scheme: scheme)
                readCredentials(into: &challenge)
                result.append(challenge)
            }
        }

        /// Reads a token68 or auth-params after the scheme, stopping before the next
        /// challenge's scheme.
        private mutating func readCredentials(into challenge: inout Challenge) {
            let afterScheme = position
            skip(Self.isWhitespace)
            guard position > afterScheme else { return }
            if let token68 = readToken68() {
                challenge.token68 = token68
                return
            }
            var first = true
            while true {
                let elementStart = position
                skip { $0 == UInt8(ascii: ",") || Self.isWhitespace($0) }
                guard position < bytes.count else { return }
                if !first, position == elementStart { return }
                first = false
                let nameStart = position
                let name = readToken()
                guard !name.isEmpty else {
                    position += 1
                    skip { $0 != UInt8(ascii: ",") }
                    continue
                }
                skip(Self.isWhitespace)
                guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                    // A token not followed by "=" starts the next challenge.
                    position = nameStart
                    return
                }
                position += 1
                skip(Self.isWhitespace)
                let value = position < bytes.count && bytes[position] == UInt8(ascii: "\"")
                    ? readQuotedString() : readToken()
                challenge.parameters.append(Challenge.Parameter(name: name, value: value))
            }
        }

        /// A token68 (`1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`) that
        /// ends the element; otherwise nothing is consumed.
        private mutating func readToken68() -> String? {
            let start = position
            skip(Self.isToken68)
            guard position > start else { return nil }
            skip { $0 == UInt8(ascii: "=") }
            let end = position
            skip(Self.isWhitespace)
            if position == bytes.count || bytes[position] == UInt8(ascii: ",") {
                return String(decoding: bytes[start..<end], as: UTF8.self)
            }
            position = start
            return nil
        }

        private mutating func readToken() -> String {
            let start = position
            skip(Self.isTokenCharacter)
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        /// A quoted-string starting at `"`; `\` escapes the next byte. An unterminated one
        /// runs to the end of the field.
        private mutating func readQuotedString() -> String {
            position += 1
            var value: [UInt8] = []
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "\"") { break }
                if byte == UInt8(ascii: "\\"), position < bytes.count {
                    value.append(bytes[position])
                    position += 1
                } else {
                    value.append(byte)
                }
            }
            return String(decoding: value, as: UTF8.self)
        }

        private mutating func skip(_ predicate: (UInt8) -> Bool) {
            while position < bytes.count, predicate(bytes[position]) { position += 1 }
        }

        private static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
        }

        /// RFC 9110 `tchar`.
        private static func isTokenCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                symbols.contains(byte)
            }
        }

        private static let symbols: [UInt8] = Array("!#$%&'*+-.^_`|~".utf8)

        private static func isToken68(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                true
            default:
                false
            }
        }
    }
}
