// The two actors HTTPServerTests coordinates its handlers and accept hooks with.

@testable import VersolaHTTP

/// Releases every waiter once `count` of them have arrived: handlers that await it can
/// only finish if they all run at the same time.
actor ArrivalGate {
    private let count: Int
    private var arrived = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { self.count = count }

    func arriveAndWait() async {
        arrived += 1
        if arrived >= count {
            for waiter in waiters { waiter.resume() }
            waiters = []
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }
}

/// Hands out planned accept decisions in order and records every peer it saw.
actor ArrivalLog {
    private var planned: [HTTPServerAcceptDecision] = []
    private(set) var peers: [HTTPServerPeer] = []

    func plan(_ decisions: [HTTPServerAcceptDecision]) { planned = decisions }

    func next(_ peer: HTTPServerPeer) -> HTTPServerAcceptDecision {
        peers.append(peer)
        return planned.isEmpty ? .serve : planned.removeFirst()
    }
}
