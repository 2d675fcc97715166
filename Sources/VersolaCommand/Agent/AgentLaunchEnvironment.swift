import Glibc

/// What the agent's environment gets beyond its caller's, and how the agent takes it back.
///
/// GnuTLS is in the agent only because libcurl's RTMP support links it (Versola's libcurl speaks
/// TLS through OpenSSL, and only `http` and `https`). Loaded, GnuTLS initialises itself, and
/// with it p11-kit: 0.6 MB of a long-running agent's memory for a library it never calls.
/// `GNUTLS_NO_IMPLICIT_INIT=1` turns that off, but it is read when the library is loaded, so
/// it has to be in the environment the agent starts with. The agent removes it again before
/// anything else runs, so that a program it starts (which may rely on GnuTLS starting by itself)
/// never sees it; a value the person set is theirs, and is left as it is.
public enum AgentLaunchEnvironment {
    static let deferGnuTLS = "GNUTLS_NO_IMPLICIT_INIT"
    /// Says that ``deferGnuTLS`` was set by the launcher, not by the person.
    static let marker = "VERSOLA_AGENT_SET_GNUTLS_NO_IMPLICIT_INIT"

    /// The environment the agent is started with: the caller's, GnuTLS's start turned off.
    static func forAgent(_ environment: [String: String]) -> [String: String] {
        guard environment[deferGnuTLS] == nil else { return environment }
        var agent = environment
        agent[deferGnuTLS] = "1"
        agent[marker] = "1"
        return agent
    }

    /// The names to take out of a process's environment that started with `value(of:)`: the
    /// launcher's additions, and only when the marker says they are its own.
    static func launcherAdditions(value: (String) -> String?) -> [String] {
        value(marker) == nil ? [] : [marker, deferGnuTLS]
    }

    /// Takes the launcher's additions out of this process's environment. The engine's first
    /// statement calls it, before any thread could read the environment.
    public static func takeBackLauncherAdditions() {
        for name in launcherAdditions(value: { getenv($0).map { String(cString: $0) } }) { unsetenv(name) }
    }
}
