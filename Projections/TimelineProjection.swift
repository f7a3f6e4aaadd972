import Dispatch
import Synchronization
import TimelineCore

/// The date rows of the timelines, kept incrementally for any number of views.
///
/// A pure left fold over records: ``apply(_:)`` takes a batch of records and returns, per
/// view that changed, one ``ChangeSet``; ``advanceClock(to:)`` moves ongoing rows of views
/// that place them at "now". Applying records one by one gives exactly the rows that
/// ``init(records:views:now:)`` builds from scratch.
///
/// Records are assumed to have passed the decider's rules (``Decider/check(_:in:)``);
/// facts about unknown events are ignored rather than trapping.
public struct TimelineProjection: Sendable {
    /// The log position of the last record applied.
    public internal(set) var position: Int64 = 0
    /// "Now", for views that place ongoing rows at now.
    public private(set) var now: Instant

    var events = EventTable()
    /// The rows of the views, one set for each filter and placement, in the order they
    /// were first asked for; `viewIndex` finds a view by definition. (An array, so that a
    /// set is mutated in place: a dictionary's `d[k]!.mutate()` may copy the value out,
    /// which would make every tree node shared and copied.)
    var rowSets: [RowSet] = []
    var viewIndex: [ViewDefinition: ViewLocation] = [:]
    var summaries = SummaryState()

    /// Batches that touch more rows than this give a reset change set instead of indices.
    public var resetThreshold = 10_000

    /// Creates an empty projection that maintains `views`, with "now" from the clock.
    public init(views: [ViewDefinition] = [ViewDefinition()], now: Instant) {
        self.now = now
        for definition in views { addView(definition) }
    }

    /// Builds the projection from records in one pass, sorting each view once.
    ///
    /// The records are assumed to follow the domain rules; see
    /// ``init(validating:views:now:)`` for a log that must be checked.
    /// - Complexity: O(*r* + *n* log *n*) for *r* records and *n* rows.
    public init<S: Sequence>(records: S, views: [ViewDefinition] = [ViewDefinition()], now: Instant)
    where S.Element == Record {
        var loader = Loader(views: views, now: now, validating: false)
        _ = loader.add(records)
        self = loader.finish()
    }

    /// Builds the projection from records in one pass, checking each fact against the
    /// domain rules in the state before it, as the decider would (``Decider/check(_:in:)``).
    ///
    /// Checking needs no state beside the projection's own events and timelines.
    /// - Throws: ``RecordRefusal`` for the first fact the rules refuse.
    /// - Complexity: O(*r* + *n* log *n*) for *r* records and *n* rows.
    public init<S: Sequence>(validating records: S, views: [ViewDefinition] = [ViewDefinition()], now: Instant)
    throws(RecordRefusal) where S.Element == Record {
        var loader = Loader(views: views, now: now, validating: true)
        if let refusal = loader.add(records) { throw refusal }
        self = loader.finish()
    }

    /// Builds a projection from records given a part at a time, so that a log is never held
    /// whole: the records of each part are applied to the events and may be freed; the
    /// views and summaries are built once, by ``finish()``.
    public struct Loader: Sendable {
        private var projection: TimelineProjection
        private var names: [TimelineID: String] = [:]
        private let validating: Bool
        /// The first refusal, after which further records are ignored.
        public private(set) var refusal: RecordRefusal?

        /// A loader for a projection with `views`; `validating` checks every fact against
        /// the domain rules in the state before it.
        public init(views: [ViewDefinition] = [ViewDefinition()], now: Instant, validating: Bool) {
            projection = TimelineProjection(views: views, now: now)
            self.validating = validating
        }

        /// Applies the next records (in log order) to the events; returns the first fact the
        /// rules refuse, if validating, and ignores everything after it.
        ///
        /// Without checks, a part of 4,096 records or more is folded one
        /// thread per shard of the events (each fact touches one event's shard); checked
        /// records are applied in order on the caller's thread.
        /// - Complexity: O(*r*) for *r* records (and the length of their titles) in order;
        ///   O(*r* · *s* / *p*) folded by *s* shards on *p* processors (each shard reads
        ///   every record).
        @discardableResult
        public mutating func add<S: Sequence>(_ records: S) -> RecordRefusal? where S.Element == Record {
            guard refusal == nil else { return refusal }
            // An array (the usual case) is looped over its buffer: looping a sequence of a
            // type from another module goes through a witness table and copies each record.
            if let found = records.withContiguousStorageIfAvailable({ add(contiguous: $0) }) { return found }
            for record in records {
                if let found = add(record) { return found }
            }
            return nil
        }

