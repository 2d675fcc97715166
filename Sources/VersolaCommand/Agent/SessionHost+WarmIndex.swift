import Versola

extension SessionHost {
    /// The sessions a warm `token` may use without entering the host (each with the
    /// generation of the profile file it was confirmed for) and when each location was last
    /// asked for, to drop the least recently used. Kept behind a lock.
    struct WarmIndex: Sendable {
        /// The session of each location, and the profile generation its settings were read at.
        var warm: [Location: (session: Session, generation: ProfileGeneration)] = [:]
        private var uses: UInt64 = 0
        private var lastUse: [Location: UInt64] = [:]

        /// Notes a use of `location`.
        mutating func touch(_ location: Location) {
            uses += 1
            lastUse[location] = uses
        }

        /// The session confirmed for `location` at `generation` (and notes the use); nil when
        /// none, or the profile changed since.
        mutating func warmSession(at location: Location, generation: ProfileGeneration) -> Session? {
            guard let entry = warm[location], entry.generation == generation else { return nil }
            touch(location)
            return entry.session
        }

        /// The one of `locations` asked for longest ago.
        func leastRecentlyUsed(of locations: some Sequence<Location>) -> Location? {
            locations.min { lastUse[$0, default: 0] < lastUse[$1, default: 0] }
        }

        /// Forgets a dropped location.
        mutating func forget(_ location: Location) {
            warm[location] = nil
            lastUse[location] = nil
        }
    }
}
