// swift-tools-version:6.0
import Foundation
import PackageDescription

/// Fuzz targets only build with `--sanitize fuzzer` (they have no `main`), so they are
/// part of the package only when `VERSOLA_FUZZ=1` is set; `scripts/fuzz.sh` sets it.
let fuzzing = ProcessInfo.processInfo.environment["VERSOLA_FUZZ"] == "1"

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

var targets: [Target] = [
    // The system libraries. OpenSSL's libcrypto is found through pkg-config: a missing one makes
    // SwiftPM name the package to install (to run, libssl3 and libcurl4 are enough). libcurl is
    // not linked (the first request loads it, CVersolaSystem/curl.c): only its header is used,
    // from the system's include path (libcurl4-openssl-dev, which scripts/install-deps.sh installs).
    .systemLibrary(name: "COpenSSLSystem", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CCurlSystem"),
    .target(
        name: "CVersolaSystem",
        dependencies: ["COpenSSLSystem", "CCurlSystem"],
        linkerSettings: [.linkedLibrary("crypto")]
    ),
    .target(name: "VersolaCrypto", dependencies: ["CVersolaSystem"], swiftSettings: strict),
    .target(name: "VersolaJOSE", dependencies: ["CVersolaSystem", "VersolaCrypto"], swiftSettings: strict),
    .target(name: "VersolaHTTP", dependencies: ["CVersolaSystem", "VersolaCrypto"], swiftSettings: strict),
    .target(name: "Versola", dependencies: ["VersolaHTTP", "VersolaJOSE", "VersolaCrypto"], swiftSettings: strict),
    // Test doubles for applications' tests and the engine's own: a manual clock, a seeded
    // random source, a scripted transport and a temporary directory (never for production use).
    .target(name: "VersolaTesting", dependencies: ["VersolaHTTP"], swiftSettings: strict),
    .executableTarget(
        name: "versola-bench",
        dependencies: [
            "CVersolaSystem", "VersolaCrypto", "VersolaJOSE", "VersolaHTTP", "Versola", "VersolaTestIdP", "VersolaTesting",
        ],
        swiftSettings: strict
    ),
    .target(
        name: "VersolaTestIdP",
        dependencies: ["VersolaHTTP", "VersolaJOSE", "VersolaCrypto"],
        path: "Conformance/TestIdP",
        swiftSettings: strict
    ),
    .executableTarget(
        name: "versola-test-idp",
        dependencies: ["VersolaTestIdP"],
        path: "Conformance/versola-test-idp",
        swiftSettings: strict
    ),
    .testTarget(
        name: "TestIdPTests",
        dependencies: ["VersolaTestIdP", "VersolaHTTP", "VersolaJOSE", "VersolaCrypto"],
        path: "Conformance/TestIdPTests",
        swiftSettings: strict
    ),
    .executableTarget(
        name: "versola-scenario-child",
        dependencies: ["Versola", "VersolaTestIdP"],
        path: "Conformance/ScenarioChild",
        swiftSettings: strict
    ),
    .testTarget(
        name: "ConformanceScenarios",
        dependencies: ["Versola", "VersolaTestIdP", "VersolaHTTP", "VersolaJOSE", "VersolaCrypto", "VersolaTesting"],
        path: "Conformance/Scenarios",
        swiftSettings: strict
    ),
    .target(
        name: "VersolaCommand",
        dependencies: ["CVersolaSystem", "Versola", "VersolaHTTP", "VersolaJOSE", "VersolaCrypto"],
        swiftSettings: strict
    ),
    // agent.order: the layout `make install` links the engine with (scripts/agent-order.sh).
    .executableTarget(name: "versola", dependencies: ["VersolaCommand"], exclude: ["agent.order", "engine.exports"], swiftSettings: strict),
    // The warm path of `versola token` in C, linking only the C library; it `exec`s `versola`
    // (the engine) for everything else. `make install` builds it with `cc -static` as `versola`.
    .executableTarget(
        name: "versola-front",
        cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror", "-std=c11"])]
    ),
    // TLS for the command tests' https stand-ins (kubectl sends credentials over https only).
    .target(
        name: "CVersolaTestTLS",
        path: "Tests/CVersolaTestTLS",
        cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])],
        linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]
    ),
    // The command's process tests: each starts the command's binaries (and agents, providers,
    // kubectl, git) as real processes; `make test` runs them against the installed layout.
    .testTarget(
        name: "VersolaCommandTests",
        dependencies: [
            "VersolaCommand", "Versola", "VersolaTestIdP", "VersolaHTTP", "VersolaJOSE", "VersolaCrypto", "VersolaTesting",
            "CVersolaTestTLS",
        ],
        swiftSettings: strict
    ),
    // The command's unit tests: no process of the command is started (`make check` runs them).
    .testTarget(
        name: "VersolaCommandUnitTests",
        dependencies: ["VersolaCommand", "Versola", "VersolaTestIdP", "VersolaHTTP", "VersolaJOSE", "VersolaTesting"],
        swiftSettings: strict
    ),
    // README.md's Swift examples, compiled as written (ReadmeExampleTests keeps the two equal).
    // Each in a file of its own with exactly the imports the README shows.
    .testTarget(name: "ReadmeExamples", dependencies: ["Versola", "VersolaCrypto"], swiftSettings: strict),
    .testTarget(name: "VersolaCryptoTests", dependencies: ["VersolaCrypto"], swiftSettings: strict),
    .testTarget(name: "VersolaJOSETests", dependencies: ["VersolaJOSE", "VersolaCrypto"], swiftSettings: strict),
    .testTarget(name: "VersolaHTTPTests", dependencies: ["VersolaHTTP", "VersolaTestIdP", "VersolaTesting"], swiftSettings: strict),
    .testTarget(
        name: "VersolaTests", dependencies: ["Versola", "VersolaHTTP", "VersolaJOSE", "VersolaCrypto", "VersolaTesting"],
        swiftSettings: strict),
]

