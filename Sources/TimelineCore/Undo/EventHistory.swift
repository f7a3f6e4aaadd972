/// Every record that touched one event, oldest first: a fold over the records of a log.
///
/// A record touches the event when one of its facts names it, or removes the timeline the
/// event is in at that moment (section 11 of the design). An id removed and added again
/// shows both lives: each `eventAdded` of it starts one.
package struct EventHistory: Sendable {
    /// The event whose history this is.
    package let event: EventID
    /// The records that touched the event so far, oldest first.
    package private(set) var records: [Record] = []
    /// The event's timeline after the records added so far, or `nil` while it does not exist.
    private var timeline: TimelineID?

    /// An empty history of `event`, before any record.
    package init(event: EventID) { self.event = event }

    /// Adds the next record of the log: kept when it touches the event.
    /// - Complexity: O(*f*) for a record of *f* facts.
    package mutating func add(_ record: Record) {
        var touched = false
        for fact in record.facts {
            if fact.event == event {
                touched = true
                switch fact {
                case .eventAdded(_, let timeline, _, _), .eventMoved(_, let timeline): self.timeline = timeline
                case .eventRemoved: timeline = nil
                default: break
                }
            } else if case .timelineRemoved(let removed) = fact, removed == timeline {
                touched = true
                timeline = nil
            }
        }
        if touched { records.append(record) }
    }

    /// Adds the next records of the log, in order.
    /// - Complexity: O(*n*) for *n* facts.
    package mutating func add<S: Sequence<Record>>(contentsOf records: S) {
        for record in records { add(record) }
    }

    /// The history of `event` in `records`, the records of a log in order.
    /// - Complexity: O(*n*) for *n* facts.
    package static func of<S: Sequence<Record>>(_ event: EventID, in records: S) -> [Record] {
        var history = EventHistory(event: event)
        history.add(contentsOf: records)
        return history.records
    }
}