        private mutating func add(contiguous records: UnsafeBufferPointer<Record>) -> RecordRefusal? {
            // Without checks, a fact about an event touches its shard of the events only:
            // the shards are folded at the same time, and the timelines' names beside them.
            if !validating, records.count >= Self.parallelFoldMinimum {
                names = projection.events.applyInParallel(records) { [names] records in
                    var names = names
                    for record in records {
                        for fact in record.facts where fact.event == nil { Self.note(fact, in: &names) }
                    }
                    return names
                }
                if let last = records.last { projection.position = last.position }
                return nil
            }
            for record in records {
                if let found = add(record) { return found }
            }
            return nil
        }

        /// Below this many records a fold stays on one thread (starting threads costs more).
        static let parallelFoldMinimum = 4_096

        /// Notes a timeline's name, or its removal.
        private static func note(_ fact: Fact, in names: inout [TimelineID: String]) {
            switch fact {
            case .timelineCreated(let id, let name), .timelineRenamed(let id, let name): names[id] = name
            case .timelineRemoved(let id): names[id] = nil
            default: break
            }
        }

        private mutating func add(_ record: Record) -> RecordRefusal? {
            for fact in record.facts {
                if validating {
                    do { try projection.check(fact, timelines: names) } catch {
                        refusal = RecordRefusal(position: record.position, fact: fact, rejection: error)
                        return refusal
                    }
                }
                Self.note(fact, in: &names)
                projection.events.fold(fact)
            }
            projection.position = record.position
            return nil
        }

        /// The projection of the records added: its views and summaries built at once.
        /// - Complexity: O(*n* log *n*) for *n* rows.
        public consuming func finish() -> TimelineProjection {
            projection.buildViewsAndSummaries(names: names)
            return projection
        }
    }

    /// Checks a fact against the events and the timelines `timelines` names (while
    /// loading, before the summaries exist). The lookup lives only for the call, so the
    /// events stay uniquely referenced and are changed in place afterwards.
    fileprivate func check(_ fact: Fact, timelines: [TimelineID: String]) throws(Rejection) {
        try Decider.check(fact, in: LoadingLookup(timelines: timelines, events: events))
    }

    /// Builds every row set and the summaries from the events, at the same time on as
    /// many processors as there are: each is built from the same events, which are only read.
    ///
    /// The summaries are the last task, not beside the largest set: the two at once
    /// would hold both their sorts' temporaries, raising the peak memory of opening a store.
    fileprivate mutating func buildViewsAndSummaries(names: [TimelineID: String]) {
        let events = self.events, position = self.position, now = self.now.microsecondsSinceEpoch
        let sets = rowSets
        let built = Mutex<(rowSets: [RowSet], summaries: SummaryState?)>((sets, nil))
        DispatchQueue.concurrentPerform(iterations: sets.count + 1) { task in
            if task == sets.count {
                var summaries = SummaryState(names: names, events: events.snapshots)
                summaries.restorePosition(position)
                built.withLock { $0.summaries = summaries }
            } else {
                var set = sets[task]
                set.rebuild(events: events, now: now, position: position)
                built.withLock { $0.rowSets[task] = set }
            }
        }
        built.withLock { built in
            rowSets = built.rowSets
            if let summaries = built.summaries { self.summaries = summaries }
        }
    }

    // MARK: Views

    /// Where a view is: its row set in ``rowSets``, and its place among that set's views.
    struct ViewLocation: Hashable, Sendable {
        var rowSet: Int
        var view: Int
    }

    /// The views the projection maintains, those with the same filter and placement next
    /// to each other (in the order ``apply(_:)`` gives their change sets).
    public var viewDefinitions: [ViewDefinition] { rowSets.flatMap { $0.views.map(\.definition) } }

