import Foundation
import Versola
import VersolaHTTP
import VersolaTestIdP

/// `access_token_cached_ns` (the hot path of a valid cached token) and
/// `refresh_single_flight_1000_callers_ms` (1000 concurrent callers, one refresh) beside
/// `refresh_one_caller_ms` (the same refresh with a single caller), against the local provider.
func sessionBenchmarks(_ report: BenchReport) async throws {
    // The provider runs in its own process when its binary sits next to this one, so its
    // work does not queue behind the thousand callers on this process's thread pool, as a
    // real provider's would not.
    let provider = try await BenchProvider.start()
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("versola-bench-\(UUID().uuidString)")
    defer {
        try? FileManager.default.removeItem(at: root)
        provider.stop()
    }
    var client = ClientConfiguration(issuer: provider.issuer, clientID: "versola-test")
    client.usesDPoP = false
    let storage = try SessionStorage(
        profile: "bench", keySource: .keyFile,
        directories: XDGDirectories(stateHome: root.appendingPathComponent("state"), configHome: root.appendingPathComponent("config")))
    let session = try Session(
        configuration: SessionConfiguration(client: client), store: storage.store,
        browser: BenchBrowser())
    await session.start()
    try await session.login()

    try await cachedTokenBenchmark(session, report)
    var sink = 0

    var single: [Double] = []
    var crowd: [Double] = []
    var refreshesPerCrowd: [Int] = []
    // Rounds alternate one caller and the crowd, so each round's ratio compares two refreshes
    // made moments apart; the median of those ratios is the figure the target uses.
    let rounds = 15
    for _ in 0..<rounds {
        let oneStart = DispatchTime.now().uptimeNanoseconds
        _ = try await session.accessToken(forceRefresh: true)
        single.append(Double(DispatchTime.now().uptimeNanoseconds - oneStart) / 1e6)

        let before = await provider.tokenRequests()
        let crowdStart = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1000 { group.addTask { try await session.accessToken(forceRefresh: true).utf8.count } }
            for try await count in group { sink &+= count }
        }
        crowd.append(Double(DispatchTime.now().uptimeNanoseconds - crowdStart) / 1e6)
        refreshesPerCrowd.append(await provider.tokenRequests() - before)
    }
    try await cachedCrowdBenchmark(session, report)
    blackHole(sink)
    let ratios = zip(crowd, single).map { $0 / $1 }.sorted()
    single.sort()
    crowd.sort()
    report.print("refresh_one_caller_ms", single[rounds / 2], unit: "ms (median of \(rounds))")
    report.print("refresh_single_flight_1000_callers_ms", crowd[rounds / 2], unit: "ms (median of \(rounds))")
    report.print(
        "ratio_refresh_single_flight_1000_callers_to_one", ratios[rounds / 2],
        unit: "x (median of the rounds' ratios; target <= 1.5)")
    report.print("refresh_single_flight_1000_callers_refreshes", Double(refreshesPerCrowd.max() ?? 0), unit: "refreshes (most in one round)")
}

/// The local provider for the session figures: `versola-test-idp` as a child process when
/// it is built beside this executable, else in this process.
private final class BenchProvider: Sendable {
    let issuer: String
    private let child: Process?
    private let inProcess: TestIdentityServer?

    private init(issuer: String, child: Process?, inProcess: TestIdentityServer?) {
        self.issuer = issuer
        self.child = child
        self.inProcess = inProcess
    }

    static func start() async throws -> BenchProvider {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("versola-test-idp")
        if FileManager.default.isExecutableFile(atPath: binary.path) {
            let process = Process()
            process.executableURL = binary
            process.arguments = ["--port", "0", "--auto-login"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            var line = [UInt8]()
            while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 10 { line.append(byte) }
            return BenchProvider(issuer: String(decoding: line, as: UTF8.self), child: process, inProcess: nil)
        }
        var configuration = TestProviderConfiguration()
        configuration.autoLogin = true
        let server = try await TestIdentityServer.start(configuration: configuration)
        return BenchProvider(issuer: server.issuer, child: nil, inProcess: server)
    }

    /// How many token requests the provider has seen (through its request log).
    func tokenRequests() async -> Int {
        if let inProcess { return await inProcess.provider.requests(to: .token).count }
        guard let url = URL(string: issuer + "/_admin/requests"),
            let response = try? await CurlTransport(idleHandles: 0).send(HTTPRequest(url: url), options: TransportOptions())
        else { return 0 }
        return String(decoding: response.body, as: UTF8.self).components(separatedBy: #""endpoint":"token""#).count - 1
    }

    func stop() {
        child?.terminate()
        child?.waitUntilExit()
        if let inProcess { Task { await inProcess.stop() } }
    }
}

/// `access_token_cached_ns`: many sequential calls for a valid cached token, averaged.
private func cachedTokenBenchmark(_ session: Session, _ report: BenchReport) async throws {
    _ = try await session.accessToken()
    let calls = 200_000
    var sink = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<calls { sink &+= try await session.accessToken().utf8.count }
    let perCall = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(calls)
    blackHole(sink)
    report.print("access_token_cached_ns", perCall, unit: "ns")
}

/// `cached_1000_callers_ms`: a thousand concurrent callers of a valid cached token (the cost
/// of the tasks alone, beside which the single-flight refresh is read).
private func cachedCrowdBenchmark(_ session: Session, _ report: BenchReport) async throws {
    var floor: [Double] = []
    var sink = 0
    for _ in 0..<5 {
        let floorStart = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1000 { group.addTask { try await session.accessToken().utf8.count } }
            for try await count in group { sink &+= count }
        }
        floor.append(Double(DispatchTime.now().uptimeNanoseconds - floorStart) / 1e6)
    }
    blackHole(sink)
    floor.sort()
    report.print("cached_1000_callers_ms", floor[2], unit: "ms (median of 5; the cost of 1000 tasks alone)")
}
