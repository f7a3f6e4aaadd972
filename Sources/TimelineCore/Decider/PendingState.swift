/// The state a batch of commands is decided against: the current state plus the facts the
/// batch has decided so far, kept apart so the current state is never copied.
///
/// Copying a `DomainState` to try facts on it would copy its dictionaries, O(*n*) in the
/// number of events, on every command; this overlay costs O(*k*) for *k* facts.
struct PendingState<Base: DomainLookup>: DomainLookup {
    let base: Base
    private var timelines: [TimelineID: Timeline?] = [:]
    private var events: [EventID: Event?] = [:]
    /// Timelines removed by the batch: their events in `base` are gone too.
    private var removedTimelines: Set<TimelineID> = []

    init(base: Base) { self.base = base }

    func timeline(_ id: TimelineID) -> Timeline? {
        if let pending = timelines[id] { return pending }
        return removedTimelines.contains(id) ? nil : base.timeline(id)
    }

    func event(_ id: EventID) -> Event? {
        if let pending = events[id] { return pending }
        guard let event = base.event(id), !removedTimelines.contains(event.timeline) else { return nil }
        return event
    }

    func eventTimeline(_ id: EventID) -> TimelineID? {
        if let pending = events[id] { return pending?.timeline }
        guard let timeline = base.eventTimeline(id), !removedTimelines.contains(timeline) else { return nil }
        return timeline
    }

    func eventDates(_ id: EventID) -> EventDates? {
        if let pending = events[id] { return pending?.dates }
        if !removedTimelines.isEmpty {
            guard let timeline = base.eventTimeline(id), !removedTimelines.contains(timeline) else { return nil }
        }
        return base.eventDates(id)
    }

    mutating func apply(_ fact: Fact) {
        switch fact {
        case .timelineCreated(let id, let name):
            timelines[id] = .some(Timeline(id: id, name: name))
        case .timelineRenamed(let id, let name):
            if var timeline = timeline(id) {
                timeline.name = name
                timelines[id] = .some(timeline)
            }
        case .timelineRemoved(let id):
            timelines[id] = .some(nil)
            removedTimelines.insert(id)
            for (eventID, event) in events where event?.timeline == id { events[eventID] = .some(nil) }
        case .eventAdded(let id, let timeline, let title, let date):
            events[id] = .some(Event(id: id, timeline: timeline, title: title, dates: .single(date)))
        case .eventRemoved(let id):
            events[id] = .some(nil)
        default:
            guard let id = fact.event, var event = event(id) else { return }
            event.apply(fact)
            events[id] = .some(event)
        }
    }
}

/// Read access to the timelines and events that exist: what the decider checks commands
/// and facts against.
///
/// ``DomainState`` is one; a store decides against its projection, which holds the same
/// timelines and events, so that they are kept once.
public protocol DomainLookup {
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
    public func eventTimeline(_ id: EventID) -> TimelineID? { event(id)?.timeline }
    /// The dates of the event with this id, read from ``event(_:)``.
    public func eventDates(_ id: EventID) -> EventDates? { event(id)?.dates }
}

extension DomainState: DomainLookup {
    /// The timeline with this id, if it exists.
    /// - Complexity: O(1) on average.
    public func timeline(_ id: TimelineID) -> Timeline? { timelines[id] }
    /// The event with this id, if it exists.
    /// - Complexity: O(1) on average.
    public func event(_ id: EventID) -> Event? { events[id] }
}

extension Event {
    /// Applies a fact about this event that keeps it in existence.
    mutating func apply(_ fact: Fact) {
        switch fact {
        case .eventRetitled(_, let title): self.title = title
        case .dateSet(_, let date): dates = .single(date)
        case .rangeSet(_, let start, let end): dates = .range(start: start, end: end)
        case .rangeClosed(_, let end): dates = .range(start: dates.start, end: end)
        case .rangeReopened: dates = .range(start: dates.start, end: nil)
        case .eventMoved(_, let timeline): self.timeline = timeline
        default: break
        }
    }
}