    /// Starts maintaining a view, if it is not already: it shares the rows of a view with
    /// the same filter and placement, or is built from the current events.
    /// - Complexity: O(*n* log *n*) for *n* rows when no view has its filter and
    ///   placement; O(*n*) with sections, O(1) without, when one has; O(1) for a view
    ///   that exists.
    public mutating func addView(_ definition: ViewDefinition) {
        guard viewIndex[definition] == nil else { return }
        if let set = rowSets.firstIndex(where: { $0.holds(definition) }) {
            rowSets[set].addView(definition, position: position, now: now.microsecondsSinceEpoch)
            viewIndex[definition] = ViewLocation(rowSet: set, view: rowSets[set].views.count - 1)
        } else {
            var set = RowSet(filter: definition.filter, placement: definition.placement)
            set.addView(definition, position: position, now: now.microsecondsSinceEpoch)
            set.rebuild(events: events, now: now.microsecondsSinceEpoch, position: position)
            viewIndex[definition] = ViewLocation(rowSet: rowSets.count, view: 0)
            rowSets.append(set)
        }
    }

    /// Stops maintaining a view; its rows go with the last view that shows them.
    public mutating func removeView(_ definition: ViewDefinition) {
        guard let location = viewIndex.removeValue(forKey: definition) else { return }
        rowSets[location.rowSet].removeView(at: location.view)
        if rowSets[location.rowSet].views.isEmpty { rowSets.remove(at: location.rowSet) }
        indexViews()
    }

    /// Finds every view afresh, after row sets or views moved.
    mutating func indexViews() {
        viewIndex.removeAll(keepingCapacity: true)
        for (set, rowSet) in rowSets.enumerated() {
            for (offset, view) in rowSet.views.enumerated() {
                viewIndex[view.definition] = ViewLocation(rowSet: set, view: offset)
            }
        }
    }

    /// The rows of a view, in list order, or `nil` for a view the projection does not maintain.
    /// - Complexity: O(1).
    public func rows(_ definition: ViewDefinition) -> RowList? {
        viewIndex[definition].map { rowSets[$0.rowSet].rows(descending: definition.order == .descending) }
    }

    /// The sections of a view in list order (empty for a view without sections).
    /// - Complexity: O(log *s*) for *s* sections (each section is made when it is read).
    public func sections(_ definition: ViewDefinition) -> SectionList {
        viewIndex[definition].map {
            rowSets[$0.rowSet].sections(ofView: $0.view, now: now.microsecondsSinceEpoch)
        } ?? SectionList()
    }

    /// The log position of a view's latest change: the `from` of its next change set.
    public func viewPosition(_ definition: ViewDefinition) -> Int64? {
        viewIndex[definition].map { rowSets[$0.rowSet].views[$0.view].position }
    }

    /// How many events there are.
    /// - Complexity: O(1).
    public var eventCount: Int { events.count }

    /// The ids of the events, in no particular order.
    /// - Complexity: O(*n*) for *n* events.
    public var eventIDs: [EventID] { events.ids }

    /// The timeline summaries, ordered by name and then id.
    /// - Complexity: O(1) while ``tracksSummaryChanges`` is on. While it is off, O(*t* log
    ///   *t*) for *t* timelines once one changed, plus O(*k* log *k*) for the *k* changes
    ///   of dates not yet counted into a timeline's dates.
    public var timelineSummaries: [TimelineSummary] { summaries.currentList }

    /// Whether ``apply(_:)`` describes how the summaries changed
    /// (``ProjectionChanges/summaries``) and counts each timeline's dates in at once.
    ///
    /// Describing them, and counting each timeline's dates in and out as events come, go
    /// and change, is work on every command; a store turns it off
    /// while nobody follows the summaries, and the dates' changes are then counted in
    /// together, later. ``timelineSummaries`` is up to date either way (made when read,
    /// while off). Turning it on starts from the summaries as they are, counting in the
    /// changes left pending.
    public var tracksSummaryChanges: Bool {
        get { summaries.tracksChanges }
        set {
            // Turned on, the next change set goes from the summaries as they are now.
            if newValue && !summaries.tracksChanges { summaries.restorePosition(position) }
            summaries.trackChanges(newValue)
        }
    }

    // MARK: Applying records

    /// Applies a batch of records and returns the change sets: at most one per view, and
    /// one for the summaries if they changed.
    /// - Complexity: O(*k* log *n*) for *k* rows touched.
    @discardableResult
    public mutating func apply<C: Collection>(_ records: C) -> ProjectionChanges where C.Element == Record {
        // An array is applied through its buffer, not a generic collection from another module.
        if let changes = records.withContiguousStorageIfAvailable({ apply(contiguous: $0) }) { return changes }
        return Array(records).withUnsafeBufferPointer { apply(contiguous: $0) }
    }