var products: [Product] = [
    .library(name: "VersolaCrypto", targets: ["VersolaCrypto"]),
    .library(name: "VersolaJOSE", targets: ["VersolaJOSE"]),
    .library(name: "VersolaHTTP", targets: ["VersolaHTTP"]),
    .library(name: "Versola", targets: ["Versola"]),
    .library(name: "VersolaTesting", targets: ["VersolaTesting"]),
    .executable(name: "versola", targets: ["versola"]),
    .executable(name: "versola-front", targets: ["versola-front"]),
    .executable(name: "versola-bench", targets: ["versola-bench"]),
    .executable(name: "versola-test-idp", targets: ["versola-test-idp"]),
    .library(name: "VersolaTestIdP", targets: ["VersolaTestIdP"]),
]

if fuzzing {
    // One libFuzzer executable per area of outside input; each reads Fuzz/<name>/.
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("fuzz-jose", ["VersolaJOSE"]),
        ("fuzz-jose-differential", ["VersolaJOSE"]),
        ("fuzz-http-server", ["VersolaHTTP"]),
        ("fuzz-provider-responses", ["Versola", "VersolaHTTP", "VersolaTesting"]),
        ("fuzz-headers-redirect", ["Versola", "VersolaHTTP"]),
        ("fuzz-session-record", ["Versola", "VersolaCrypto"]),
        ("fuzz-id-token", ["Versola", "VersolaJOSE", "VersolaCrypto", "VersolaHTTP", "VersolaTesting"]),
    ]
    for fuzzTarget in fuzzTargets {
        targets.append(
            .executableTarget(
                name: fuzzTarget.name, dependencies: fuzzTarget.dependencies, path: "Fuzz/\(fuzzTarget.name)",
                exclude: ["corpus", "seeds"], swiftSettings: strict))
        products.append(.executable(name: fuzzTarget.name, targets: [fuzzTarget.name]))
    }
}

let package = Package(
    name: "Versola",
    products: products,
    targets: targets
)
