/// What the decider knows: the timelines and events that exist after the facts so far.
package struct DomainState: Hashable, Sendable {
    /// The timelines that exist, by id.
    package private(set) var timelines: [TimelineID: Timeline] = [:]
    /// The events that exist, by id.
    package private(set) var events: [EventID: Event] = [:]
    /// The ids of each timeline's events, so removing a timeline costs its events, not all.
    private var eventsByTimeline: [TimelineID: Set<EventID>] = [:]

    /// The state before any fact.
    package init() {}

    /// A state holding these timelines and events (as restored from a checkpoint).
    ///
    /// Events whose timeline is not among `timelines` are left out.
    /// - Complexity: O(*t* + *e*).
    package init(timelines: [Timeline], events: [Event]) {
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
    package mutating func apply(_ fact: Fact) {
        switch fact {
        case .timelineCreated(let id, let name):
            timelines[id] = Timeline(id: id, name: name)
            eventsByTimeline[id, default: []] = []
        case .timelineRenamed(let id, let name):
            timelines[id]?.name = name
        case .timelineRemoved(let id):
            timelines[id] = nil
        default:
            break
        }
        switch fact.eventEffect {
        case .none:
            break
        case .removeEvents(let timeline):
            for event in eventsByTimeline.removeValue(forKey: timeline) ?? [] {
                events[event] = nil
            }
        case .add(let event):
            if let old = events.updateValue(event, forKey: event.id), old.timeline != event.timeline {
                eventsByTimeline[old.timeline]?.remove(event.id)
            }
            eventsByTimeline[event.timeline, default: []].insert(event.id)
        case .remove(let id):
            if let old = events.removeValue(forKey: id) {
                eventsByTimeline[old.timeline]?.remove(id)
            }
        case .update(let id, let update):
            // One lookup, the event changed in its slot (no second hash, no copy kept).
            guard let index = events.index(forKey: id) else { return }
            let old = events.values[index].timeline
            events.values[index] = events.values[index].updated(by: update)
            if case .timeline(let new) = update, new != old {
                eventsByTimeline[old]?.remove(id)
                eventsByTimeline[new, default: []].insert(id)
            }
        }
    }

    /// The ids of the events in a timeline, in no particular order.
    package func eventIDs(in timeline: TimelineID) -> Set<EventID> {
        eventsByTimeline[timeline] ?? []
    }
}