    private mutating func apply(contiguous records: UnsafeBufferPointer<Record>) -> ProjectionChanges {
        guard !records.isEmpty else { return ProjectionChanges() }
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

    /// Applies one record; see ``apply(_:)-(C)``.
    @discardableResult
    public mutating func apply(_ record: Record) -> ProjectionChanges {
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

    // MARK: The clock

    /// Moves "now" to `instant`: ongoing rows of `now`-placed views that pass dated rows move.
    ///
    /// Moving forward costs O(*k* log *n*) for the *k* rows whose place relative to the
    /// ongoing rows changes; moving backwards, O(*m* log *n*) for the *m* ongoing rows
    /// at now, which go back to now or to their start. Either way a view is sent a
    /// change set only if a row or a section of it changed.
    @discardableResult
    public mutating func advanceClock(to instant: Instant) -> ProjectionChanges {
        let old = now.microsecondsSinceEpoch, new = instant.microsecondsSinceEpoch
        guard old != new else { return ProjectionChanges() }
        var changes = ProjectionChanges()
        let nowSets = rowSets.indices.filter { rowSets[$0].placement == .now }
        if new < old {
            for i in nowSets {
                let atNow = rowSets[i].rowsAtNow(old)
                rowSets[i].beginBatch(now: old, large: atNow.count > 64)
                for entry in atNow { rowSets[i].remove(entry, now: old) }
                for entry in atNow {
                    rowSets[i].insert(RowEntry(event: entry.event, kind: entry.kind, now: new, placement: .now,
                                               idPrefix: entry.idPrefix), now: new)
                }
                rowSets[i].endBatch(to: position, now: new, resetThreshold: resetThreshold, into: &changes.rows)
            }
            now = instant
            return changes
        }
        for i in nowSets {
            let passed = rowSets[i].rowsPassed(from: old, to: new)
            rowSets[i].beginBatch(now: old, large: passed.count > 64)
            for entry in passed { rowSets[i].remove(entry, now: old) }
            for entry in passed {
                rowSets[i].insert(RowEntry(event: entry.event, kind: entry.kind, now: new, placement: .now,
                                           idPrefix: entry.idPrefix), now: new)
            }
            rowSets[i].endBatch(to: position, now: new, resetThreshold: resetThreshold, into: &changes.rows)
        }
        now = instant
        return changes
    }
}

/// The change sets one batch of records (or one clock change) produced.
public struct ProjectionChanges: Sendable {
    /// One change set per view that changed.
    public var rows: [ChangeSet] = []
    /// The summaries' change set, if any summary changed.
    public var summaries: SummaryChangeSet?

    /// Whether nothing changed.
    public var isEmpty: Bool { rows.isEmpty && summaries == nil }

    /// The change set of one view, if it changed.
    public func changeSet(for view: ViewDefinition) -> ChangeSet? {
        rows.first { $0.view == view }
    }
}

/// The timelines and events while a projection loads: the names seen so far and the events.
private struct LoadingLookup: DomainLookup {
    let timelines: [TimelineID: String]
    let events: EventTable

    func timeline(_ id: TimelineID) -> Timeline? { timelines[id].map { Timeline(id: id, name: $0) } }
    func event(_ id: EventID) -> Event? { events[id]?.event }
    func eventTimeline(_ id: EventID) -> TimelineID? { events[id]?.timeline }
    func eventDates(_ id: EventID) -> EventDates? { events[id]?.dates }
}

extension TimelineProjection: DomainLookup {
    /// The timeline with this id, if it exists: the decider checks commands against the
    /// projection, which holds the same timelines and events as a ``DomainState``.
    /// - Complexity: O(1) on average.
    public func timeline(_ id: TimelineID) -> Timeline? {
        summaries.timelines[id].map { Timeline(id: id, name: $0.name) }
    }

    /// The event with this id, if it exists.
    /// - Complexity: O(1) on average.
    public func event(_ id: EventID) -> Event? { events[id]?.event }

    /// The timeline of the event with this id, if it exists, without making its title.
    /// - Complexity: O(1) on average.
    public func eventTimeline(_ id: EventID) -> TimelineID? { events[id]?.timeline }

    /// The dates of the event with this id, if it exists, without making its title.
    /// - Complexity: O(1) on average.
    public func eventDates(_ id: EventID) -> EventDates? { events[id]?.dates }
}
