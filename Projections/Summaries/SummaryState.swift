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
    /// Whether a batch is being applied, and the timelines it touched.
    private var inBatch = false
    private var touched: Set<TimelineID> = []

    init() {}

    /// The summaries of these timelines and events, built at once.
    /// - Complexity: O(*n* log *n*) for *n* dates.
    init<S: Sequence>(names: [TimelineID: String], events: S) where S.Element == EventSnapshot {
        // One pass, one in-place dictionary update per event (callgrind: per-event
        // take-out-and-put-back and small arrays made this a quarter of a rebuild).
        var building: [TimelineID: Timeline] = [:]
        var dates: [TimelineID: [DatedEntry]] = [:]
        for (id, name) in names { building[id] = Timeline(name: name) }
        for event in events where names[event.timeline] != nil {
            let open = event.dates.isOpenRange
            building[event.timeline, default: Timeline(name: "")].eventCount += 1
            if open { building[event.timeline, default: Timeline(name: "")].ongoingCount += 1 }
            switch event.dates {
            case .single(let date), .range(let date, nil):
                dates[event.timeline, default: []].append(DatedEntry(date: date))
            case .range(let start, let end?):
                dates[event.timeline, default: []].append(DatedEntry(date: start))
                dates[event.timeline, default: []].append(DatedEntry(date: end))
            }
        }
        for (id, entries) in dates {
            building[id, default: Timeline(name: "")].dates = OrderedIndex(entries.sorted { a, b in
                a.date.instant != b.date.instant ? a.date.instant < b.date.instant : EventID.compareUTF8(a.date.text, b.date.text) < 0
            })
        }
        timelines = building
        list = timelines.keys.compactMap(summary(of:)).sorted(by: Self.precedes)
    }

    mutating func restorePosition(_ position: Int64) { self.position = position }

    mutating func beginBatch() {
        inBatch = true
    }

    /// Applies a fact, given the events as they were before it.
    mutating func apply(_ fact: Fact, events: [EventID: EventSnapshot]) {
        if case .eventRetitled = fact { return }
        switch fact {
        case .timelineCreated(let id, _), .timelineRenamed(let id, _), .timelineRemoved(let id): touched.insert(id)
        case .eventAdded(let id, let timeline, _, _):
            touched.insert(timeline)
            if let old = events[id] { touched.insert(old.timeline) }
        case .eventMoved(let id, let timeline):
            touched.insert(timeline)
            if let old = events[id] { touched.insert(old.timeline) }
        default:
            if let id = fact.event, let old = events[id] { touched.insert(old.timeline) }
        }
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
        if !inBatch { _ = updateList() }
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

    /// The summary of one timeline as it stands, or `nil` if it does not exist.
    private func summary(of id: TimelineID) -> TimelineSummary? {
        guard let timeline = timelines[id] else { return nil }
        let dates = timeline.dates
        return TimelineSummary(
            id: id, name: timeline.name, eventCount: timeline.eventCount,
            earliest: dates.isEmpty ? nil : dates[0].date,
            latest: dates.isEmpty ? nil : dates[dates.count - 1].date,
            ongoingCount: timeline.ongoingCount)
    }

    /// The list order: by name, then id, both as UTF-8 bytes.
    private static func precedes(_ a: TimelineSummary, _ b: TimelineSummary) -> Bool {
        let c = EventID.compareUTF8(a.name, b.name)
        return c != 0 ? c < 0 : EventID.compareUTF8(a.id.rawValue, b.id.rawValue) < 0
    }

    /// Brings the touched timelines' summaries up to date in the sorted list; returns each
    /// touched timeline's old index and new index and whether its summary changed.
    /// - Complexity: O(*t* · *k*) for *t* timelines and *k* touched (timelines are few).
    private mutating func updateList() -> [ChangeSetBuilder<TimelineID>.Touched] {
        defer { touched = [] }
        guard !touched.isEmpty else { return [] }
        let old = list
        var oldSummaries: [TimelineID: (index: Int, summary: TimelineSummary)] = [:]
        for (index, summary) in old.enumerated() where touched.contains(summary.id) {
            oldSummaries[summary.id] = (index, summary)
        }
        list.removeAll { touched.contains($0.id) }
        var fresh: [TimelineID: TimelineSummary] = [:]
        for id in touched {
            guard let summary = summary(of: id) else { continue }
            fresh[id] = summary
            var lo = 0, hi = list.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if Self.precedes(list[mid], summary) { lo = mid + 1 } else { hi = mid }
            }
            list.insert(summary, at: lo)
        }
        guard list != old else { return [] }
        var result: [ChangeSetBuilder<TimelineID>.Touched] = []
        for (index, summary) in list.enumerated() where touched.contains(summary.id) {
            let before = oldSummaries[summary.id]
            result.append(.init(id: summary.id, old: before?.index, new: index,
                                contentChanged: before.map { $0.summary != summary } ?? false))
        }
        for (id, before) in oldSummaries where fresh[id] == nil {
            result.append(.init(id: id, old: before.index, new: nil, contentChanged: false))
        }
        return result
    }

    /// Ends a batch at `to`: the change set, or `nil` when no summary changed.
    mutating func endBatch(to: Int64) -> SummaryChangeSet? {
        guard inBatch else { return nil }
        inBatch = false
        let changes = updateList()
        guard !changes.isEmpty else { return nil }
        let built = ChangeSetBuilder.build(changes)
        guard !(built.removals.isEmpty && built.insertions.isEmpty && built.moves.isEmpty && built.updates.isEmpty)
        else { return nil }
        let from = position
        position = to
        return SummaryChangeSet(from: from, to: to, removals: built.removals, insertions: built.insertions,
                                moves: built.moves, updates: built.updates, summaries: list)
    }
}
