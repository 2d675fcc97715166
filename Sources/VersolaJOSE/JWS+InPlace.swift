import Glibc
import VersolaCrypto

extension JWS {
    /// A compact JWS read in place: its checked protected header and where its parts are in
    /// the token's text. ``JWS/init(compact:understoodCriticalParameters:)`` starts from it;
    /// validation that only needs the parts once reads them with ``withParts(of:_:_:)``
    /// instead, which copies nothing.
    package struct Layout: Sendable {
        /// The protected header.
        package let header: JSONObject
        /// The header's algorithm.
        package let algorithm: SignatureAlgorithm
        /// The offsets of the two dots.
        let dots: (first: Int, second: Int)
        /// Whether the header is a ``CheckedHeader`` reused, not checked again.
        package let reusedHeader: Bool

        /// The header's `kid`, when it is a string.
        package var keyID: String? { header["kid"]?.string }
        /// The payload's base64url text.
        var payloadRange: Range<Int> { (dots.first + 1)..<dots.second }
        /// The signature's base64url text in a token of `bytes`.
        func signatureRange(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> { (dots.second + 1)..<bytes.count }
        /// `header.payload`, as the signature covers it.
        var signingInputRange: Range<Int> { 0..<dots.second }

        /// The header as checked, to reuse for the next token of `bytes`'s issuer.
        package func checkedHeader(in bytes: UnsafeBufferPointer<UInt8>) -> CheckedHeader {
            CheckedHeader(text: Array(bytes[0..<dots.first]), header: header, algorithm: algorithm)
        }
    }

    /// A protected header already checked, kept with its base64url text: the tokens of one
    /// provider's key carry the same header, so a validator checks it once.
    package struct CheckedHeader: Sendable {
        /// The header's base64url text.
        package let text: [UInt8]
        /// The header and its algorithm, as ``layout(of:understoodCriticalParameters:reusing:)`` found them.
        package let header: JSONObject
        package let algorithm: SignatureAlgorithm
    }

    /// Checks the structure and protected header of a compact JWS, as
    /// ``init(compact:understoodCriticalParameters:)`` does before it decodes the rest.
    /// - Parameter reusing: a header checked before with the same `understoodCriticalParameters`;
    ///   a token whose header text is the same byte for byte gets its result, unchecked again.
    /// - Throws: `JWSError` for a malformed token or header.
    package static func layout(
        of bytes: UnsafeBufferPointer<UInt8>, understoodCriticalParameters: Set<String> = [],
        reusing checked: CheckedHeader? = nil
    ) throws(JWSError) -> Layout {
        guard let firstDot = indexOfDot(in: bytes, from: 0),
            let secondDot = indexOfDot(in: bytes, from: firstDot + 1),
            indexOfDot(in: bytes, from: secondDot + 1) == nil
        else {
            throw .wrongNumberOfParts(bytes.reduce(1) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) })
        }
        if let checked, firstDot > 0, checked.text.count == firstDot, let start = bytes.baseAddress,
            checked.text.withUnsafeBytes({ memcmp($0.baseAddress!, start, firstDot) == 0 })
        {
            return Layout(header: checked.header, algorithm: checked.algorithm, dots: (firstDot, secondDot), reusedHeader: true)
        }
        let headerValue = try parseHeader(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[0..<firstDot])))
        guard case .object(let header) = headerValue else { throw .headerNotAnObject }

        guard let algorithmValue = header["alg"] else { throw .missingAlgorithm }
        guard let algorithmName = algorithmValue.string else { throw .invalidHeaderParameter("alg") }
        if algorithmName == "none" { throw .algorithmNone }
        guard let algorithm = SignatureAlgorithm(rawValue: algorithmName) else {
            throw .unsupportedAlgorithm(algorithmName)
        }
        for name in stringHeaderParameters {
            if let value = header[name], value.string == nil { throw .invalidHeaderParameter(name) }
        }
        try checkCritical(header, understood: understoodCriticalParameters)
        return Layout(header: header, algorithm: algorithm, dots: (firstDot, secondDot), reusedHeader: false)
    }

    /// The decoded payload and signature and the signing input of the token `bytes` (laid out
    /// as `layout` says), in scratch space that lives only while `body` runs.
    /// - Throws: `JWSError.invalidBase64URL` for the payload, then the signature, as
    ///   ``init(compact:understoodCriticalParameters:)`` does.
    package static func withParts(
        of bytes: UnsafeBufferPointer<UInt8>, _ layout: Layout,
        _ body: (_ payload: UnsafeBufferPointer<UInt8>, _ signature: UnsafeBufferPointer<UInt8>,
            _ signingInput: UnsafeBufferPointer<UInt8>) -> Void
    ) throws(JWSError) {
        let payloadText = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[layout.payloadRange]))
        let signatureText = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[layout.signatureRange(in: bytes)]))
        let payloadCount: Int
        let signatureCount: Int
        do { payloadCount = try Base64URL.decodedLength(payloadText) } catch { throw .invalidBase64URL(.payload, error) }
        do { signatureCount = try Base64URL.decodedLength(signatureText) } catch {
            // The payload's own errors come first, as when it is decoded on its own.
            try checkDecodes(payloadText, count: payloadCount)
            throw .invalidBase64URL(.signature, error)
        }
        let outcome = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(payloadCount + signatureCount, 1)) {
            scratch -> JWSError? in
            let payload = UnsafeMutableBufferPointer(rebasing: scratch[0..<payloadCount])
            let signature = UnsafeMutableBufferPointer(rebasing: scratch[payloadCount..<(payloadCount + signatureCount)])
            do throws(Base64URLError) { _ = try Base64URL.decode(payloadText, into: payload) } catch {
                return .invalidBase64URL(.payload, error)
            }
            do throws(Base64URLError) { _ = try Base64URL.decode(signatureText, into: signature) } catch {
                return .invalidBase64URL(.signature, error)
            }
            let signingInput = UnsafeBufferPointer(rebasing: bytes[layout.signingInputRange])
            body(UnsafeBufferPointer(payload), UnsafeBufferPointer(signature), signingInput)
            return nil
        }
        if let outcome { throw outcome }
    }

    /// The header's JSON, decoded into scratch space.
    private static func parseHeader(_ text: UnsafeRawBufferPointer) throws(JWSError) -> JSONValue {
        let count: Int
        do { count = try Base64URL.decodedLength(text) } catch { throw .invalidBase64URL(.header, error) }
        let parsed = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(count, 1)) { scratch -> Result<JSONValue, JWSError> in
            let written: Int
            do throws(Base64URLError) { written = try Base64URL.decode(text, into: scratch) } catch {
                return .failure(.invalidBase64URL(.header, error))
            }
            do throws(JSONError) {
                return .success(try JSONParser.parse(UnsafeBufferPointer(rebasing: scratch[0..<written])))
            } catch {
                return .failure(.invalidJSON(.header, error))
            }
        }
        return try parsed.get()
    }

    private static func checkDecodes(_ text: UnsafeRawBufferPointer, count: Int) throws(JWSError) {
        do {
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(count, 1)) { scratch throws(Base64URLError) in
                _ = try Base64URL.decode(text, into: scratch)
            }
        } catch { throw .invalidBase64URL(.payload, error) }
    }
}
