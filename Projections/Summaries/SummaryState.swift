import TimelineCore

/// The summaries of all timelines, maintained incrementally.
struct SummaryState: Sendable {
    struct Timeline: Sendable {
        var name: String
        var eventCount = 0
        var ongoingCount = 0
        /// Its rows' dates, each distinct date once with its count.
        var dates = OrderedIndex<CountedDate>()
    }

    private(set) var timelines: [TimelineID: Timeline] = [:]
    /// The sorted list as of the last change set; behind the summaries while changes are
    /// not tracked (see ``currentList``).
    private(set) var list: [TimelineSummary] = []
    private(set) var position: Int64 = 0
    /// Whether each batch brings the list up to date and describes the change; when not,
    /// the timelines touched pile up and the list is made when it is read.
    private(set) var tracksChanges = true
    /// Whether a batch is being applied, and the timelines it touched.
    private var inBatch = false
    private var touched: Set<TimelineID> = []
    /// Whether the batch in progress touched a timeline (`touched` also holds those of
    /// earlier batches while changes are not tracked).
    private var batchTouched = false
    /// The name each listed timeline is sorted under in `list`.
    private var listedNames: [TimelineID: String] = [:]

    init() {}

    /// A timeline as it is loaded: its counts, and its dates already in order.
    struct LoadedTimeline {
        var id: TimelineID
        var name: String
        var eventCount = 0
        var ongoingCount = 0
        /// Its dates, in order, each distinct date once with its count.
        var dates = OrderedIndex<CountedDate>()
    }

    /// The summaries of these timelines and events, built at once.
    ///
    /// One hash lookup per event (of its timeline's slot among the few timelines). A
    /// year, month or day is counted in a dictionary keyed by its instant and precision
    /// in one word; only the timestamps are gathered and sorted as entries (see
    /// ``sorted(_:)``). Gathering every date of every timeline before sorting them held
    /// 16 bytes a date at the peak of opening a store, while the largest view was built
    /// beside it (peak 229-251 B/event over two dozen runs at 1M events), and its sort
    /// made the summaries the slowest task of a rebuild. A checkpoint's summaries are
    /// put in order by counting instead (`Checkpoint.load`).
    /// - Complexity: O(*n*) for *n* dates, plus O(*t* log *t*) for *t* timestamps and
    ///   O(*d* log *d*) for *d* distinct years, months and days.
    init<S: Sequence>(names: [TimelineID: String], events: S) where S.Element == EventSnapshot {
        var slots: [TimelineID: Int] = [:]
        var loaded: [LoadedTimeline] = []
        for (id, name) in names {
            slots[id] = loaded.count
            loaded.append(LoadedTimeline(id: id, name: name))
        }
        var canonical = [[Int64: Int]](repeating: [:], count: loaded.count)
        var timestamps = [[DatedEntry]](repeating: [], count: loaded.count)
        // One box per timestamp text, not per occurrence.
        var boxes: [String: DatedEntry.Box] = [:]
        func add(_ entry: DatedEntry, to slot: Int) {
            switch entry.detail {
            case .canonical(let precision):
                canonical[slot][Self.canonicalKey(entry.instant, precision), default: 0] += 1
            case .other(let box):
                if let kept = boxes[box.date.text] {
                    timestamps[slot].append(DatedEntry(box.date, box: kept))
                } else {
                    boxes[box.date.text] = box
                    timestamps[slot].append(entry)
                }
            }
        }
        for event in events {
            guard let slot = slots[event.timeline] else { continue }
            loaded[slot].eventCount += 1
            if event.isOpenRange { loaded[slot].ongoingCount += 1 }
            let (start, end) = event.datedEntries
            add(start, to: slot)
            if let end { add(end, to: slot) }
        }
        for slot in loaded.indices {
            let days = canonical[slot].sorted { $0.key < $1.key }.map { key, count in
                CountedDate(entry: DatedEntry(canonical: key >> 2, precision: DateValue.Precision(rawValue: Int(key & 3))!),
                            count: count)
            }
            canonical[slot] = [:]
            let others = Self.sorted(&timestamps[slot])
            loaded[slot].dates = OrderedIndex(CountedDate.merged(days, others))
        }
        self.init(loaded: loaded)
    }

    /// A year's, month's or day's key: its instant above its precision (0–2), so that keys
    /// order as the dates do (``DatedEntry/<``). A parsed date's instant fits in 59 bits.
    static func canonicalKey(_ instant: Int64, _ precision: DateValue.Precision) -> Int64 {
        instant << 2 | Int64(precision.rawValue)
    }

    /// The summaries of timelines whose counts and sorted dates are known.
    /// - Complexity: O(*n*) for *n* dates, and O(*t* log *t*) for *t* timelines.
    init(loaded: [LoadedTimeline]) {
        var building: [TimelineID: Timeline] = [:]
        building.reserveCapacity(loaded.count)
        for timeline in loaded {
            building[timeline.id] = Timeline(name: timeline.name, eventCount: timeline.eventCount,
                                             ongoingCount: timeline.ongoingCount,
                                             dates: timeline.dates)
        }
        timelines = building
        list = sortedSummaries()
        for summary in list { listedNames[summary.id] = summary.name }
    }

