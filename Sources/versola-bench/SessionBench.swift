import Foundation
import Versola
import VersolaTestIdP

/// `access_token_cached_ns` (the hot path of a valid cached token) and
/// `refresh_single_flight_1000_callers_ms` (1000 concurrent callers, one refresh) beside
/// `refresh_one_caller_ms` (the same refresh with a single caller), against the local provider.
func sessionBenchmarks(_ report: BenchReport) async throws {
    var configuration = TestProviderConfiguration()
    configuration.autoLogin = true
    let idp = try await TestIdentityServer.start(configuration: configuration)
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("versola-bench-\(UUID().uuidString)")
    defer {
        try? FileManager.default.removeItem(at: root)
        Task { await idp.stop() }
    }
    var client = ClientConfiguration(issuer: idp.issuer, clientID: "versola-test")
    client.usesDPoP = false
    let storage = try SessionStorage(
        profile: "bench", keySource: .keyFile,
        directories: XDGDirectories(stateHome: root.appendingPathComponent("state"), configHome: root.appendingPathComponent("config")))
    let session = try Session(
        configuration: SessionConfiguration(client: client, profile: "bench"), store: storage.store,
        browser: BenchBrowser())
    await session.start()
    try await session.login()

    // The cached path: many sequential calls, averaged.
    _ = try await session.accessToken()
    let calls = 200_000
    var sink = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<calls { sink &+= try await session.accessToken().utf8.count }
    let perCall = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(calls)
    blackHole(sink)
    report.print("access_token_cached_ns", perCall, unit: "ns")

    var single: [Double] = []
    var crowd: [Double] = []
    var refreshesPerCrowd: [Int] = []
    for _ in 0..<5 {
        let oneStart = DispatchTime.now().uptimeNanoseconds
        _ = try await session.accessToken(forceRefresh: true)
        single.append(Double(DispatchTime.now().uptimeNanoseconds - oneStart) / 1e6)

        let before = await idp.provider.requests(to: .token).count
        let crowdStart = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1000 { group.addTask { try await session.accessToken(forceRefresh: true).utf8.count } }
            for try await count in group { sink &+= count }
        }
        crowd.append(Double(DispatchTime.now().uptimeNanoseconds - crowdStart) / 1e6)
        refreshesPerCrowd.append(await idp.provider.requests(to: .token).count - before)
    }
    var floor: [Double] = []
    for _ in 0..<5 {
        let floorStart = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1000 { group.addTask { try await session.accessToken().utf8.count } }
            for try await count in group { sink &+= count }
        }
        floor.append(Double(DispatchTime.now().uptimeNanoseconds - floorStart) / 1e6)
    }
    floor.sort()
    report.print("cached_1000_callers_ms", floor[2], unit: "ms (median of 5; the cost of 1000 tasks alone)")
    single.sort()
    crowd.sort()
    report.print("refresh_one_caller_ms", single[2], unit: "ms (median of 5)")
    report.print("refresh_single_flight_1000_callers_ms", crowd[2], unit: "ms (median of 5)")
    report.print("refresh_single_flight_1000_callers_refreshes", Double(refreshesPerCrowd.max() ?? 0), unit: "refreshes (most in one round)")
}

private struct BenchBrowser: BrowserLauncher {
    func open(_ url: String) async -> Bool {
        Task { _ = try? await HeadlessUserAgent().complete(authorizationURL: url) }
        return true
    }
}
