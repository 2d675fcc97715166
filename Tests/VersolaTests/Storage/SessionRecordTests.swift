import Foundation
import Testing
import VersolaJOSE

@testable import Versola
import VersolaHTTP

@Suite struct SessionRecordTests {
    @Test func everyFieldRoundTrips() throws {
        for record in [StorageSamples.full, StorageSamples.minimal] {
            let decoded = try SessionRecord(serialized: record.serialized())
            #expect(decoded == record)
        }
        let decoded = try SessionRecord(serialized: StorageSamples.full.serialized())
        #expect(decoded.pendingAuthorization?.createdAt == StorageSamples.createdAt)
        #expect(decoded.pendingAuthorization?.codeVerifier == "verifier-SECRET-0123456789")
        #expect(decoded.refreshInFlight?.concerns(refreshToken: "refresh-SECRET-abc") == true)
        #expect(decoded.refreshInFlight?.concerns(refreshToken: "another") == false)
    }

    @Test func serializationIsDeterministic() {
        #expect(StorageSamples.full.serialized() == StorageSamples.full.serialized())
    }

    // P4, P13: no parsed claims ever, and no access token for a grant with a refresh token:
    // the `accessToken` member is written only for a grant that has nothing else.
    @Test("P4 P13: a renewable grant's record holds no access token and no claims")
    func noAccessTokenNorClaimsAreStored() throws {
        let fields = Mirror(reflecting: StorageSamples.full).children.compactMap(\.label)
        #expect(
            Set(fields)
                == [
                    "issuer", "clientID", "subject", "refreshToken", "idToken", "dpopPrivateKey", "pendingRequest",
                    "dpopNonces", "refreshInFlight", "accessToken",
                ])
        let json = try JSONValue(parsing: StorageSamples.full.serialized())
        let names = try #require(json.object?.names)
        #expect(
            names == [
                "version", "issuer", "clientID", "subject", "refreshToken", "idToken", "dpopPrivateKey",
                "pendingAuthorization", "pendingDeviceAuthorization", "dpopNonces", "refreshInFlight", "accessToken",
            ])
        #expect(json["accessToken"]?.isNull == true)
        for name in names { #expect(!name.lowercased().contains("claim")) }
        // The in-flight marker holds a digest, never the token.
        let text = String(decoding: StorageSamples.full.serialized(), as: UTF8.self)
        #expect(text.components(separatedBy: "refresh-SECRET-abc").count == 2)  // only the refreshToken member
    }

    @Test("P13 P5: the access token of a grant without a refresh token round-trips; its description shows no value")
    func accessTokenOnlyRecord() throws {
        let expiry = Date(timeIntervalSinceReferenceDate: 820_000_000.25)
        for token in [
            StoredAccessToken(value: "gho_SECRET-1", expiresAt: expiry, scope: "repo read:org"),
            StoredAccessToken(value: "gho_SECRET-2", expiresAt: nil),
        ] {
            let record = SessionRecord(issuer: "https://github.example", clientID: "cli", accessToken: token)
            #expect(record.holdsGrant)
            #expect(try SessionRecord(serialized: record.serialized()) == record)
            #expect(!"\(record) \(token)".contains("SECRET"))
            #expect("\(record)".contains("access token"))
        }
        // Records written before P13 have no such member: they read as holding none.
        let older = try mutated { $0["accessToken"] = nil }
        #expect(try SessionRecord(serialized: older).accessToken == nil)
        for broken: JSONValue in [["value": "", "expiresAt": .null, "scope": .null], ["value": "x", "expiresAt": "soon", "scope": .null],
            ["value": "x", "scope": .null], "token"]
        {
            #expect(throws: SessionRecordFormatError.self) {
                try SessionRecord.decode(try self.mutated { $0["accessToken"] = broken })
            }
        }
        #expect(!SessionRecord(issuer: "i", clientID: "c").holdsGrant)
    }

    @Test func descriptionShowsNoSecret() {
        let text = "\(StorageSamples.full) \(StorageSamples.full.refreshInFlight!)"
        for secret in ["refresh-SECRET", "sig-SECRET", "verifier-SECRET", "nonce-1", "user-42"] {
            #expect(!text.contains(secret))
        }
        #expect(text.contains("refresh token") && text.contains("DPoP key"))
    }

    private func mutated(_ change: (inout JSONObject) -> Void) throws -> [UInt8] {
        var object = try #require(try JSONValue(parsing: StorageSamples.full.serialized()).object)
        change(&object)
        return JSONValue.object(object).serializedBytes()
    }

    @Test func strictDecoding() async throws {
        let cases: [(String, [UInt8])] = [
            ("unknown version", try mutated { $0["version"] = 2 }),
            ("version as string", try mutated { $0["version"] = "1" }),
            ("missing issuer", try mutated { $0["issuer"] = nil }),
            ("missing optional member", try mutated { $0["subject"] = nil }),
            ("mistyped refresh token", try mutated { $0["refreshToken"] = 5 }),
            ("unknown member", try mutated { $0["accessToken"] = "at" }),
            ("short DPoP key", try mutated { $0["dpopPrivateKey"] = .string(Base64URL.encode([1, 2, 3])) }),
            ("nonce not a string", try mutated { $0["dpopNonces"] = ["https://a": 1] }),
            ("pending not an object", try mutated { $0["pendingAuthorization"] = "x" }),
            (
                "pending lacks verifier",
                try mutated {
                    var pending = $0["pendingAuthorization"]!.object!
                    pending["codeVerifier"] = nil
                    $0["pendingAuthorization"] = .object(pending)
                }
            ),
            (
                "negative max_age",
                try mutated {
                    var pending = $0["pendingAuthorization"]!.object!
                    pending["maxAge"] = -1
                    $0["pendingAuthorization"] = .object(pending)
                }
            ),
            (
                "digest wrong size",
                try mutated { $0["refreshInFlight"] = ["startedAt": 1.0, "tokenDigest": "AAAA"] }
            ),
            (
                "two pending requests",
                try mutated { $0["pendingDeviceAuthorization"] = Self.deviceRecord.jsonValue["pendingDeviceAuthorization"] }
            ),
            ("not JSON", Array("{\"version\":".utf8)),
            ("empty", []),
            ("array", Array("[1]".utf8)),
        ]
        for (name, bytes) in cases {
            #expect(throws: SessionRecordFormatError.self, "\(name)") { try SessionRecord.decode(bytes) }
            await expectError(.reauthenticate(.credentialsInvalidated)) { () throws(VersolaError) in
                try SessionRecord(serialized: bytes)
            }
        }
    }

    static let device = PendingDeviceAuthorization(
        deviceCode: "device-SECRET-0123", userCode: "BCDF-GHJK", verificationURI: "https://id.example/device",
        verificationURIComplete: "https://id.example/device?user_code=BCDF-GHJK", interval: 10,
        expiresAt: StorageSamples.createdAt.addingTimeInterval(600), issuer: "https://id.example", clientID: "cli",
        scope: "openid offline_access", dpopThumbprint: "thumb", createdAt: StorageSamples.createdAt)

    static let deviceRecord = SessionRecord(
        issuer: "https://id.example", clientID: "cli", dpopPrivateKey: Array(repeating: 7, count: 32),
        pendingDeviceAuthorization: device)

    @Test("A14 P1 P5: a device request round-trips in the record; its description shows no code")
    func deviceRequestRoundTrips() throws {
        let decoded = try SessionRecord(serialized: Self.deviceRecord.serialized())
        #expect(decoded == Self.deviceRecord)
        #expect(decoded.pendingDeviceAuthorization == Self.device)
        #expect(decoded.pendingAuthorization == nil)
        #expect(decoded.pendingRequest == .device(Self.device))
        let text = "\(decoded) \(Self.device) \(PendingRequest.device(Self.device))"
        #expect(!text.contains("device-SECRET"))
        #expect(text.contains("pending device authorization"))
        var minimal = Self.deviceRecord
        minimal.pendingDeviceAuthorization?.verificationURIComplete = nil
        minimal.pendingDeviceAuthorization?.dpopThumbprint = nil
        #expect(try SessionRecord(serialized: minimal.serialized()) == minimal)
    }

    @Test("A14: a record written before the device flow (no pendingDeviceAuthorization member) still reads")
    func recordWithoutDeviceMember() throws {
        let older = try mutated { $0["pendingDeviceAuthorization"] = nil }
        #expect(try SessionRecord(serialized: older) == StorageSamples.full)
        var broken = try #require(try JSONValue(parsing: Self.deviceRecord.serialized()).object)
        var device = try #require(broken["pendingDeviceAuthorization"]?.object)
        device["interval"] = 0
        broken["pendingDeviceAuthorization"] = .object(device)
        #expect(throws: SessionRecordFormatError.self) { try SessionRecord.decode(JSONValue.object(broken).serializedBytes()) }
    }

    @Test func formatErrorsNameFieldsNotValues() throws {
        let bytes = try mutated { $0["refreshToken"] = 5 }
        do {
            _ = try SessionRecord.decode(bytes)
            Issue.record("decoded")
        } catch {
            #expect(error.description.contains("refreshToken"))
            #expect(!error.description.contains("SECRET"))
        }
    }
}

extension SessionRecordTests {
    @Test("A14: the fuzzer's device seed decodes (it starts the fuzzer inside the device member)")
    func deviceSeedDecodes() throws {
        let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/fuzz-session-record/seeds/device-0.json")
        let record = try SessionRecord(serialized: Array(try Data(contentsOf: seed)))
        #expect(record.pendingDeviceAuthorization?.userCode == "BCDF-GHJK")
        #expect(record.dpopPrivateKey?.count == 32)
    }
}
