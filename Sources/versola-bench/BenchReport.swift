import Foundation

/// Collects and prints benchmark figures, one line each, as `name: value unit`.
struct BenchReport {
    /// Seconds each rate measurement runs for (after a short warm-up).
    var seconds: Double

    /// Runs `body` repeatedly for `seconds` of this thread's CPU time and prints its rate per
    /// CPU second. `openssl speed` divides by user CPU time too, so the ratios the targets use
    /// compare like with like even on a machine busy with other work. `body` returns a value
    /// that is kept alive so the work cannot be optimised away.
    @discardableResult
    func rate(_ name: String, _ body: () throws -> Int) rethrows -> Double {
        var sink = 0
        for _ in 0..<16 { sink &+= try body() }
        let start = threadCPUSeconds()
        var iterations = 0
        var now = start
        repeat {
            for _ in 0..<32 { sink &+= try body() }
            iterations += 32
            now = threadCPUSeconds()
        } while now - start < seconds
        let perSecond = Double(iterations) / (now - start)
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

/// The CPU time the calling thread has used, in seconds.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The CPU time the whole process has used, in seconds.
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
