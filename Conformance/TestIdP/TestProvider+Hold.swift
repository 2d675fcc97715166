import Foundation

extension TestProvider {
    /// Lets every request a `holdUntilReleased` fault holds go on.
    public func releaseHeld() {
        let waiting = heldRequests
        heldRequests = []
        for request in waiting { request.resume() }
    }

    /// Waits until ``releaseHeld()``, or a minute at most, so that a scenario that fails
    /// before releasing never leaves a request hanging.
    func hold() async {
        let limit = Task { [weak self] in
            try? await Task.sleep(for: .seconds(60))
            if !Task.isCancelled { await self?.releaseHeld() }
        }
        await withCheckedContinuation { heldRequests.append($0) }
        limit.cancel()
    }
}
