import Foundation
import VersolaCrypto
import VersolaJOSE

extension IDTokenValidator {
    /// The claim checks of ``IDTokenValidator`` on a token whose signature verified, read in
    /// place from its payload: a claim equal to what it is compared with (`iss`, `aud`, `azp`,
    /// `nonce`, `at_hash`) is compared as bytes and never copied; a value is only built to
    /// return it or to say what was wrong.
    struct ClaimCheck {
        /// The configured issuer and client ID (not the whole validator: copying its
        /// configuration retained every string of it, on every token).
        let issuer: String
        let clientID: String
        /// `[clientID]`, kept by the validator (no array is made for a token with one audience).
        let clientAudience: [String]
        /// The injected clock's time and the tolerance, in seconds.
        let now: Double
        let tolerance: Double
        let values: IDTokenClaimValues
        let algorithm: SignatureAlgorithm

        private typealias Claim = IDTokenClaimValues.Claim

        private func rejected(_ kind: IDTokenRejection.Kind, _ detail: String) -> VersolaError {
            IDTokenValidator.rejected(kind, detail)
        }

        /// Every check, in the order the rejections are reported; the claims when all pass.
        func run(nonce: String?, accessToken: String?, previous: IDTokenClaims?, rawToken: String) throws(VersolaError)
            -> IDTokenClaims
        {
            let issuer = try checkedIssuer()
            // sub: a non-empty string.
            guard let subjectValue = values[.subject] else { throw rejected(.claimMissing, "sub is missing") }
            guard let subject = subjectValue.string, !subject.isEmpty else { throw rejected(.claimMalformed, "sub is not a string") }
            let audiences = try checkedAudiences()
            let (expiration, issuedAt) = try checkedTimes()

            // nonce: equal to the request's when one was sent.
            if let nonce {
                guard let equal = values.isString(.nonce, equalTo: nonce) else {
                    throw rejected(.claimMissing, "nonce is missing; the request sent one")
                }
                guard equal else { throw rejected(.nonceMismatch, "nonce differs from the request's") }
            }
            if let accessToken { try checkAccessTokenHash(accessToken) }

            // After a refresh: the same iss, sub and aud (OIDC Core §12.2).
            if let previous {
                if issuer != previous.issuer { throw rejected(.subjectChanged, "iss differs from the previous ID token's") }
                if subject != previous.subject { throw rejected(.subjectChanged, "sub differs from the previous ID token's") }
                if Set(audiences) != Set(previous.audiences) {
                    throw rejected(.subjectChanged, "aud differs from the previous ID token's")
                }
            }
            return IDTokenClaims(
                issuer: issuer, subject: subject, audiences: audiences,
                expiration: Date(timeIntervalSince1970: expiration), issuedAt: Date(timeIntervalSince1970: issuedAt),
                rawToken: rawToken)
        }

        /// iss: exactly the configured issuer.
        private func checkedIssuer() throws(VersolaError) -> String {
            let expected = issuer
            if values.isString(.issuer, equalTo: expected) == true { return expected }
            guard let issuerValue = values[.issuer] else { throw rejected(.claimMissing, "iss is missing") }
            guard let issuer = issuerValue.string else { throw rejected(.claimMalformed, "iss is not a string") }
            throw rejected(.issuerMismatch, "iss \(issuer) is not \(expected)")
        }

        /// aud: contains the client ID; azp required with several audiences, the client ID when present.
        private func checkedAudiences() throws(VersolaError) -> [String] {
            let audiences =
                values.isString(.audience, equalTo: clientID) == true
                ? clientAudience : try IDTokenValidator.audiences(values[.audience])
            guard audiences.contains(clientID) else { throw rejected(.audienceMismatch, "aud does not contain \(clientID)") }
            switch values.isString(.authorizedParty, equalTo: clientID) {
            case true?:
                break
            case false?:
                guard let azp = values[.authorizedParty]?.string else { throw rejected(.claimMalformed, "azp is not a string") }
                throw rejected(.audienceMismatch, "azp \(azp) is not \(clientID)")
            case nil:
                if audiences.count > 1 {
                    throw rejected(.claimMissing, "azp is missing although aud lists \(audiences.count) audiences")
                }
            }
            return audiences
        }

        /// exp, iat (required) and nbf, with the configured tolerance, on the injected clock.
        private func checkedTimes() throws(VersolaError) -> (expiration: Double, issuedAt: Double) {
            guard let expiration = try IDTokenValidator.seconds("exp", values[.expiration]) else {
                throw rejected(.claimMissing, "exp is missing")
            }
            guard let issuedAt = try IDTokenValidator.seconds("iat", values[.issuedAt]) else {
                throw rejected(.claimMissing, "iat is missing")
            }
            if now >= expiration + tolerance {
                throw rejected(
                    .expired, "expired \(IDTokenValidator.wholeSeconds(now - expiration)) s ago (tolerance \(Int64(tolerance)) s)")
            }
            if issuedAt > now + tolerance {
                throw rejected(
                    .notYetValid,
                    "issued \(IDTokenValidator.wholeSeconds(issuedAt - now)) s in the future (iat; tolerance \(Int64(tolerance)) s)")
            }
            if let notBefore = try IDTokenValidator.seconds("nbf", values[.notBefore]), now < notBefore - tolerance {
                throw rejected(
                    .notYetValid,
                    "not valid for another \(IDTokenValidator.wholeSeconds(notBefore - now)) s (nbf; tolerance \(Int64(tolerance)) s)")
            }
            return (expiration, issuedAt)
        }

        /// at_hash: when present, the left half of the access token's hash.
        private func checkAccessTokenHash(_ accessToken: String) throws(VersolaError) {
            guard values.contains(.accessTokenHash) else { return }
            let equal = IDTokenValidator.withAccessTokenHash(accessToken, algorithm: algorithm) {
                values.isString(.accessTokenHash, equalTo: $0)
            }
            switch equal {
            case true?, nil:
                return
            case false?:
                guard values[.accessTokenHash]?.string != nil else { throw rejected(.claimMalformed, "at_hash is not a string") }
                throw rejected(.accessTokenHashMismatch, "at_hash does not match the access token")
            }
        }
    }
}
