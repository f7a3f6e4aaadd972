import TimelineCore

extension TimelineProjection: DomainLookup {
    /// The timeline with this id, if it exists: the decider checks commands against the
    /// projection, which holds the same timelines and events as a ``DomainState``.
    /// - Complexity: O(1) on average.
    package func timeline(_ id: TimelineID) -> Timeline? {
        summaries.timelines[id].map { Timeline(id: id, name: $0.name) }
    }

    /// The event with this id, if it exists.
    /// - Complexity: O(1) on average.
    package func event(_ id: EventID) -> Event? { events[id]?.event }

    /// The timeline of the event with this id, if it exists, without making its title.
    /// - Complexity: O(1) on average.
    package func eventTimeline(_ id: EventID) -> TimelineID? { events[id]?.timeline }

    /// The dates of the event with this id, if it exists, without making its title.
    /// - Complexity: O(1) on average.
    package func eventDates(_ id: EventID) -> EventDates? { events[id]?.dates }

    /// The events of `timeline` (every event for `nil`), ordered by id as UTF-8 bytes.
    /// - Complexity: O(*n* + *k* log *k*) for *n* events, *k* of them returned.
    package func events(in timeline: TimelineID?) -> [Event] {
        var found: [Event] = []
        events.forEachSnapshot { _, snapshot in
            if timeline == nil || snapshot.timeline == timeline! { found.append(snapshot.event) }
        }
        found.sort { $0.id.precedesInUTF8($1.id) }
        return found
    }
}

extension TimelineProjection: UndoLookup {
    /// The ids of the events of this timeline, in no particular order: what undoing the
    /// removal of the timeline brings back.
    /// - Complexity: O(1) for an unknown or empty timeline, otherwise O(*n*) for *n* events
    ///   (the projection keeps no list of each timeline's events).
    package func eventIDs(in timeline: TimelineID) -> Set<EventID> {
        guard let count = summaries.timelines[timeline]?.eventCount, count > 0 else { return [] }
        var ids = Set<EventID>(minimumCapacity: count)
        events.forEachSnapshot { _, snapshot in
            if snapshot.timeline == timeline { ids.insert(snapshot.id) }
        }
        return ids
    }
}
