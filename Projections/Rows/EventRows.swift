import TimelineCore

/// An event's rows in one view, at most two, held without an array (one per command
/// and view would otherwise be allocated).
struct EventRows {
    var first: RowEntry?
    var second: RowEntry?

    /// The rows of `snapshot` in views of `filter` and `placement`, none if the filter
    /// leaves the event out; `idPrefix` is the first eight bytes of its id (``RowOrder/prefix(_:)``).
    init(_ snapshot: EventSnapshot?, idPrefix: UInt64, filter: RowFilter, placement: OngoingPlacement, now: Int64) {
        guard let snapshot, filter.includes(snapshot) else { return }
        first = RowEntry(event: snapshot, kind: snapshot.firstRowKind, now: now, placement: placement, idPrefix: idPrefix)
        second = snapshot.secondRowKind.map {
            RowEntry(event: snapshot, kind: $0, now: now, placement: placement, idPrefix: idPrefix)
        }
    }

    /// Takes out the first row that satisfies `predicate`, if any.
    mutating func take(where predicate: (RowEntry) -> Bool) -> RowEntry? {
        if let entry = first, predicate(entry) {
            first = nil
            return entry
        }
        if let entry = second, predicate(entry) {
            second = nil
            return entry
        }
        return nil
    }
}
