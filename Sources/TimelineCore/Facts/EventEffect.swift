/// What a fact does to the events: the one statement of each fact's meaning for events,
/// which every fold applies in its own storage (``DomainState``, the decider's pending
/// overlay, a projection's event table).
@usableFromInline
package enum EventEffect: Sendable {
    /// No event changes (a timeline is created or renamed).
    case none
    /// Every event of the timeline goes with it.
    case removeEvents(of: TimelineID)
    /// The event is created with this value, replacing any event with its id.
    case add(Event)
    /// The event with this id, if it exists, is removed.
    case remove(EventID)
    /// The event with this id, if it exists, changes.
    case update(EventID, EventUpdate)
}

/// A change to an event that keeps it in existence.
@usableFromInline
package enum EventUpdate: Sendable {
    /// A new title.
    case title(String)
    /// New dates.
    case dates(EventDates)
    /// The dates become a range from the event's first date to this end (`nil`: open).
    case end(DateValue?)
    /// Another timeline.
    case timeline(TimelineID)
}

extension Fact {
    /// What this fact does to the events.
    @inlinable
    package var eventEffect: EventEffect {
        switch self {
        case .timelineCreated, .timelineRenamed, .commandRejected: .none
        case .timelineRemoved(let timeline): .removeEvents(of: timeline)
        case .eventAdded(let id, let timeline, let title, let date):
            .add(Event(id: id, timeline: timeline, title: title, dates: .single(date)))
        case .eventRemoved(let id): .remove(id)
        case .eventRetitled(let id, let title): .update(id, .title(title))
        case .dateSet(let id, let date): .update(id, .dates(.single(date)))
        case .rangeSet(let id, let start, let end): .update(id, .dates(.range(start: start, end: end)))
        case .rangeClosed(let id, let end): .update(id, .end(end))
        case .rangeReopened(let id): .update(id, .end(nil))
        case .eventMoved(let id, let timeline): .update(id, .timeline(timeline))
        }
    }
}

/// A value of an event that a fold keeps: ``Event``, or a fold's own packed form of one.
@usableFromInline
package protocol EventValue {
    /// The event's timeline.
    var timeline: TimelineID { get }
    /// The first date: the single date, or the range's start.
    var startDate: DateValue { get }
    /// The event with another title.
    func with(title: String) -> Self
    /// The event with other dates.
    func with(dates: EventDates) -> Self
    /// The event in another timeline.
    func with(timeline: TimelineID) -> Self
}

extension EventValue {
    /// The event after `update`.
    @inlinable
    package func updated(by update: EventUpdate) -> Self {
        switch update {
        case .title(let title): with(title: title)
        case .dates(let dates): with(dates: dates)
        case .end(let end): with(dates: .range(start: startDate, end: end))
        case .timeline(let timeline): with(timeline: timeline)
        }
    }
}

extension Event: EventValue {
    /// The first date: the single date, or the range's start.
    @usableFromInline package var startDate: DateValue { dates.start }

    /// The event with another title.
    @usableFromInline package func with(title: String) -> Event {
        var event = self
        event.title = title
        return event
    }

    /// The event with other dates.
    @usableFromInline package func with(dates: EventDates) -> Event {
        var event = self
        event.dates = dates
        return event
    }

    /// The event in another timeline.
    @usableFromInline package func with(timeline: TimelineID) -> Event {
        var event = self
        event.timeline = timeline
        return event
    }
}
