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

    private mutating func apply(contiguous records: UnsafeBufferPointer<Record>) -> ProjectionChanges {
        guard !records.isEmpty else { return ProjectionChanges() }
        if records.reduce(0, { $0 + $1.facts.count }) > resetThreshold { return applyLarge(records) }
        let nowValue = now.microsecondsSinceEpoch
        // A batch of a few records tracks its operations; a larger one, or one that may
        // touch many rows (a removed timeline), keeps a copy of each row set's old rows.
        let large = records.count > 8 || records.contains { record in
            record.facts.contains { if case .timelineRemoved = $0 { true } else { false } }
        }
        for i in rowSets.indices { rowSets[i].beginBatch(now: nowValue, large: large) }
        summaries.beginBatch()
        for record in records {
            for fact in record.facts { applyIncrementally(fact) }
            position = record.position
        }
        var changes = ProjectionChanges()
        // Room for every view, so that the list is allocated once.
        changes.rows.reserveCapacity(viewIndex.count)
        for i in rowSets.indices {
            rowSets[i].endBatch(to: position, now: nowValue, resetThreshold: resetThreshold, into: &changes.rows)
        }
        changes.summaries = summaries.endBatch(to: position)
        return changes
    }

    /// Applies a batch of more facts than ``resetThreshold`` (an import): the events and
    /// summaries first, keeping each touched event's snapshot from before the batch and
    /// its last; then each row set either projects those events, when at most
    /// `resetThreshold` of them are its rows, or is sorted afresh and resets, as a batch
    /// touching that many rows one by one would end. The change sets are those of
    /// applying the facts one by one: each event's rows go from before the batch to after
    /// it, whatever happened between.
    /// - Complexity: O(*k* + *m* log *n*) for *k* facts touching *m* events; O(*n* log *n*)
    ///   for a row set that resets.
    private mutating func applyLarge(_ records: UnsafeBufferPointer<Record>) -> ProjectionChanges {
        let nowValue = now.microsecondsSinceEpoch
        summaries.beginBatch()
        var touched: [EventID: TouchedEvent] = [:]
        func touch(_ old: EventSnapshot?, _ new: EventSnapshot?) {
            guard let id = (new ?? old)?.id else { return }
            touched[id, default: TouchedEvent(old: old)].new = new
        }
        for record in records {
            for fact in record.facts {
                switch fact {
                case .timelineCreated, .timelineRenamed:
                    summaries.apply(timelineFact: fact)
                case .timelineRemoved(let timeline):
                    summaries.apply(timelineFact: fact)
                    for old in events.removeEvents(of: timeline) { touch(old, nil) }
                default:
                    guard let change = events.apply(fact) else { continue }
                    summaries.replace(change.old, with: change.new)
                    touch(change.old, change.new)
                }
            }
            position = record.position
        }
        var changes = ProjectionChanges()
        changes.rows.reserveCapacity(viewIndex.count)
        for i in rowSets.indices {
            let filter = rowSets[i].filter
            let mine = touched.values.filter { event in
                event.old.map(filter.includes) == true || event.new.map(filter.includes) == true
            }
            if mine.count > resetThreshold {
                rowSets[i].resort(events: events, now: nowValue)
                rowSets[i].reset(to: position, now: nowValue, into: &changes.rows)
            } else {
                rowSets[i].beginBatch(now: nowValue, large: true)
                for event in mine {
                    guard let id = (event.new ?? event.old)?.id else { continue }
                    rowSets[i].project(old: event.old, new: event.new, idPrefix: RowOrder.prefix(id.rawValue),
                                       now: nowValue)
                }
                rowSets[i].endBatch(to: position, now: nowValue, resetThreshold: resetThreshold, into: &changes.rows)
            }
        }
        changes.summaries = summaries.endBatch(to: position)
        return changes
    }

    /// An event a large batch touched: its snapshot before the batch and after it.
    private struct TouchedEvent {
        var old: EventSnapshot?
        var new: EventSnapshot?
    }

    /// Applies one record; see ``apply(_:)-(C)``.
    @discardableResult
    package mutating func apply(_ record: Record) -> ProjectionChanges {
        withUnsafePointer(to: record) { apply(contiguous: UnsafeBufferPointer(start: $0, count: 1)) }
    }

    private mutating func applyIncrementally(_ fact: Fact) {
        switch fact {
        case .timelineCreated, .timelineRenamed:
            summaries.apply(timelineFact: fact)
        case .timelineRemoved(let timeline):
            summaries.apply(timelineFact: fact)
            for old in events.removeEvents(of: timeline) { project(old: old, new: nil) }
        default:
            guard let change = events.apply(fact) else { return }
            summaries.replace(change.old, with: change.new)
            project(old: change.old, new: change.new)
        }
    }

    /// Replaces an event's rows in every row set.
    private mutating func project(old: EventSnapshot?, new: EventSnapshot?) {
        let nowValue = now.microsecondsSinceEpoch
        // The old and new snapshots are of one event: one id. Read once, not per row.
        guard let id = (new ?? old)?.id else { return }
        let idPrefix = RowOrder.prefix(id.rawValue)
        for i in rowSets.indices { rowSets[i].project(old: old, new: new, idPrefix: idPrefix, now: nowValue) }
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