    /// Dates in order — by instant, then by text as `DateValue` orders them — sorted in
    /// place (a year, month or day compares as two integers, without its text), then
    /// counted: each distinct date once.
    ///
    /// Sorting `DateValue`s through a separate array of keys held 56 bytes per date at
    /// the peak of building the summaries of a rebuild; entries are 16.
    /// - Complexity: O(*n* log *n*).
    static func sorted(_ dates: inout [DatedEntry]) -> [CountedDate] {
        dates.sort(by: <)
        let runs = CountedDate.runs(of: dates)
        dates = []  // freed before the tree is built: this is at the peak of a rebuild
        return runs
    }

    mutating func restorePosition(_ position: Int64) { self.position = position }

    /// Notes that a timeline's summary may have changed.
    private mutating func touch(_ id: TimelineID) {
        touched.insert(id)
        batchTouched = true
    }

    mutating func beginBatch() {
        inBatch = true
        batchTouched = false
    }

    /// Applies a fact about a timeline: created, renamed or removed (with its events).
    mutating func apply(timelineFact fact: Fact) {
        switch fact {
        case .timelineCreated(let id, let name):
            touch(id)
            timelines[id] = Timeline(name: name)
        case .timelineRenamed(let id, let name):
            touch(id)
            modifyTimeline(id) { $0.name = name }
        case .timelineRemoved(let id):
            touch(id)
            timelines[id] = nil
        default:
            return
        }
        if !inBatch && tracksChanges { _ = updateList() }
    }

    /// Replaces an event as it was (`nil` if it is new) with the event as it is (`nil` if
    /// it was removed). A change that keeps the event's timeline and dates (a new title)
    /// changes no summary.
    mutating func replace(_ old: EventSnapshot?, with new: EventSnapshot?) {
        if let old, let new, old.timeline == new.timeline {
            if old.hasSameDates(as: new) { return }
            touch(new.timeline)
            redate(old, as: new)
        } else {
            if let old {
                touch(old.timeline)
                remove(old)
            }
            if let new {
                touch(new.timeline)
                add(new)
            }
        }
        if !inBatch && tracksChanges { _ = updateList() }
    }

    /// Counts an event's new dates in place of its old ones, in its timeline; a date both
    /// have (the start of a range being closed, say) is left as it is, not counted out
    /// and in again.
    private mutating func redate(_ old: EventSnapshot, as new: EventSnapshot) {
        modifyTimeline(new.timeline) { timeline in
            if old.isOpenRange { timeline.ongoingCount -= 1 }
            if new.isOpenRange { timeline.ongoingCount += 1 }
            let before = old.datedEntries, after = new.datedEntries
            var comingStart: DatedEntry? = after.start, comingEnd = after.end
            /// Whether `date` is among the new dates not matched yet (and matches it).
            func stays(_ date: DatedEntry) -> Bool {
                if let coming = comingStart, coming == date {
                    comingStart = nil
                    return true
                }
                if let coming = comingEnd, coming == date {
                    comingEnd = nil
                    return true
                }
                return false
            }
            if !stays(before.start) { timeline.dates.remove(before.start) }
            if let end = before.end, !stays(end) { timeline.dates.remove(end) }
            if let start = comingStart { timeline.dates.add(start) }
            if let end = comingEnd { timeline.dates.add(end) }
        }
    }

    private mutating func add(_ event: EventSnapshot) {
        modifyTimeline(event.timeline) { timeline in
            timeline.eventCount += 1
            if event.isOpenRange { timeline.ongoingCount += 1 }
            let (start, end) = event.datedEntries
            timeline.dates.add(start)
            if let end { timeline.dates.add(end) }
        }
    }

    private mutating func remove(_ event: EventSnapshot) {
        modifyTimeline(event.timeline) { timeline in
            timeline.eventCount -= 1
            if event.isOpenRange { timeline.ongoingCount -= 1 }
            let (start, end) = event.datedEntries
            timeline.dates.remove(start)
            if let end { timeline.dates.remove(end) }
        }
    }

    /// Mutates a timeline's summary in place, through its dictionary index (one hash of
    /// the id; taking it out and putting it back hashed it twice), so the dates' tree
    /// stays uniquely referenced and is not copied.
    private mutating func modifyTimeline(_ id: TimelineID, _ body: (inout Timeline) -> Void) {
        guard let index = timelines.index(forKey: id) else { return }
        body(&timelines.values[index])
    }

