import Testing

@testable import VersolaCommand

/// The one variable the agent's launcher adds to the agent's environment, and takes back.
@Suite("agent launch environment")
struct AgentLaunchEnvironmentTests {
    @Test("the agent starts with GnuTLS's own start turned off, and a marker saying the launcher did it")
    func theLauncherAddsBoth() {
        let caller = ["PATH": "/usr/bin", "HOME": "/home/a"]
        let agent = AgentLaunchEnvironment.forAgent(caller)
        #expect(agent["GNUTLS_NO_IMPLICIT_INIT"] == "1")
        #expect(agent[AgentLaunchEnvironment.marker] == "1")
        #expect(agent.filter { $0.key != "GNUTLS_NO_IMPLICIT_INIT" && $0.key != AgentLaunchEnvironment.marker } == caller)
    }

    @Test("a value the person set is passed as it is, with no marker, so the agent keeps it")
    func thePersonsValueIsKept() {
        let agent = AgentLaunchEnvironment.forAgent(["GNUTLS_NO_IMPLICIT_INIT": "0"])
        #expect(agent == ["GNUTLS_NO_IMPLICIT_INIT": "0"])
        #expect(AgentLaunchEnvironment.launcherAdditions(value: { agent[$0] }).isEmpty)
    }

    @Test("the agent takes back exactly what the launcher added, so the programs it runs never see it")
    func theAgentTakesBackTheLaunchersAdditions() {
        let agent = AgentLaunchEnvironment.forAgent(["PATH": "/usr/bin"])
        let taken = AgentLaunchEnvironment.launcherAdditions(value: { agent[$0] })
        #expect(Set(taken) == ["GNUTLS_NO_IMPLICIT_INIT", AgentLaunchEnvironment.marker])
        #expect(agent.filter { !taken.contains($0.key) } == ["PATH": "/usr/bin"])
    }
}
