import Foundation
import Synchronization

/// One HTTP attempt as `versola -v` shows it: what was sent where, what came back, how long it
/// took and what the retry rules decided. It holds no secret: the URL keeps its scheme, host,
/// port and path, and of the query only the parameter names; no header or body is kept.
package struct ExchangeTrace: Sendable, Hashable {
    /// What the request was for (`read`, `codeExchange`, `refresh`, `application`).
    package var kind: OperationKind
    /// 1 for the first attempt of the request.
    package var attempt: Int
    /// The method.
    package var method: String
    /// The URL without query values, fragment or user information.
    package var target: String
    /// `200`, or the transport's failure (`timedOut`, `couldNotConnect`, …).
    package var outcome: String
    /// How long the attempt took.
    package var duration: Duration
    /// What happens next: `repeated after 1.2 s`, or nil when this attempt ends the request.
    package var repeatsAfter: Duration?

    /// `POST https://idp.example/token → 200 (35 ms, refresh)` and, when repeated, the wait.
    package var line: String {
        var text = "\(method) \(target) → \(outcome) (\(duration.wholeMilliseconds) ms, \(kind.rawValue)"
        if attempt > 1 { text += ", attempt \(attempt)" }
        text += ")"
        if let repeatsAfter {
            let seconds = Double(repeatsAfter.components.seconds) + Double(repeatsAfter.components.attoseconds) / 1e18
            text += String(format: "; repeated after %.1f s", seconds)
        }
        return text
    }

    /// `url` with nothing secret left: query values, fragment and user information dropped.
    package static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(unreadable URL)" }
        components.user = nil
        components.password = nil
        components.fragment = nil
        let names = components.queryItems?.map(\.name) ?? []
        components.query = nil
        var text = components.string ?? "(unreadable URL)"
        if !names.isEmpty { text += "?" + names.map { "\($0)=…" }.joined(separator: "&") }
        return text
    }
}

/// Where the attempts of this process are reported, when something asked to see them (the
/// command's `-v`). Off by default; reporting costs nothing then.
package enum ExchangeTracing {
    private static let sink = Mutex<(@Sendable (ExchangeTrace) -> Void)?>(nil)

    /// Sends every later attempt's trace to `report`.
    package static func install(_ report: @escaping @Sendable (ExchangeTrace) -> Void) {
        sink.withLock { $0 = report }
    }

    /// Whether anyone listens.
    static var isOn: Bool { sink.withLock { $0 != nil } }

    static func emit(_ trace: ExchangeTrace) {
        let report = sink.withLock { $0 }
        report?(trace)
    }
}
