import Foundation

/// Collects and prints benchmark figures, one line each, as `name: value unit`.
struct BenchReport {
    /// Seconds each rate measurement runs for (after a short warm-up).
    var seconds: Double

    /// Runs `body` repeatedly for `seconds` and prints its rate per second.
    /// `body` returns a value that is kept alive so the work cannot be optimised away.
    @discardableResult
    func rate(_ name: String, _ body: () throws -> Int) rethrows -> Double {
        var sink = 0
        for _ in 0..<16 { sink &+= try body() }
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        var iterations = 0
        var now = start
        repeat {
            for _ in 0..<32 { sink &+= try body() }
            iterations += 32
            now = DispatchTime.now().uptimeNanoseconds
        } while now < deadline
        let perSecond = Double(iterations) / (Double(now - start) / 1e9)
        print(name, perSecond, unit: "ops/s")
        blackHole(sink)
        return perSecond
    }

    /// Prints one figure.
    func print(_ name: String, _ value: Double, unit: String) {
        let text = value >= 100 ? String(format: "%.0f", value) : String(format: "%.3f", value)
        Swift.print("\(name): \(text) \(unit)")
        fflush(nil)
    }
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
