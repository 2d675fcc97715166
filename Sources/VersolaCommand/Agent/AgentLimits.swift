/// The bounds of the session agent, so that no caller of the same user can grow it without
/// limit (SECURITY.md lists them).
enum AgentLimits {
    /// Connections served at once (each on a thread of its own). When a new one arrives with
    /// this many open, the oldest still sending its request is closed to make room; when every
    /// one is being answered or is a `watch` stream, the new one is told the agent is busy.
    static let maximumConnections = 64

    /// The longest request line read, in bytes. A bigger request (an HTTP body for
    /// `versola request`) is run by the command itself, never sent.
    static let maximumRequestBytes = 256 * 1024

    /// How long a connection has to send its whole request.
    static let requestDeadline: Duration = .seconds(10)

    /// How long one write of an answer may wait for a caller that does not read.
    static let writeTimeout: Duration = .seconds(10)

    /// Profile locations (config home, state home, profile) whose sessions are kept. Past it
    /// the least recently used one without a `watch` stream is dropped (its thread, pipe and
    /// inotify instance go with it); it is restored from its store when asked for again,
    /// without the access token only memory held (the next request refreshes).
    static let maximumSessions = 32
}
