import VersolaHTTP
import VersolaJOSE

/// `versola -v`: every HTTP attempt of this process as a line on standard error (a JSON
/// object per line with `--json`). Only what ``ExchangeTrace`` keeps is shown: no header, no
/// body, no query value, so no token, code or verifier.
enum ExchangeReport {
    static func install(console: any Console, json: Bool) {
        ExchangeTracing.install { trace in console.err(text(trace, json: json)) }
    }

    static func text(_ trace: ExchangeTrace, json: Bool) -> String {
        guard json else { return "versola: " + TerminalText.visible(trace.line) + "\n" }
        var exchange: JSONObject = [
            "kind": .string(trace.kind.rawValue), "attempt": .integer(Int64(trace.attempt)),
            "method": .string(trace.method), "url": .string(trace.target), "outcome": .string(trace.outcome),
            "ms": .integer(Int64(ErrorReport.milliseconds(trace.duration))),
        ]
        if let wait = trace.repeatsAfter { exchange["repeatsAfterMs"] = .integer(Int64(ErrorReport.milliseconds(wait))) }
        let line: JSONValue = ["exchange": .object(exchange)]
        return line.serialized() + "\n"
    }
}
