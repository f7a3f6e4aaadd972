import TimelineCore

/// A row as the ordered index stores it: its sort instant, its kind and its event's snapshot.
///
/// Three words; the public ``Row`` is made from it on demand.
struct RowEntry: OrderedIndexElement, Sendable {
    /// The date's instant; for an ongoing row, its range's start instant.
    var instant: Int64
    /// The event the row belongs to, as it was when the row was made.
    var event: EventSnapshot
    /// What the row stands for.
    var kind: RowKind
    /// Whether the row is an ongoing row that sorts at "now" (its start is not after now).
    var isMarked: Bool

    init(event: EventSnapshot, kind: RowKind, now: Int64, placement: OngoingPlacement) {
        self.event = event
        self.kind = kind
        switch kind {
        case .single, .start, .ongoing: self.instant = event.dates.start.instant.microsecondsSinceEpoch
        case .end:
            if case .range(_, let end?) = event.dates {
                self.instant = end.instant.microsecondsSinceEpoch
            } else {
                self.instant = event.dates.start.instant.microsecondsSinceEpoch
            }
        }
        self.isMarked = kind == .ongoing && placement == .now && instant <= now
    }

    var id: RowID { RowID(event: event.id, role: kind.role) }

    var row: Row {
        let date: DateValue? = switch kind {
        case .single, .start: event.dates.start
        case .end: if case .range(_, let end?) = event.dates { end } else { nil }
        case .ongoing: nil
        }
        return Row(id: id, kind: kind, timeline: event.timeline, title: event.title, date: date)
    }
}
