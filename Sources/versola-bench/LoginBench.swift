import Foundation
import Versola
import VersolaHTTP
import VersolaTestIdP

/// `login_headless_ms`: discovery, PAR, authorize, the loopback leg, the code exchange and
/// ID token validation against the local test provider, the browser leg automated.
/// Each login is a fresh engine (nothing cached), so every step is paid each time.
func loginBenchmarks(_ report: BenchReport) async throws {
    var configuration = TestProviderConfiguration()
    configuration.autoLogin = true
    let idp = try await TestIdentityServer.start(configuration: configuration)
    defer { Task { await idp.stop() } }
    var clientConfiguration = ClientConfiguration(issuer: idp.issuer, clientID: "versola-test")
    clientConfiguration.usesDPoP = false

    var durations: [Double] = []
    let deadline = Date().addingTimeInterval(report.seconds)
    repeat {
        let client = try OpenIDClient(configuration: clientConfiguration, browser: BenchBrowser())
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try await client.login()
        durations.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    } while Date() < deadline || durations.count < 5
    durations.sort()
    report.print("login_headless_ms", durations[durations.count / 2], unit: "ms (median of \(durations.count))")
}
