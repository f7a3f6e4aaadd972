import TimelineCore

/// The events each timeline holds, for removing a timeline with its events.
///
/// Each timeline keeps the ids of the events added to it or moved into it, appended
/// without hashing the id: keeping a set per timeline was a quarter of rebuilding the
/// events (callgrind, 200k records: about 800 instructions per insertion into sets of
/// thousands of ids). An id whose event has since left — removed, or moved away — stays
/// in the list until the list is compacted, so a list's ids are candidates, checked
/// against the events when the timeline is removed.
struct TimelineMembers: Sendable {
    private struct List: Sendable {
        var ids: [EventID] = []
        /// How many events left the timeline since the list was last compacted: at most
        /// that many of its ids are stale.
        var departures = 0
    }

    private var lists: [TimelineID: List] = [:]

    /// Below this many ids a list is never compacted.
    static let compactionFloor = 64

    init() {}

    /// The members of timelines whose events are already grouped (as a checkpoint holds them).
    init(lists: [TimelineID: [EventID]]) {
        self.lists = lists.mapValues { List(ids: $0) }
    }

    /// Notes that event `id` is now in `timeline` (added, or moved into it).
    /// - Complexity: O(1) amortised.
    mutating func add(_ id: EventID, to timeline: TimelineID) {
        lists[timeline, default: List()].ids.append(id)
    }

    /// Notes that an event left `timeline` (removed, or moved away); when half of the list
    /// may be stale, keeps only the ids of events that `timelineOf` says are in it, once each.
    /// - Complexity: O(1) amortised: a compaction of *k* ids follows *k* / 2 departures.
    mutating func noteDeparture(from timeline: TimelineID, timelineOf: (EventID) -> TimelineID?) {
        guard var list = lists[timeline] else { return }
        list.departures += 1
        if list.ids.count > Self.compactionFloor, list.departures * 2 > list.ids.count {
            var seen = Set<EventID>(minimumCapacity: list.ids.count - list.departures)
            list.ids = list.ids.filter { timelineOf($0) == timeline && seen.insert($0).inserted }
            list.departures = 0
        }
        lists[timeline] = list
    }

    /// Takes the list of `timeline` out: the events it holds are among these ids.
    mutating func removeAll(of timeline: TimelineID) -> [EventID] {
        lists.removeValue(forKey: timeline)?.ids ?? []
    }

    /// How many ids the list of `timeline` holds, stale ones included (for tests).
    func candidateCount(of timeline: TimelineID) -> Int { lists[timeline]?.ids.count ?? 0 }
}
