import Synchronization

/// A small pool of idle easy handles, so consecutive requests can reuse kept-alive connections
/// (and TLS sessions) held in a handle's connection cache.
///
/// Each handle is lent to one transfer at a time; a request never waits for a handle: when the
/// pool is empty a new one is made, and handles returned beyond `capacity` are freed.
final class CurlHandlePool: Sendable {
    private let idle = Mutex<[CurlEasyHandle]>([])
    /// The most idle handles kept.
    let capacity: Int

    /// Creates a pool keeping at most `capacity` idle handles.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Lends a handle: the most recently returned one (its connections are the freshest), or a new one.
    func take() -> CurlEasyHandle? {
        if let handle = idle.withLock({ $0.popLast() }) { return handle }
        return CurlEasyHandle()
    }

    /// Returns a handle after its transfer, options cleared, connections kept.
    func giveBack(_ handle: CurlEasyHandle) {
        handle.resetOptions()
        let kept = idle.withLock { handles -> Bool in
            guard handles.count < capacity else { return false }
            handles.append(handle)
            return true
        }
        _ = kept  // a handle not kept is freed when its last reference goes
    }

    /// The number of idle handles, for tests.
    var idleCount: Int { idle.withLock { $0.count } }
}
