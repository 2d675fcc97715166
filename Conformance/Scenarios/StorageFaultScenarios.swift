import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// The fault matrix's storage column (P10, P1, S9): every operation while the store refuses
/// every write as a full disk (ENOSPC), an I/O error (EIO) or a read-only file system (EROFS)
/// would. Requests seen and whether the session was kept, written to
/// `.build/fault-matrix-storage.tsv` for the conformance report.
@Suite(.serialized) struct StorageFaultScenarios {
    typealias Operation = FaultMatrixScenarios.Operation

    static let faults: [(String, Int32)] = [("ENOSPC", ENOSPC), ("EIO", EIO), ("read-only", EROFS)]

    /// What the endpoint sees while no write succeeds: a step that must be stored first is
    /// never sent (the pending request before the browser, P1; the refresh marker before the
    /// token is spent, P7); everything else goes out once.
    static func expectedRequests(_ operation: Operation) -> Int {
        switch operation {
        case .codeExchange, .refresh: 0
        case .discovery, .par, .userinfo, .revocation, .application: 1
        }
    }

    @Test("P10 P1 S9 E1: the fault matrix's storage column: ENOSPC, EIO and read-only during every operation keep the session")
    func storageColumn() async throws {
        var rows = ["operation\tfault\tdpop\texpected\tseen\tsession kept\toutcome\tresult"]
        for dpop in [false, true] {
            let rig = try await SessionRig(usesDPoP: dpop, configure: { $0.requireDPoP = dpop })
            try await withRig(rig) { rig in
                let store = FailingWritesStore(rig.storage.store)
                let session = try OneTruthScenarios.session(rig, store: store)
                await session.start()
                try await session.login()
                for operation in Operation.allCases {
                    for (name, code) in Self.faults {
                        if session.state != .authenticated { try await session.login() }
                        let endpoint = FaultMatrixScenarios.endpoint(operation)
                        let before = await rig.idp.provider.requests(to: endpoint).count
                        let stored = try await store.load()
                        store.failSaves(count: 1000, code: code)
                        let outcome = await FaultMatrixScenarios.run(operation, session: session, rig: rig)
                        store.failSaves(count: 0)
                        var seen = await rig.idp.provider.requests(to: endpoint).count - before
                        if operation == .codeExchange || operation == .refresh {
                            let grant = operation == .codeExchange ? "authorization_code" : "refresh_token"
                            seen = await rig.idp.provider.requests(to: .token).suffix(seen)
                                .filter { $0.formValue("grant_type") == grant }.count
                        }
                        let expected = Self.expectedRequests(operation)
                        // Logout ends the session on purpose (S9); every other operation keeps it,
                        // on disk exactly as it was.
                        let onDisk = try await store.load()?.refreshToken
                        let kept =
                            operation == .revocation
                            ? session.state == .unauthenticated
                            : session.state == .authenticated && onDisk == stored?.refreshToken
                        let pass = seen == expected && kept
                        rows.append(
                            "\(operation.rawValue)\tstorage \(name)\t\(dpop ? "on" : "off")\t\(expected)\t\(seen)\t\(kept)\t\(outcome)\t\(pass ? "pass" : "FAIL")")
                        #expect(seen == expected, "\(operation) × \(name) × DPoP \(dpop): \(seen) requests, expected \(expected)")
                        #expect(kept, "\(operation) × \(name) × DPoP \(dpop): the session was not kept")
                        if operation == .revocation { try? await store.wipe() }
                    }
                }
            }
        }
        let output = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/fault-matrix-storage.tsv")
        try? (rows.joined(separator: "\n") + "\n").write(to: output, atomically: true, encoding: .utf8)
    }

    @Test("P10 E1: a real full disk (a 64 KiB tmpfs as the state home) during a refresh keeps the rotated token")
    func realFullDisk() async throws {
        guard getuid() == 0 else {
            print("skipped: mounting a tmpfs needs root; the store-level ENOSPC cells above still run")
            return
        }
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            let mountPoint = rig.directories.stateHome.path
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
            guard Self.shell("mount -t tmpfs -o size=64k,mode=0700 tmpfs '\(mountPoint)'") == 0 else {
                print("skipped: tmpfs could not be mounted here")
                return
            }
            defer { _ = Self.shell("umount -l '\(mountPoint)'") }
            await rig.session.start()
            try await rig.session.login()
            let spent = try await rig.storage.store.load()?.refreshToken
            // Fill the file system to the last byte, leaving the record where it is.
            let filler = mountPoint + "/filler"
            _ = Self.shell("dd if=/dev/zero of='\(filler)' bs=1k count=128 2>/dev/null")
            var outcome = "ok"
            do throws(VersolaError) {
                _ = try await rig.session.accessToken(forceRefresh: true)
            } catch {
                outcome = "\(error.category).\(error.cause)"
            }
            #expect(outcome == "ok" || outcome == "recoverable.storageUnavailable", "\(outcome)")
            #expect(rig.session.state == .authenticated)
            unlink(filler)
            // Room again: the held record (or the refresh, if nothing was spent) reaches the disk.
            rig.clock.manual.advance(by: .seconds(3))
            _ = try await rig.session.accessToken(forceRefresh: true)
            let stored = try await rig.storage.store.load()?.refreshToken
            #expect(stored != nil && stored != spent)
            #expect(await rig.idp.provider.revokedFamilyCount == 0, "no refresh token was ever presented twice")
        }
    }

    @discardableResult
    static func shell(_ command: String) -> Int32 {
        var child: pid_t = 0
        let words: [String] = ["/bin/sh", "-c", command]
        let argv = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        guard posix_spawn(&child, "/bin/sh", nil, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }
}
