import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// Every operation × every fault class of R4–R8 × DPoP off and on, against the test provider:
/// how many requests the endpoint saw, and that no session was lost. The expectations are
/// written from SPEC R4–R7 here, apart from the engine's retry table. The matrix is written
/// to `.build/fault-matrix.tsv`, which `scripts/conformance.sh` prints.
@Suite(.serialized) struct FaultMatrixScenarios {
    enum Operation: String, CaseIterable {
        case discovery, par, codeExchange, refresh, userinfo, revocation, application
    }

    static let faults: [(String, TestFault)] = [
        ("408", .respond(status: 408)), ("429+Retry-After", .respond(status: 429, headers: ["Retry-After": "1"])),
        ("500", .respond(status: 500)), ("501", .respond(status: 501)), ("502", .respond(status: 502)),
        ("503+Retry-After", .respond(status: 503, headers: ["Retry-After": "1"])), ("504", .respond(status: 504)),
        ("505", .respond(status: 505)), ("reset", .reset), ("dropped", .closeAfterReading),
        ("redirect", .redirect(location: "https://elsewhere.example/")),
    ]

    /// SPEC R4–R7: how many requests the endpoint sees when the fault strikes once.
    static func expectedRequests(_ operation: Operation, _ fault: String) -> Int {
        switch operation {
        case .discovery, .par, .userinfo, .revocation:
            // R5: repeated after a transport failure, 408, 429, 500, 502, 503, 504; R4: never a redirect, 501, 505.
            return ["501", "505", "redirect"].contains(fault) ? 1 : 2
        case .refresh:
            // R6: only when provably not processed.
            return ["408", "429+Retry-After", "503+Retry-After"].contains(fault) ? 2 : 1
        case .codeExchange, .application:
            // R4: the exchange is never repeated; R7: application requests not on a status, and
            // not after bytes were written.
            return 1
        }
    }

    static func endpoint(_ operation: Operation) -> TestEndpoint {
        switch operation {
        case .discovery: .discovery
        case .par: .par
        case .codeExchange, .refresh: .token
        case .userinfo: .userinfo
        case .revocation: .revocation
        case .application: .resource
        }
    }

    @Test("R4 R5 R6 R7 R8 T5 S4 D3: the fault matrix: every operation, every fault class, DPoP off and on")
    func matrix() async throws {
        var rows = ["operation\tfault\tdpop\texpected\tseen\tsession kept\toutcome\tresult"]
        for dpop in [false, true] {
            let rig = try await SessionRig(usesDPoP: dpop, configure: { $0.requireDPoP = dpop })
            try await withRig(rig) { rig in
                await rig.session.start()
                try await rig.session.login()
                for operation in Operation.allCases {
                    for (name, fault) in Self.faults {
                        if rig.session.state != .authenticated { try await rig.session.login() }
                        let endpoint = Self.endpoint(operation)
                        let before = await rig.idp.provider.requests(to: endpoint).count
                        await rig.idp.provider.arm(TestFaultRule(endpoint, fault))
                        let outcome = await Self.run(operation, rig: rig)
                        await rig.idp.provider.clearFaults()
                        // R8: a Retry-After the operation could not wait out closes the origin until
                        // then; let that time pass before the next cell.
                        rig.clock.advance(by: .seconds(2))
                        var seen = await rig.idp.provider.requests(to: endpoint).count - before
                        if operation == .codeExchange || operation == .refresh {
                            let grant = operation == .codeExchange ? "authorization_code" : "refresh_token"
                            seen = await rig.idp.provider.requests(to: .token).suffix(seen)
                                .filter { $0.formValue("grant_type") == grant }.count
                        }
                        let expected = Self.expectedRequests(operation, name)
                        // Revocation is part of logout, which ends the session on purpose (S9).
                        let kept = operation == .revocation ? true : rig.session.state == .authenticated
                        let pass = seen == expected && kept
                        rows.append(
                            "\(operation.rawValue)\t\(name)\t\(dpop ? "on" : "off")\t\(expected)\t\(seen)\t\(kept)\t\(outcome)\t\(pass ? "pass" : "FAIL")")
                        #expect(seen == expected, "\(operation) × \(name) × DPoP \(dpop): \(seen) requests, expected \(expected)")
                        #expect(kept, "\(operation) × \(name) × DPoP \(dpop): the session was lost")
                    }
                }
            }
        }
        let output = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/fault-matrix.tsv")
        try? (rows.joined(separator: "\n") + "\n").write(to: output, atomically: true, encoding: .utf8)
    }

    /// Runs one operation and says how it ended (`ok`, or the error's category and cause).
    static func run(_ operation: Operation, rig: SessionRig) async -> String {
        await run(operation, session: rig.session, rig: rig)
    }

    /// Runs one operation on `session` (the rig's, or one on another store) and says how it ended.
    static func run(_ operation: Operation, session: Session, rig: SessionRig) async -> String {
        do throws(VersolaError) {
            switch operation {
            case .discovery:
                let client = try OpenIDClient(
                    configuration: rig.configuration.client,
                    environment: EngineEnvironment(
                        http: RetryingClient(transport: CurlTransport(), clock: rig.clock, random: SystemRandomSource())))
                _ = try await client.metadata()
            case .par, .codeExchange:
                try await session.login()
            case .refresh:
                _ = try await session.accessToken(forceRefresh: true)
            case .userinfo:
                _ = try await session.userInfo()
            case .revocation:
                await session.logout()
            case .application:
                // A POST: an application request that is not idempotent must never be sent twice.
                var request = HTTPRequest(method: .post, url: URL(string: rig.idp.resourceURL)!)
                request.body = Array("{}".utf8)
                _ = try await session.send(request)
            }
            return "ok"
        } catch {
            return "\(error.category).\(error.cause)"
        }
    }
}
