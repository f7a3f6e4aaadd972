import TimelineCore

/// A date kept in a sorted multiset of a timeline's dates.
struct DatedEntry: OrderedIndexElement, Sendable {
    var date: DateValue
    var isMarked: Bool { false }
}

/// The summaries of all timelines, maintained incrementally.
struct SummaryState: Sendable {
    struct Timeline: Sendable {
        var name: String
        var eventCount = 0
        var ongoingCount = 0
        var dates = OrderedIndex<DatedEntry>()
    }

    private(set) var timelines: [TimelineID: Timeline] = [:]
    private(set) var list: [TimelineSummary] = []
    private(set) var position: Int64 = 0
    private var batchBase: [TimelineSummary]?
    private var dirty = false

    init() {}

    /// The summaries of these timelines and events, built at once.
    /// - Complexity: O(*n* log *n*) for *n* dates.
    init<S: Sequence>(names: [TimelineID: String], events: S) where S.Element == EventSnapshot {
        var dates: [TimelineID: [DatedEntry]] = [:]
        for (id, name) in names { timelines[id] = Timeline(name: name) }
        for event in events where timelines[event.timeline] != nil {
            modifyTimeline(event.timeline) { timeline in
                timeline.eventCount += 1
                if event.dates.isOpenRange { timeline.ongoingCount += 1 }
            }
            dates[event.timeline, default: []] += Self.dates(of: event).map { DatedEntry(date: $0) }
        }
        for (id, entries) in dates {
            modifyTimeline(id) { $0.dates = OrderedIndex(entries.sorted { $0.date < $1.date }) }
        }
        rebuildList()
    }

    mutating func restorePosition(_ position: Int64) { self.position = position }

    mutating func beginBatch() {
        if batchBase == nil { batchBase = list }
    }

    /// Applies a fact, given the events as they were before it.
    mutating func apply(_ fact: Fact, events: [EventID: EventSnapshot]) {
        if case .eventRetitled = fact { return }
        dirty = true
        switch fact {
        case .timelineCreated(let id, let name):
            timelines[id] = Timeline(name: name)
        case .timelineRenamed(let id, let name):
            modifyTimeline(id) { $0.name = name }
        case .timelineRemoved(let id):
            timelines[id] = nil
        case .eventAdded(let id, let timeline, let title, let date):
            if let old = events[id] { remove(old) }
            add(EventSnapshot(id: id, timeline: timeline, title: title, dates: .single(date)))
        case .eventRemoved(let id):
            if let old = events[id] { remove(old) }
        case .eventMoved(let id, let timeline):
            guard let old = events[id] else { return }
            remove(old)
            add(old.with(timeline: timeline))
        case .eventRetitled:
            return
        case .dateSet(let id, let date):
            guard let old = events[id] else { return }
            remove(old)
            add(old.with(dates: .single(date)))
        case .rangeSet(let id, let start, let end):
            guard let old = events[id] else { return }
            remove(old)
            add(old.with(dates: .range(start: start, end: end)))
        case .rangeClosed(let id, let end):
            guard let old = events[id] else { return }
            remove(old)
            add(old.with(dates: .range(start: old.dates.start, end: end)))
        case .rangeReopened(let id):
            guard let old = events[id] else { return }
            remove(old)
            add(old.with(dates: .range(start: old.dates.start, end: nil)))
        }
        if batchBase == nil { rebuildList() }
    }

    private static func dates(of event: EventSnapshot) -> [DateValue] {
        switch event.dates {
        case .single(let date): [date]
        case .range(let start, nil): [start]
        case .range(let start, let end?): [start, end]
        }
    }

    private mutating func add(_ event: EventSnapshot) {
        modifyTimeline(event.timeline) { timeline in
            timeline.eventCount += 1
            if event.dates.isOpenRange { timeline.ongoingCount += 1 }
            for date in Self.dates(of: event) {
                let at = timeline.dates.partitionIndex { !($0.date < date) }
                timeline.dates.insert(DatedEntry(date: date), at: at)
            }
        }
    }

    private mutating func remove(_ event: EventSnapshot) {
        modifyTimeline(event.timeline) { timeline in
            timeline.eventCount -= 1
            if event.dates.isOpenRange { timeline.ongoingCount -= 1 }
            for date in Self.dates(of: event) {
                let at = timeline.dates.partitionIndex { !($0.date < date) }
                if at < timeline.dates.count { timeline.dates.remove(at: at) }
            }
        }
    }

    /// Mutates a timeline's summary with nothing else holding it (taken out of the
    /// dictionary and put back), so the dates' tree stays uniquely referenced and is not copied.
    private mutating func modifyTimeline(_ id: TimelineID, _ body: (inout Timeline) -> Void) {
        guard var timeline = timelines.removeValue(forKey: id) else { return }
        body(&timeline)
        timelines[id] = timeline
    }

    private mutating func rebuildList() {
        list = timelines.map { id, timeline in
            let dates = timeline.dates
            return TimelineSummary(
                id: id, name: timeline.name, eventCount: timeline.eventCount,
                earliest: dates.isEmpty ? nil : dates[0].date,
                latest: dates.isEmpty ? nil : dates[dates.count - 1].date,
                ongoingCount: timeline.ongoingCount)
        }
        list.sort { a, b in
            let c = EventID.compareUTF8(a.name, b.name)
            return c != 0 ? c < 0 : EventID.compareUTF8(a.id.rawValue, b.id.rawValue) < 0
        }
        dirty = false
    }

    /// Ends a batch at `to`: the change set, or `nil` when no summary changed.
    mutating func endBatch(to: Int64) -> SummaryChangeSet? {
        guard let base = batchBase else { return nil }
        batchBase = nil
        guard dirty else { return nil }
        rebuildList()
        guard base != list else { return nil }
        var oldIndex: [TimelineID: Int] = [:]
        for (i, summary) in base.enumerated() { oldIndex[summary.id] = i }
        var touched: [ChangeSetBuilder<TimelineID>.Touched] = []
        var seen = Set<TimelineID>()
        for (i, summary) in list.enumerated() {
            seen.insert(summary.id)
            let old = oldIndex[summary.id]
            touched.append(.init(id: summary.id, old: old, new: i, contentChanged: old.map { base[$0] != summary } ?? false))
        }
        for (i, summary) in base.enumerated() where !seen.contains(summary.id) {
            touched.append(.init(id: summary.id, old: i, new: nil, contentChanged: false))
        }
        let built = ChangeSetBuilder.build(touched)
        let from = position
        position = to
        return SummaryChangeSet(from: from, to: to, removals: built.removals, insertions: built.insertions,
                                moves: built.moves, updates: built.updates, summaries: list)
    }
}
