import Synchronization
import Versola

/// Keeps every log event, to check that none carries a secret.
final class RecordingLogSink: VersolaLogSink {
    private let events = Mutex<[VersolaLogEvent]>([])

    func record(_ event: VersolaLogEvent) {
        events.withLock { $0.append(event) }
    }

    var recorded: [VersolaLogEvent] { events.withLock { $0 } }
}