    /// The summary of one timeline as it stands, or `nil` if it does not exist.
    private func summary(of id: TimelineID) -> TimelineSummary? {
        guard let timeline = timelines[id] else { return nil }
        let dates = timeline.dates
        return TimelineSummary(
            id: id, name: timeline.name, eventCount: timeline.eventCount,
            earliest: dates.isEmpty ? nil : dates[0].entry.date,
            latest: dates.isEmpty ? nil : dates[dates.count - 1].entry.date,
            ongoingCount: timeline.ongoingCount)
    }

    /// The list order: by name, then id, both as UTF-8 bytes.
    private static func precedes(_ a: TimelineSummary, _ b: TimelineSummary) -> Bool {
        let c = EventID.compareUTF8(a.name, b.name)
        return c != 0 ? c < 0 : EventID.compareUTF8(a.id.rawValue, b.id.rawValue) < 0
    }

    /// Brings the touched timelines' summaries up to date in the sorted list; returns each
    /// touched timeline's old index and new index and whether its summary changed.
    ///
    /// The common case — the touched timelines keep their names, so their places — updates
    /// the summaries in place; otherwise the touched summaries are taken out and put back
    /// in order.
    /// - Complexity: O(*k* log *t*) for *k* touched of *t* timelines, plus moving array
    ///   elements when a timeline is created, renamed or removed.
    private mutating func updateList() -> [ChangeSetBuilder<TimelineID>.Touched] {
        defer { touched.removeAll(keepingCapacity: true) }
        guard !touched.isEmpty else { return [] }
        var result: [ChangeSetBuilder<TimelineID>.Touched] = []
        // Where each touched timeline is in the list now, found by the name it is listed under.
        var olds: [(id: TimelineID, index: Int?, fresh: TimelineSummary?)] = []
        olds.reserveCapacity(touched.count)
        var keepsPlaces = true
        for id in touched {
            let index = listedNames[id].flatMap { name in
                let at = insertionIndex(name: name, id: id)
                return at < list.count && list[at].id == id ? at : nil
            }
            let fresh = summary(of: id)
            if index == nil || fresh == nil || fresh!.name != listedNames[id] { keepsPlaces = false }
            olds.append((id, index, fresh))
        }
        if keepsPlaces {
            for old in olds where list[old.index!] != old.fresh! {
                list[old.index!] = old.fresh!
                result.append(.init(id: old.id, old: old.index, new: old.index, contentChanged: true))
            }
            return result
        }
        let oldSummaries = olds.map { $0.index.map { list[$0] } }
        for index in olds.compactMap(\.index).sorted(by: >) { list.remove(at: index) }
        for old in olds {
            guard let fresh = old.fresh else {
                listedNames[old.id] = nil
                continue
            }
            list.insert(fresh, at: insertionIndex(name: fresh.name, id: fresh.id))
            listedNames[old.id] = fresh.name
        }
        for (old, before) in zip(olds, oldSummaries) {
            let new = old.fresh.map { insertionIndex(name: $0.name, id: $0.id) }
            guard old.index != nil || new != nil else { continue }
            result.append(.init(id: old.id, old: old.index, new: new,
                                contentChanged: before != nil && old.fresh != nil && before != old.fresh))
        }
        return result
    }

    /// Where a summary listed under `name` and `id` is, or would be inserted, in the list.
    /// - Complexity: O(log *t*).
    private func insertionIndex(name: String, id: TimelineID) -> Int {
        var lo = 0, hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let c = EventID.compareUTF8(list[mid].name, name)
            if c < 0 || (c == 0 && EventID.compareUTF8(list[mid].id.rawValue, id.rawValue) < 0) {
                lo = mid + 1
            } else {
                hi = mid
            }
        }
        return lo
    }

    /// Ends a batch at `to`: the change set, or `nil` when no summary changed.
    mutating func endBatch(to: Int64) -> SummaryChangeSet? {
        guard inBatch else { return nil }
        inBatch = false
        guard tracksChanges else {
            // Not described, but the position still follows the summaries, so that a
            // change set made later (after a checkpoint, say) goes from where they were.
            if batchTouched { position = to }
            return nil
        }
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

    /// The summaries as they stand, sorted: the list, or, while changes are not tracked
    /// and timelines were touched, a list made now.
    /// - Complexity: O(1) when the list is up to date, O(*t* log *t*) for *t* timelines otherwise.
    var currentList: [TimelineSummary] {
        guard !touched.isEmpty else { return list }
        return sortedSummaries()
    }

    /// Every timeline's summary, sorted by name and then id.
    /// - Complexity: O(*t* log *t*) for *t* timelines.
    private func sortedSummaries() -> [TimelineSummary] {
        timelines.keys.compactMap(summary(of:)).sorted(by: Self.precedes)
    }

    /// Starts or stops describing each batch's change. Starting brings the list up to date
    /// first, without a change set: a subscriber starts from the list as it is then.
    mutating func trackChanges(_ on: Bool) {
        if on && !tracksChanges && !inBatch { _ = updateList() }
        tracksChanges = on
    }
}
