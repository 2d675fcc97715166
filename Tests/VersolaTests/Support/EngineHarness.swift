import Foundation
import Versola
import VersolaHTTP
import VersolaTesting

/// A scripted transport, a manual clock and a seeded random source wired into an engine environment.
struct EngineHarness {
    let clock = ManualClock()
    let transport: ScriptedTransport
    let log = RecordingLogSink()
    let environment: EngineEnvironment
    let sender: EndpointSender
    var configuration = ProviderFixture.configuration()

    init(callDuration: Duration = .milliseconds(10)) {
        transport = ScriptedTransport(clock: clock, callDuration: callDuration)
        environment = EngineEnvironment(
            http: RetryingClient(transport: transport, clock: clock, random: SeededRandomSource(seed: 7)), log: log)
        sender = EndpointSender(environment: environment)
    }

    func budget() throws -> OperationBudget {
        try OperationBudget(policy: configuration.retryPolicy, clock: clock)
    }

    /// Scripts the provider's discovery document and key set.
    func serveProvider(jwks: [String] = ["rsa-1", "ec-1"]) throws {
        transport.script(ProviderFixture.discoveryPath, .json(ProviderFixture.discovery()))
        transport.script(ProviderFixture.jwksPath, .json(try ProviderFixture.jwks(jwks)))
    }

    func keyCache() -> JWKSCache {
        JWKSCache(jwksURI: URL(string: ProviderFixture.issuer + "/certs")!, sender: sender)
    }
}
