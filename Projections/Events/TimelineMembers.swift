import TimelineCore

/// The events each timeline holds, for removing a timeline with its events.
///
/// Each timeline keeps the keys of the events added to it or moved into it: the key its
/// shard's table stores for the id (``SnapshotTable/key(for:)``, 31 bits of its hash), which
/// find the event's probe run, appended without hashing again: O(1) an event, where a set
/// of ids per timeline would hash each id, and 4 bytes an event, where an id takes 16. A
/// key whose event has since left — removed, or moved away — stays in the list until the
/// list is compacted, and other events may share a key, so a list's keys are candidates,
/// checked against the events when the timeline is removed.
struct TimelineMembers: Sendable {
    private struct List: Sendable {
        var keys: [UInt32] = []
        /// How many events left the timeline since the list was last compacted: at most
        /// that many of its keys are stale.
        var departures = 0

        /// Counts a departure; keeps only the keys of members, once each, when half of
        /// the keys may be stale.
        mutating func noteDeparture(isMember: (UInt32) -> Bool) {
            departures += 1
            guard keys.count > TimelineMembers.compactionFloor, departures * 2 > keys.count else { return }
            var seen = Set<UInt32>(minimumCapacity: keys.count - departures)
            keys = keys.filter { seen.insert($0).inserted && isMember($0) }
            departures = 0
        }
    }

    private var lists: [TimelineID: List] = [:]

    /// Below this many keys a list is never compacted.
    static let compactionFloor = 64

    init() {}

    /// The members of timelines whose events are already grouped (as a checkpoint holds them).
    init(lists: [TimelineID: [UInt32]]) {
        self.lists = lists.mapValues { List(keys: $0) }
    }

    /// Notes that the event with this key is now in `timeline` (added, or moved into it).
    /// - Complexity: O(1) amortised.
    mutating func add(_ key: UInt32, to timeline: TimelineID) {
        lists[timeline, default: List()].keys.append(key)
    }

    /// Notes that an event left `timeline` (removed, or moved away); when half of the list
    /// may be stale, keeps only the keys that `isMember` says an event in the timeline
    /// has, once each.
    /// - Complexity: O(1) amortised: a compaction of *k* keys follows *k* / 2 departures.
    mutating func noteDeparture(from timeline: TimelineID, isMember: (UInt32) -> Bool) {
        // One lookup, the list changed in place: the timeline's id is hashed once, not
        // twice as reading the list out and storing it back would.
        guard let index = lists.index(forKey: timeline) else { return }
        lists.values[index].noteDeparture(isMember: isMember)
    }

    /// Takes the list of `timeline` out: the events it holds have keys among these.
    mutating func removeAll(of timeline: TimelineID) -> [UInt32] {
        lists.removeValue(forKey: timeline)?.keys ?? []
    }

    /// How many keys the list of `timeline` holds, stale ones included (for tests).
    func candidateCount(of timeline: TimelineID) -> Int { lists[timeline]?.keys.count ?? 0 }
}
