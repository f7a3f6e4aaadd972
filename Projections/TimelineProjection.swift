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
    /// The views, in the order they were added; `viewIndex` finds one by definition.
    /// (An array, so that a view is mutated in place: a dictionary's `d[k]!.mutate()`
    /// may copy the value out, which would make every tree node shared and copied.)
    var views: [ViewState] = []
    var viewIndex: [ViewDefinition: Int] = [:]
    var summaries = SummaryState()

    /// Batches that touch more rows than this give a reset change set instead of indices.
    public var resetThreshold = 10_000

    /// Creates an empty projection that maintains `views`, with "now" from the clock.
    public init(views: [ViewDefinition] = [ViewDefinition()], now: Instant) {
        self.now = now
        for definition in views where viewIndex[definition] == nil {
            viewIndex[definition] = self.views.count
            self.views.append(ViewState(definition: definition, position: 0))
        }
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
            // type from another module goes through a witness table and copies each record
            // (callgrind: a fifth of folding a log into the events).
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

    /// Builds every view and the summaries from the events, at the same time on as many
    /// processors as there are: each is built from the same events, which are only read.
    ///
    /// The summaries are the last task: started first, beside the largest view, they
    /// finished a rebuild sooner in a small driver, but raised the peak memory of opening
    /// a store of 1M events from 501-518 to 559-568 bytes per event (the two sorts'
    /// temporaries at once), with no gain the benchmark's rebuild could show.
    fileprivate mutating func buildViewsAndSummaries(names: [TimelineID: String]) {
        let events = self.events, position = self.position, now = self.now.microsecondsSinceEpoch
        let definitions = views.map(\.definition)
        let built = Mutex<(views: [ViewState?], summaries: SummaryState?)>(
            (Array(repeating: nil, count: definitions.count), nil))
        DispatchQueue.concurrentPerform(iterations: definitions.count + 1) { task in
            if task == definitions.count {
                var summaries = SummaryState(names: names, events: events.snapshots)
                summaries.restorePosition(position)
                built.withLock { $0.summaries = summaries }
            } else {
                let view = Self.builtView(definitions[task], events: events, now: now, position: position)
                built.withLock { $0.views[task] = view }
            }
        }
        built.withLock { built in
            for view in built.views { if let view { setView(view) } }
            if let summaries = built.summaries { self.summaries = summaries }
        }
    }

    // MARK: Views

    /// The views the projection maintains.
    public var viewDefinitions: [ViewDefinition] { views.map(\.definition) }

    /// Starts maintaining a view (built from the current events), if it is not already.
    /// - Complexity: O(*n* log *n*) for a new view, O(1) for one that exists.
    public mutating func addView(_ definition: ViewDefinition) {
        guard viewIndex[definition] == nil else { return }
        rebuildView(definition)
    }

    /// Stops maintaining a view.
    public mutating func removeView(_ definition: ViewDefinition) {
        guard let index = viewIndex.removeValue(forKey: definition) else { return }
        views.remove(at: index)
        for (offset, view) in views.enumerated() { viewIndex[view.definition] = offset }
    }

    /// The rows of a view, in list order, or `nil` for a view the projection does not maintain.
    /// - Complexity: O(1).
    public func rows(_ definition: ViewDefinition) -> RowList? {
        viewIndex[definition].map { views[$0].rows() }
    }

    /// The sections of a view in list order (empty for a view without sections).
    /// - Complexity: O(*s*) for *s* sections.
    public func sections(_ definition: ViewDefinition) -> SectionList {
        viewIndex[definition].map { views[$0].sections(now: now.microsecondsSinceEpoch) } ?? SectionList()
    }

    /// The log position of a view's latest change: the `from` of its next change set.
    public func viewPosition(_ definition: ViewDefinition) -> Int64? {
        viewIndex[definition].map { views[$0].position }
    }

    /// How many events there are.
    /// - Complexity: O(1).
    public var eventCount: Int { events.count }

    /// The ids of the events, in no particular order.
    /// - Complexity: O(*n*) for *n* events.
    public var eventIDs: [EventID] { events.ids }

    /// The timeline summaries, ordered by name and then id.
    /// - Complexity: O(1) while ``tracksSummaryChanges`` is on.
    public var timelineSummaries: [TimelineSummary] { summaries.currentList }

    /// Whether ``apply(_:)`` describes how the summaries changed (``ProjectionChanges/summaries``).
    ///
    /// Describing costs a sixth of projecting one command; a store turns it off while
    /// nobody follows the summaries. ``timelineSummaries`` is up to date either way (made
    /// when read, in O(*t* log *t*) for *t* timelines, while off). Turning it on starts
    /// from the summaries as they are.
    public var tracksSummaryChanges: Bool {
        get { summaries.tracksChanges }
        set {
            // Turned on, the next change set goes from the summaries as they are now.
            if newValue && !summaries.tracksChanges { summaries.restorePosition(position) }
            summaries.trackChanges(newValue)
        }
    }

    private mutating func rebuildView(_ definition: ViewDefinition) {
        setView(Self.builtView(definition, events: events, now: now.microsecondsSinceEpoch, position: position))
    }

    /// A view of `events`, sorted once.
    /// - Complexity: O(*n* log *n*) for *n* rows.
    private static func builtView(
        _ definition: ViewDefinition, events: EventTable, now: Int64, position: Int64
    ) -> ViewState {
        var view = ViewState(definition: definition, position: position)
        view.rebuild(events: events, now: now, position: position)
        return view
    }

    /// Adds `view`, or replaces the view of the same definition.
    mutating func setView(_ view: ViewState) {
        if let index = viewIndex[view.definition] {
            views[index] = view
        } else {
            viewIndex[view.definition] = views.count
            views.append(view)
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
        // touch many rows (a removed timeline), keeps a copy of each view's old rows.
        let large = records.count > 8 || records.contains { record in
            record.facts.contains { if case .timelineRemoved = $0 { true } else { false } }
        }
        for i in views.indices { views[i].beginBatch(now: nowValue, large: large) }
        summaries.beginBatch()
        for record in records {
            for fact in record.facts { applyIncrementally(fact) }
            position = record.position
        }
        var changes = ProjectionChanges()
        for i in views.indices {
            if let changeSet = views[i].endBatch(to: position, now: nowValue, resetThreshold: resetThreshold) {
                // Room for the views still to come, so that the list is allocated once.
                if changes.rows.isEmpty { changes.rows.reserveCapacity(views.count - i) }
                changes.rows.append(changeSet)
            }
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

    /// Replaces an event's rows in every view: a row whose sort key is unchanged is
    /// replaced in place, the others are removed and inserted.
    private mutating func project(old: EventSnapshot?, new: EventSnapshot?) {
        let nowValue = now.microsecondsSinceEpoch
        for i in views.indices {
            let definition = views[i].definition
            let olds = EventRows(old, in: definition, now: nowValue)
            var news = EventRows(new, in: definition, now: nowValue)
            for oldEntry in [olds.first, olds.second] {
                guard let oldEntry else { continue }
                if let newEntry = news.take(where: { $0.kind.role == oldEntry.kind.role && sameKey($0, oldEntry) }) {
                    views[i].replace(oldEntry, with: newEntry, now: nowValue)
                } else {
                    views[i].remove(oldEntry, now: nowValue)
                }
            }
            if let entry = news.first { views[i].insert(entry, now: nowValue) }
            if let entry = news.second { views[i].insert(entry, now: nowValue) }
        }
    }

    private func sameKey(_ a: RowEntry, _ b: RowEntry) -> Bool {
        a.instant == b.instant && a.kind.role == b.kind.role && a.isMarked == b.isMarked
            && (a.kind == .ongoing) == (b.kind == .ongoing)
    }

    // MARK: The clock

    /// Moves "now" to `instant`: ongoing rows of `now`-placed views that pass dated rows move.
    ///
    /// Moving forward costs O(*k* log *n*) for the *k* rows whose place relative to the
    /// ongoing rows changes; moving backwards rebuilds the `now`-placed views (a reset).
    @discardableResult
    public mutating func advanceClock(to instant: Instant) -> ProjectionChanges {
        let old = now.microsecondsSinceEpoch, new = instant.microsecondsSinceEpoch
        guard old != new else { return ProjectionChanges() }
        var changes = ProjectionChanges()
        let nowViews = views.indices.filter { views[$0].definition.placement == .now }
        if new < old {
            now = instant
            for i in nowViews {
                rebuildView(views[i].definition)
                changes.rows.append(views[i].reset(to: position, now: new))
            }
            return changes
        }
        for i in nowViews {
            let passed = views[i].rowsPassed(from: old, to: new)
            views[i].beginBatch(now: old, large: passed.count > 64)
            for entry in passed { views[i].remove(entry, now: old) }
            for entry in passed {
                views[i].insert(RowEntry(event: entry.event, kind: entry.kind, now: new, placement: .now), now: new)
            }
            if let changeSet = views[i].endBatch(to: position, now: new, resetThreshold: resetThreshold) {
                changes.rows.append(changeSet)
            }
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
