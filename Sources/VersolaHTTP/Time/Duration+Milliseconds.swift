extension Duration {
    /// The duration in whole milliseconds, rounded toward zero; `Int64.max` (or `.min`) when
    /// it does not fit.
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (millis, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return millis + attoseconds / 1_000_000_000_000_000
    }
}
