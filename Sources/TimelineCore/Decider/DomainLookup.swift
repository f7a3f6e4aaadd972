/// Read access to the timelines and events that exist: what the decider checks commands
/// and facts against.
///
/// ``DomainState`` is one; a store decides against its projection, which holds the same
/// timelines and events, so that they are kept once.
package protocol DomainLookup {
    /// The timeline with this id, if it exists.
    func timeline(_ id: TimelineID) -> Timeline?
    /// The event with this id, if it exists.
    func event(_ id: EventID) -> Event?
    /// The timeline of the event with this id, if the event exists: what most rules ask,
    /// without making the whole event (a projection makes its title on demand).
    func eventTimeline(_ id: EventID) -> TimelineID?
    /// The dates of the event with this id, if the event exists.
    func eventDates(_ id: EventID) -> EventDates?
}

extension DomainLookup {
    /// The timeline of the event with this id, read from ``event(_:)``.
    package func eventTimeline(_ id: EventID) -> TimelineID? { event(id)?.timeline }
    /// The dates of the event with this id, read from ``event(_:)``.
    package func eventDates(_ id: EventID) -> EventDates? { event(id)?.dates }
}

extension DomainState: DomainLookup {
    /// The timeline with this id, if it exists.
    /// - Complexity: O(1) on average.
    package func timeline(_ id: TimelineID) -> Timeline? { timelines[id] }
    /// The event with this id, if it exists.
    /// - Complexity: O(1) on average.
    package func event(_ id: EventID) -> Event? { events[id] }
}
