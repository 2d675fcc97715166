import Foundation

// versola-bench: prints one line per figure as `name: value unit`.
// Build it in release mode: `swift build -c release --product versola-bench`.
// `VERSOLA_BENCH_SECONDS` sets how long each rate is measured (default 3).

if await SyncWriter.runIfAsked() { exit(0) }

let seconds = Double(ProcessInfo.processInfo.environment["VERSOLA_BENCH_SECONDS"] ?? "") ?? 3
let report = BenchReport(seconds: seconds)
let only = Set(CommandLine.arguments.dropFirst())

/// Each area of the engine adds its figures here.
let groups: [(String, (BenchReport) async throws -> Void)] = [
    ("crypto", cryptoBenchmarks),
    ("jose", joseBenchmarks),
    ("server", serverBenchmarks),
    ("login", loginBenchmarks),
    ("engine", engineBenchmarks),
    ("dpop", dpopBenchmarks),
    ("session", sessionBenchmarks),
    ("sync", syncBenchmarks),
]

for (name, run) in groups where only.isEmpty || only.contains(name) {
    try await run(report)
}
