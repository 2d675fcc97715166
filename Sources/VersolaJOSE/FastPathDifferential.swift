/// The comparison of the in-place readings with the strict ones they stand in for: the
/// skimmed JSON object (``JSONValue/skimObject(_:)``) against ``JSONValue/init(parsing:)-(Collection<UInt8>)``,
/// and a compact JWS read in place (``JWS/layout(of:understoodCriticalParameters:)`` then
/// ``JWS/withParts(of:_:_:)``) against ``JWS/init(compact:understoodCriticalParameters:)``.
///
/// Any difference is a bug in one of them. The JOSE unit tests run this over every input of the
/// JOSE fuzz corpus, and the `fuzz-jose-differential` target over whatever libFuzzer makes.
package enum FastPathDifferential {
    /// What the two readings of `input` disagree on first, or nil when they agree.
    package static func disagreement(_ input: [UInt8]) -> String? {
        if let json = jsonDisagreement(input) { return "JSON: " + json }
        if let jws = jwsDisagreement(input) { return "JWS: " + jws }
        return nil
    }

    /// Skimming and strict parsing accept the same texts with the same errors, and each member
    /// skimmed parses to the strict parser's member of the same name and position.
    package static func jsonDisagreement(_ input: [UInt8]) -> String? {
        input.withUnsafeBufferPointer { bytes in
            let strict = Result { () throws(JSONError) in try JSONParser.parse(bytes) }
            let skimmed = Result { () throws(JSONError) in try JSONParser.skim(bytes) }
            switch (strict, skimmed) {
            case (.failure(let expected), .failure(let found)):
                return expected == found ? nil : "strict error \(expected), skimmed error \(found)"
            case (.failure(let expected), .success):
                return "strict error \(expected), skimming accepted"
            case (.success, .failure(let found)):
                return "strict accepted, skimmed error \(found)"
            case (.success(let value), .success(let members)):
                return memberDisagreement(value, members, bytes)
            }
        }
    }

    private static func memberDisagreement(
        _ value: JSONValue, _ members: [JSONMemberSpan]?, _ bytes: UnsafeBufferPointer<UInt8>
    ) -> String? {
        guard case .object(let object) = value else {
            return members == nil ? nil : "not an object, yet skimming found members"
        }
        guard let members, members.count == object.count else { return "member counts differ" }
        for (index, (member, expected)) in zip(members, object.members).enumerated() {
            let sameName = member.withNameBytes(in: bytes) { $0.elementsEqual(expected.name.utf8) }
            guard sameName else { return "member \(index): names differ" }
            let skimmedValue = try? JSONValue(parsing: UnsafeBufferPointer(rebasing: bytes[member.valueRange]))
            guard skimmedValue == expected.value else { return "member \(index): values differ" }
        }
        return nil
    }

    /// A compact JWS read in place and one parsed into a ``JWS`` agree on acceptance, errors,
    /// header, algorithm and every part's bytes; its payload is compared as JSON too.
    package static func jwsDisagreement(_ input: [UInt8]) -> String? {
        let understood: Set<String> = ["exp"]
        let strict = Result { () throws(JWSError) in try JWS(compact: input, understoodCriticalParameters: understood) }
        let inPlace = input.withUnsafeBufferPointer { bytes in
            Result { () throws(JWSError) -> (JWS.Layout, [UInt8], [UInt8], [UInt8]) in
                let checked = try JWS.layout(of: bytes, understoodCriticalParameters: understood)
                // The header as a validator keeps it, reused: the same result as checking it again.
                let layout = try JWS.layout(
                    of: bytes, understoodCriticalParameters: understood, reusing: checked.checkedHeader(in: bytes))
                guard layout.header == checked.header, layout.algorithm == checked.algorithm else {
                    throw .invalidHeaderParameter("a reused header differs")
                }
                var parts: ([UInt8], [UInt8], [UInt8]) = ([], [], [])
                try JWS.withParts(of: bytes, layout) { payload, signature, signingInput in
                    parts = (Array(payload), Array(signature), Array(signingInput))
                }
                return (layout, parts.0, parts.1, parts.2)
            }
        }
        switch (strict, inPlace) {
        case (.failure(let expected), .failure(let found)):
            return expected == found ? nil : "strict error \(expected), in-place error \(found)"
        case (.failure(let expected), .success):
            return "strict error \(expected), read in place"
        case (.success, .failure(let found)):
            return "strict accepted, in-place error \(found)"
        case (.success(let jws), .success(let (layout, payload, signature, signingInput))):
            guard jws.header == layout.header, jws.algorithm == layout.algorithm, jws.keyID == layout.keyID else {
                return "headers differ"
            }
            guard jws.payload == payload, jws.signature == signature, jws.signingInput == signingInput else {
                return "parts differ"
            }
            return jsonDisagreement(payload).map { "payload: " + $0 }
        }
    }
}
