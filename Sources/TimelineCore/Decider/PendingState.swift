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
    /// The pending events that were put in each timeline (added or moved there), perhaps
    /// moved out or removed since: removing a timeline checks only these, so a batch costs
    /// O(*k*) for its *k* facts, never a walk of every pending event per removal.
    private var pendingByTimeline: [TimelineID: [EventID]] = [:]

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
        default:
            break
        }
        switch fact.eventEffect {
        case .none:
            break
        case .removeEvents(let timeline):
            // The base's events of the timeline are hidden by `removedTimelines`.
            for id in pendingByTimeline.removeValue(forKey: timeline) ?? [] where events[id]??.timeline == timeline {
                events[id] = .some(nil)
            }
        case .add(let event):
            events[event.id] = .some(event)
            pendingByTimeline[event.timeline, default: []].append(event.id)
        case .remove(let id):
            events[id] = .some(nil)
        case .update(let id, let update):
            guard let event = event(id) else { break }
            let updated = event.updated(by: update)
            events[id] = .some(updated)
            pendingByTimeline[updated.timeline, default: []].append(id)
        }
    }
}
