/// What the decider knows: the timelines and events that exist after the facts so far.
public struct DomainState: Hashable, Sendable {
    /// The timelines that exist, by id.
    public private(set) var timelines: [TimelineID: Timeline] = [:]
    /// The events that exist, by id.
    public private(set) var events: [EventID: Event] = [:]
    /// The ids of each timeline's events, so removing a timeline costs its events, not all.
    private var eventsByTimeline: [TimelineID: Set<EventID>] = [:]

    /// The state before any fact.
    public init() {}

    /// A state holding these timelines and events (as restored from a checkpoint).
    ///
    /// Events whose timeline is not among `timelines` are left out.
    /// - Complexity: O(*t* + *e*).
    public init(timelines: [Timeline], events: [Event]) {
        // Every table is sized before it is filled: growing a table of a million ids
        // rehashes every id several times.
        var counts: [TimelineID: Int] = [:]
        for timeline in timelines {
            self.timelines[timeline.id] = timeline
            counts[timeline.id] = 0
        }
        for event in events { counts[event.timeline]? += 1 }
        for (id, count) in counts { eventsByTimeline[id] = Set(minimumCapacity: count) }
        self.events.reserveCapacity(events.count)
        for event in events where counts[event.timeline] != nil {
            self.events[event.id] = event
            eventsByTimeline[event.timeline, default: []].insert(event.id)
        }
    }

    /// Applies a fact the decider accepted (see ``Decider/check(_:in:)``).
    ///
    /// A fact that breaks the rules is applied as far as it makes sense, never trapping;
    /// callers check first.
    /// - Complexity: O(1) amortised, O(*k*) for removing a timeline with *k* events.
    public mutating func apply(_ fact: Fact) {
        switch fact {
        case .timelineCreated(let id, let name):
            timelines[id] = Timeline(id: id, name: name)
            eventsByTimeline[id, default: []] = []
        case .timelineRenamed(let id, let name):
            timelines[id]?.name = name
        case .timelineRemoved(let id):
            timelines[id] = nil
            for event in eventsByTimeline.removeValue(forKey: id) ?? [] {
                events[event] = nil
            }
        case .eventAdded(let id, let timeline, let title, let date):
            events[id] = Event(id: id, timeline: timeline, title: title, dates: .single(date))
            eventsByTimeline[timeline, default: []].insert(id)
        case .eventRetitled(let id, let title):
            events[id]?.title = title
        case .dateSet(let id, let date):
            events[id]?.dates = .single(date)
        case .rangeSet(let id, let start, let end):
            events[id]?.dates = .range(start: start, end: end)
        case .rangeClosed(let id, let end):
            if let start = events[id]?.dates.start { events[id]?.dates = .range(start: start, end: end) }
        case .rangeReopened(let id):
            if let start = events[id]?.dates.start { events[id]?.dates = .range(start: start, end: nil) }
        case .eventMoved(let id, let timeline):
            guard let old = events[id]?.timeline, old != timeline else { return }
            eventsByTimeline[old]?.remove(id)
            eventsByTimeline[timeline, default: []].insert(id)
            events[id]?.timeline = timeline
        case .eventRemoved(let id):
            if let old = events.removeValue(forKey: id) {
                eventsByTimeline[old.timeline]?.remove(id)
            }
        }
    }

    /// The ids of the events in a timeline, in no particular order.
    public func eventIDs(in timeline: TimelineID) -> Set<EventID> {
        eventsByTimeline[timeline] ?? []
    }
}
