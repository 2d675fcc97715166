import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// Kills a process (SIGKILL) at each step of login and refresh, restarts, and checks that
/// the session is the old one or the new one, never lost, and that a refresh token the
/// provider already rotated is reported, not replayed in a loop (P7, T2, P1, P2).
@Suite(.serialized) struct CrashScenarios {
    struct Rig {
        let idp: TestIdentityServer
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("versola-crash-\(UUID().uuidString)")
        var state: URL { root.appendingPathComponent("state") }
        var config: URL { root.appendingPathComponent("config") }

        init(configure: (inout TestProviderConfiguration) -> Void = { _ in }) async throws {
            var configuration = TestProviderConfiguration()
            configuration.autoLogin = true
            configure(&configuration)
            idp = try await TestIdentityServer.start(configuration: configuration)
        }

        /// Runs the child and returns what it printed ("" when it was killed).
        func child(_ action: String, killAt: String) async throws -> (output: String, killed: Bool) {
            let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("versola-scenario-child")
            let fallback = URL(fileURLWithPath: ".build/debug/versola-scenario-child")
            let executable = FileManager.default.isExecutableFile(atPath: binary.path) ? binary : fallback
            let process = Process()
            process.executableURL = executable
            process.arguments = [idp.issuer, state.path, config.path, action, killAt]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            let status: (Int32, Process.TerminationReason) = try await withCheckedThrowingContinuation { continuation in
                process.terminationHandler = { continuation.resume(returning: ($0.terminationStatus, $0.terminationReason)) }
                do { try process.run() } catch { continuation.resume(throwing: error) }
            }
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (output.trimmingCharacters(in: .whitespacesAndNewlines), status.1 == .uncaughtSignal && status.0 == SIGKILL)
        }

        /// The state a freshly started process finds.
        func restartedState() async throws -> SessionState {
            var client = ClientConfiguration(issuer: idp.issuer, clientID: "versola-test")
            client.usesDPoP = false
            let storage = try SessionStorage(
                profile: "crash", keySource: .keyFile, directories: XDGDirectories(stateHome: state, configHome: config))
            let session = try Session(configuration: SessionConfiguration(client: client), store: storage.store)
            await session.start()
            return session.state
        }

        func stop() async {
            await idp.stop()
            try? FileManager.default.removeItem(at: root)
        }
    }

    @Test(
        "P1 P2 P9: a login killed at each step leaves a pending request or the new session, never half of one",
        arguments: [("save-1", SessionState.authorizing), ("token-response", .authorizing), ("save-2", .authenticated)])
    func loginKilled(step: String, expected: SessionState) async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            let run = try await rig.child("login", killAt: step)
            #expect(run.killed, "the child was to die at \(step), it printed \(run.output)")
            #expect(try await rig.restartedState() == expected)
        }
    }

    @Test("P7 T2: a refresh killed before sending or after storing keeps a working session, nothing replayed",
          arguments: ["save-1", "save-2"])
    func refreshKilledSafely(step: String) async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            #expect(try await rig.child("login", killAt: "none").output == "ok authenticated")
            let run = try await rig.child("refresh", killAt: step)
            #expect(run.killed)
            #expect(try await rig.restartedState() == .authenticated)
            #expect(try await rig.child("refresh", killAt: "none").output == "ok authenticated")
            #expect(await rig.idp.provider.revokedFamilyCount == 0)
        }
    }

    @Test("P7: a refresh killed after the provider rotated is reported once as grantRejected, not looped")
    func refreshKilledAfterRotation() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            #expect(try await rig.child("login", killAt: "none").output == "ok authenticated")
            let run = try await rig.child("refresh", killAt: "token-response")
            #expect(run.killed)
            #expect(try await rig.restartedState() == .authenticated)
            let before = await rig.idp.provider.requests(to: .token).count
            #expect(try await rig.child("refresh", killAt: "none").output == "error reauthenticate grantRejected unauthenticated")
            #expect(await rig.idp.provider.requests(to: .token).count == before + 1)
        }
    }

    @Test("A14 P1 P2: a device login killed once it showed its code is resumed by a restarted process: same code, no new request")
    func deviceLoginKilled() async throws {
        // Real time in the children: a 1 s poll interval keeps the run short.
        let rig = try await Rig(configure: { $0.deviceInterval = 1 })
        try await withRig(rig) { rig in
            let run = try await rig.child("device-login", killAt: "device-prompt")
            #expect(run.killed, "the child printed \(run.output)")
            let page = try #require(run.output.split(separator: " ").last.map(String.init))
            #expect(page.contains("user_code="))
            #expect(try await rig.restartedState() == .authorizing)
            _ = try await HeadlessUserAgent().complete(authorizationURL: page)
            let resumed = try await rig.child("device-resume", killAt: "none")
            #expect(resumed.output == "prompt \(page)\nok authenticated")
            #expect(await rig.idp.provider.requests(to: .deviceAuthorization).count == 1)
            #expect(try await rig.restartedState() == .authenticated)
        }
    }

    @Test("T2: 10 processes refreshing one profile at once take turns under the store lock; none replays a rotated token")
    func concurrentProcesses() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            #expect(try await rig.child("login", killAt: "none").output == "ok authenticated")
            let outputs = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<10 { group.addTask { try await rig.child("refresh", killAt: "none").output } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outputs.count == 10)
            #expect(outputs.allSatisfy { $0 == "ok authenticated" }, "\(outputs)")
            #expect(await rig.idp.provider.revokedFamilyCount == 0)
            let refreshes = await rig.idp.provider.requests(to: .token).filter { $0.formValue("grant_type") == "refresh_token" }
            // Each process holds its access token in memory only (P4), so each refreshes once, in turn.
            #expect(refreshes.count == 10)
            #expect(Set(refreshes.compactMap { $0.formValue("refresh_token") }).count == 10)
        }
    }
}
