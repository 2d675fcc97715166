import VersolaHTTP

/// What carrying out a machine's actions came to, for the operation that applied the event:
/// every action acts in ``Session``'s one executor, and what an operation needs to go on with
/// (the end-session page's fate, the device request to resume) comes back here, so that no
/// operation looks through an action list itself.
struct SessionEffects: Sendable {
    /// What became of the provider's end-session page (A15), when the actions opened it.
    var endSession: EndSessionOutcome?
    /// The restored device request a device login polls for (P2, A14); nil when it asks the
    /// provider for a new code.
    var resumedDevice: PendingDeviceAuthorization?

    /// What the refresh step that answers or fails came to, for the sequence's next event.
    var refreshEvent: RefreshEvent?
    /// How this process's refresh ended, once its sequence is over (P10: with a rotated token
    /// that arrived before a failure).
    var refreshEnded: (result: Result<Grant, VersolaError>, kept: String?)?

    /// These effects with `later`'s after them.
    mutating func add(_ later: SessionEffects) {
        endSession = later.endSession ?? endSession
        resumedDevice = later.resumedDevice ?? resumedDevice
    }
}
