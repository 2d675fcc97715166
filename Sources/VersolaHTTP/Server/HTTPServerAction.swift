/// What the server does with a request once the handler has seen it.
public enum HTTPServerAction: Sendable, Hashable {
    /// Send this answer. The connection stays open when the request allows it.
    case respond(HTTPServerResponse)
    /// Close the connection without answering (the request was read in full). A client
    /// sees the connection end with no response byte.
    case closeWithoutAnswer
    /// Reset the connection without answering (TCP RST through `SO_LINGER` 0).
    case reset
}

/// What the server does with a fresh connection, decided by the accept hook before any
/// request byte is read (for fault injection).
public enum HTTPServerAcceptDecision: Sendable, Hashable {
    /// Read and serve requests as usual.
    case serve
    /// Close the connection at once, before reading anything.
    case closeBeforeReading
    /// Reset the connection at once (TCP RST), before reading anything.
    case resetBeforeReading
}
