/// A rig that starts a provider (and maybe files) a scenario must stop, however it ends.
protocol ScenarioRig {
    /// Stops the provider and removes what the rig made.
    func stop() async
}

extension SessionRig: ScenarioRig {}
extension EngineRig: ScenarioRig {}

/// Runs `body` with `rig`, then stops the rig, also when `body` throws (a failed `#require`
/// or an unexpected error), so a failing scenario never leaves its provider running.
func withRig<Rig: ScenarioRig>(_ rig: Rig, _ body: (Rig) async throws -> Void) async throws {
    do {
        try await body(rig)
    } catch {
        await rig.stop()
        throw error
    }
    await rig.stop()
}
extension CrashScenarios.Rig: ScenarioRig {}
extension TransportScenarios.Rig: ScenarioRig {}
