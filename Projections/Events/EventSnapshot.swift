import TimelineCore

/// An immutable copy of an event, shared by all of its rows in every view.
///
/// Rows refer to the snapshot instead of copying titles and ids, so a row in the index is
/// a few words; a change to the event makes a new snapshot, and rows handed out earlier
/// keep the old one. The class is immutable (`let` properties of `Sendable` types only),
/// which makes it `Sendable`.
final class EventSnapshot: Sendable {
    let id: EventID
    let timeline: TimelineID
    let title: String
    let dates: EventDates

    init(id: EventID, timeline: TimelineID, title: String, dates: EventDates) {
        self.id = id
        self.timeline = timeline
        self.title = title
        self.dates = dates
    }

    func with(timeline: TimelineID? = nil, title: String? = nil, dates: EventDates? = nil) -> EventSnapshot {
        EventSnapshot(id: id, timeline: timeline ?? self.timeline, title: title ?? self.title, dates: dates ?? self.dates)
    }

    /// The event as the domain sees it.
    var event: Event { Event(id: id, timeline: timeline, title: title, dates: dates) }

    /// The kind of the event's first row: `single` for one date, `start` for a range.
    var firstRowKind: RowKind {
        if case .single = dates { .single } else { .start }
    }

    /// The kind of the event's second row: `ongoing` or `end` for a range, `nil` for one date.
    var secondRowKind: RowKind? {
        switch dates {
        case .single: nil
        case .range(_, nil): .ongoing
        case .range(_, .some): .end
        }
    }
}
