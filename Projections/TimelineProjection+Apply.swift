import TimelineCore

extension TimelineProjection {
    /// Applies a batch of records and returns the change sets: at most one per view, and
    /// one for the summaries if they changed.
    /// - Complexity: O(*k* log *n*) for *k* rows touched.
    @discardableResult
    package mutating func apply<C: Collection>(_ records: C) -> ProjectionChanges where C.Element == Record {
        // An array is applied through its buffer, not a generic collection from another module.
        if let changes = records.withContiguousStorageIfAvailable({ apply(contiguous: $0) }) { return changes }
        return Array(records).withUnsafeBufferPointer { apply(contiguous: $0) }
    }

    /// The events and summaries first, noting each touched event's snapshot from before
    /// the batch and its last; then each row set takes those events in one batch of its
    /// own (``RowSet/apply(_:of:now:large:to:resetThreshold:into:)``). An event's rows go
    /// from before the batch to after it, whatever happened between, so the change sets
    /// are those of applying the facts one by one.
    private mutating func apply(contiguous records: UnsafeBufferPointer<Record>) -> ProjectionChanges {
        guard !records.isEmpty else { return ProjectionChanges() }
        let nowValue = now.microsecondsSinceEpoch
        summaries.beginBatch()
        var touched = TouchedEvents()
        var removesTimeline = false
        for record in records {
            for fact in record.facts {
                switch fact {
                case .timelineCreated, .timelineRenamed:
                    summaries.apply(timelineFact: fact)
                case .timelineRemoved(let timeline):
                    summaries.apply(timelineFact: fact)
                    removesTimeline = true
                    for old in events.removeEvents(of: timeline) { touched.note(old: old, new: nil) }
                default:
                    guard let change = events.apply(fact) else { continue }
                    summaries.replace(change.old, with: change.new)
                    touched.note(old: change.old, new: change.new)
                }
            }
            position = record.position
        }
        var changes = ProjectionChanges()
        // Room for every view, so that the list is allocated once.
        changes.rows.reserveCapacity(viewIndex.count)
        // A batch of a few events tracks its operations; a larger one, or one that may
        // touch many rows (a removed timeline), keeps a copy of each row set's old rows.
        let large = touched.events.count > 8 || removesTimeline
        // A set of rows that many touched events sort afresh from every event.
        if touched.events.count > resetThreshold, !rowSets.isEmpty { events.loadAll() }
        for i in rowSets.indices {
            rowSets[i].apply(touched.events, of: events, now: nowValue, large: large, to: position,
                             resetThreshold: resetThreshold, into: &changes.rows)
        }
        changes.summaries = summaries.endBatch(to: position)
        return changes
    }

    /// Applies one record; see ``apply(_:)-(C)``.
    @discardableResult
    package mutating func apply(_ record: Record) -> ProjectionChanges {
        withUnsafePointer(to: record) { apply(contiguous: UnsafeBufferPointer(start: $0, count: 1)) }
    }
}

/// The change sets one batch of records (or one clock change) produced.
package struct ProjectionChanges: Sendable {
    /// One change set per view that changed.
    package var rows: [ChangeSet] = []
    /// The summaries' change set, if any summary changed.
    package var summaries: SummaryChangeSet?

    /// Whether nothing changed.
    package var isEmpty: Bool { rows.isEmpty && summaries == nil }

    /// The change set of one view, if it changed.
    package func changeSet(for view: ViewDefinition) -> ChangeSet? {
        rows.first { $0.view == view }
    }
}
