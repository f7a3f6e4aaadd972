import TimelineCore

/// The summaries of all timelines, maintained incrementally.
struct SummaryState: Sendable {
    struct Timeline: Sendable {
        var name: String
        var eventCount = 0
        var ongoingCount = 0
        /// Its rows' dates, each distinct date once with its count, but for `pendingDates`.
        var dates = OrderedIndex<CountedDate>()
        /// Changes of `dates` not counted in yet (while changes are not tracked), in order:
        /// counted in together, in date order, once there are enough of them.
        var pendingDates: [PendingDate] = []

        /// A timeline's summary with these counts and dates, and no pending changes.
        init(name: String, eventCount: Int = 0, ongoingCount: Int = 0, dates: OrderedIndex<CountedDate> = .init()) {
            self.name = name
            self.eventCount = eventCount
            self.ongoingCount = ongoingCount
            self.dates = dates
        }
    }

    /// A date counted in (`delta` above 0) or out (below 0) of a timeline's dates: 1 or -1
    /// as it waits, their sum once netted.
    struct PendingDate: Sendable {
        var entry: DatedEntry
        var delta: Int
    }

    /// Each timeline's summary. A summary is changed in place through its dictionary index
    /// (one hash of the id; taking it out and putting it back hashed it twice), so that
    /// its dates' tree stays uniquely referenced and is not copied.
    private(set) var timelines: [TimelineID: Timeline] = [:]
    /// The sorted list as of the last change set; behind the summaries while changes are
    /// not tracked (see ``currentList``).
    private(set) var list: [TimelineSummary] = []
    private(set) var position: Int64 = 0
    /// Whether changes are tracked, and the batch in progress (see ``State``).
    private var state = State.tracking(spare: [])
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
    /// ``sorted(_:)``), so that the peak holds a count per distinct date, not every date.
    /// A checkpoint's summaries are put in order by counting instead (`Checkpoint.load`).
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
        makeList()
    }

    /// Makes the sorted list afresh, with the names each summary is listed under.
    /// - Complexity: O(*t* log *t*) for *t* timelines.
    private mutating func makeList() {
        list = sortedSummaries()
        listedNames = [:]
        for summary in list { listedNames[summary.id] = summary.name }
    }

    /// Dates in order — by instant, then by text as `DateValue` orders them — sorted in
    /// place (a year, month or day compares as two integers, without its text), then
    /// counted: each distinct date once.
    /// Entries (16 bytes) are sorted themselves, not through an array of keys beside them.
    /// - Complexity: O(*n* log *n*).
    static func sorted(_ dates: inout [DatedEntry]) -> [CountedDate] {
        dates.sort(by: <)
        let runs = CountedDate.runs(of: dates)
        dates = []  // freed before the tree is built: this is at the peak of a rebuild
        return runs
    }

    mutating func restorePosition(_ position: Int64) { self.position = position }

    /// Whether changes are tracked, and the batch in progress.
    ///
    /// While changes are tracked, each batch brings the list up to date, counts the
    /// timelines' dates in at once and describes the change. While they are not, the
    /// dates' changes wait to be counted in together (see ``count(_:_:inTimelineAt:)``),
    /// and the list is made when it is read.
    ///
    /// Transitions: `tracking` → `gathering` and `untracked` → `untrackedBatch` at a
    /// batch's start (``beginBatch()``), back at its end (``endBatch(to:)``); a change
    /// outside a batch is a batch of its own (``change(_:)``). ``trackChanges(_:)`` goes
    /// between the tracked and the untracked states, in a batch or not.
    private enum State {
        /// Tracked, no batch: the list is up to date. The storage of the last batch's
        /// touched timelines, emptied, for the next.
        case tracking(spare: Set<TimelineID>)
        /// Tracked, in a batch: the timelines it touched, whose summaries its end brings up
        /// to date in the list.
        case gathering(touched: Set<TimelineID>)
        /// Not tracked, no batch: whether a timeline changed since changes were last
        /// tracked, so that the list is behind the summaries.
        case untracked(listIsBehind: Bool)
        /// Not tracked, in a batch: the same, and whether the batch touched a timeline, so
        /// that the summaries' position moves to its end.
        case untrackedBatch(listIsBehind: Bool, touchedTimeline: Bool)

        /// Notes that a timeline's summary may change. (A change is made in a batch, see
        /// ``change(_:)``; a touch without one would start gathering all the same.)
        mutating func touch(_ id: TimelineID) {
            // Moved out and back: changed through a copy, the set would be copied.
            switch consume self {
            case .gathering(var touched), .tracking(var touched):
                touched.insert(id)
                self = .gathering(touched: touched)
            case .untracked:
                self = .untracked(listIsBehind: true)
            case .untrackedBatch:
                self = .untrackedBatch(listIsBehind: true, touchedTimeline: true)
            }
        }

        /// Starts a batch (in one, the timelines touched so far stay gathered).
        mutating func beginBatch() {
            switch consume self {
            case .tracking(let touched), .gathering(let touched):
                self = .gathering(touched: touched)
            case .untracked(let listIsBehind), .untrackedBatch(let listIsBehind, _):
                self = .untrackedBatch(listIsBehind: listIsBehind, touchedTimeline: false)
            }
        }

        /// Stops gathering, handing the timelines gathered over: `tracking`, without
        /// storage until the caller puts the set back. `nil` when not gathering.
        mutating func stopGathering() -> Set<TimelineID>? {
            switch consume self {
            case .gathering(let touched):
                self = .tracking(spare: Set())
                return touched
            case let other:
                self = other
                return nil
            }
        }
    }

    /// Whether each batch brings the list up to date, counts the timelines' dates in at
    /// once and describes the change (see ``State``).
    var tracksChanges: Bool {
        switch state {
        case .tracking, .gathering: true
        case .untracked, .untrackedBatch: false
        }
    }

    /// Notes that a timeline's summary may change.
    private mutating func touch(_ id: TimelineID) { state.touch(id) }

    /// Starts a batch: its changes are described together by ``endBatch(to:)``.
    mutating func beginBatch() { state.beginBatch() }

    /// Makes a change in the batch in progress, or, while changes are tracked and no batch
    /// is, in one of its own, whose end brings the list up to date at once, without a
    /// change set.
    private mutating func change(_ body: (inout SummaryState) -> Void) {
        guard case .tracking = state else { return body(&self) }
        beginBatch()
        body(&self)
        _ = updateList()
    }

    /// Applies a fact about a timeline: created, renamed or removed (with its events).
    mutating func apply(timelineFact fact: Fact) {
        change { $0.changeTimeline(fact) }
    }

    /// ``apply(timelineFact:)``, in a batch.
    private mutating func changeTimeline(_ fact: Fact) {
        switch fact {
        case .timelineCreated(let id, let name):
            touch(id)
            timelines[id] = Timeline(name: name)
        case .timelineRenamed(let id, let name):
            touch(id)
            if let index = timelines.index(forKey: id) { timelines.values[index].name = name }
        case .timelineRemoved(let id):
            touch(id)
            timelines[id] = nil
        default:
            return
        }
    }

    /// Replaces an event as it was (`nil` if it is new) with the event as it is (`nil` if
    /// it was removed). A change that keeps the event's timeline and dates (a new title)
    /// changes no summary.
    mutating func replace(_ old: EventSnapshot?, with new: EventSnapshot?) {
        change { $0.replaceEvent(old, with: new) }
    }

    /// ``replace(_:with:)``, in a batch.
    private mutating func replaceEvent(_ old: EventSnapshot?, with new: EventSnapshot?) {
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
    }

    /// Counts an event's new dates in place of its old ones, in its timeline; a date both
    /// have (the start of a range being closed, say) is left as it is, not counted out
    /// and in again.
    private mutating func redate(_ old: EventSnapshot, as new: EventSnapshot) {
        guard let index = timelines.index(forKey: new.timeline) else { return }
        if old.isOpenRange { timelines.values[index].ongoingCount -= 1 }
        if new.isOpenRange { timelines.values[index].ongoingCount += 1 }
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
        if !stays(before.start) { count(before.start, -1, inTimelineAt: index) }
        if let end = before.end, !stays(end) { count(end, -1, inTimelineAt: index) }
        if let start = comingStart { count(start, 1, inTimelineAt: index) }
        if let end = comingEnd { count(end, 1, inTimelineAt: index) }
    }

    private mutating func add(_ event: EventSnapshot) {
        guard let index = timelines.index(forKey: event.timeline) else { return }
        timelines.values[index].eventCount += 1
        if event.isOpenRange { timelines.values[index].ongoingCount += 1 }
        let (start, end) = event.datedEntries
        count(start, 1, inTimelineAt: index)
        if let end { count(end, 1, inTimelineAt: index) }
    }

    private mutating func remove(_ event: EventSnapshot) {
        guard let index = timelines.index(forKey: event.timeline) else { return }
        timelines.values[index].eventCount -= 1
        if event.isOpenRange { timelines.values[index].ongoingCount -= 1 }
        let (start, end) = event.datedEntries
        count(start, -1, inTimelineAt: index)
        if let end { count(end, -1, inTimelineAt: index) }
    }

    /// Counts a date in (`delta` 1) or out (-1) of the dates of the timeline at `index` in
    /// ``timelines``: at once while changes are tracked, or later, with the other pending
    /// changes.
    ///
    /// While changes are not tracked, nobody reads a timeline's earliest and latest dates
    /// as they change, so a date is not counted in and out of its tree at once: the
    /// changes wait in a list instead; once it holds ``pendingLimit(dates:)`` of them (a
    /// quarter as many as the tree has dates, from 64 to 4,096), they are counted in in
    /// date order, each walk starting from the root again but going near where the last
    /// one went, through nodes still in cache. A summary read meanwhile takes the list
    /// into account without counting it in (see ``extremes(of:)``).
    /// - Complexity: O(log *d*) for *d* dates, amortised; the change that fills a list
    ///   pays for counting it in, O(*k* log *k* + *k* log *d*) for its *k* changes, and *k*
    ///   is at most 4,096, so that no record pays for more than a bounded list.
    private mutating func count(_ entry: DatedEntry, _ delta: Int,
                                inTimelineAt index: Dictionary<TimelineID, Timeline>.Index) {
        switch state {
        case .tracking, .gathering:
            timelines.values[index].dates.adjust(entry, by: delta)
        case .untracked, .untrackedBatch:
            Self.countPending(PendingDate(entry: entry, delta: delta), in: &timelines.values[index])
        }
    }

    /// Adds a date change to a timeline's pending ones, counting them in once there are
    /// ``pendingLimit(dates:)`` of them.
    private static func countPending(_ change: PendingDate, in timeline: inout Timeline) {
        timeline.pendingDates.append(change)
        if timeline.pendingDates.count >= pendingLimit(dates: timeline.dates.count) { countPendingDates(in: &timeline) }
    }

    /// How many date changes a timeline of `dates` distinct dates keeps pending: a quarter
    /// of its dates, at least 64 and at most 4,096.
    ///
    /// The upper bound keeps one record's cost bounded (without it, the record that fills
    /// the list of a timeline of a million dates would count a quarter of a million
    /// changes in), and a read's, which sorts the list.
    static func pendingLimit(dates: Int) -> Int { Swift.min(4_096, Swift.max(64, dates / 4)) }

    /// Counts a timeline's pending date changes into its dates.
    /// - Complexity: O(*k* log *k* + *k* log *d*) for *k* changes and *d* dates.
    private static func countPendingDates(in timeline: inout Timeline) {
        for change in netted(timeline.pendingDates) { timeline.dates.adjust(change.entry, by: change.delta) }
        timeline.pendingDates.removeAll(keepingCapacity: timeline.pendingDates.capacity <= 256)
    }

    /// Date changes in date order, each date once with what its changes add up to, those
    /// that add up to nothing left out.
    /// - Complexity: O(*k* log *k*) for *k* changes.
    private static func netted(_ changes: [PendingDate]) -> [PendingDate] {
        let sorted = changes.sorted { $0.entry < $1.entry }
        var net: [PendingDate] = []
        net.reserveCapacity(sorted.count)
        for change in sorted {
            if let last = net.last, last.entry == change.entry {
                net[net.count - 1].delta += change.delta
                continue
            }
            // A date whose changes added up to nothing gives its place to the next.
            if let last = net.last, last.delta == 0 { net.removeLast() }
            net.append(change)
        }
        if let last = net.last, last.delta == 0 { net.removeLast() }
        return net
    }

    /// A timeline's earliest and latest dates, its pending changes counted in: the first
    /// and last of its dates whose count with the changes stays above zero, and the
    /// changes' own new dates.
    /// - Complexity: O(log *d*) without pending changes; O(*k* log *k* + *k* log *d*) for
    ///   *k* of them.
    private static func extremes(of timeline: Timeline) -> (earliest: DatedEntry?, latest: DatedEntry?) {
        let dates = timeline.dates
        guard !timeline.pendingDates.isEmpty else {
            return (dates.isEmpty ? nil : dates[0].entry, dates.isEmpty ? nil : dates[dates.count - 1].entry)
        }
        let net = netted(timeline.pendingDates)
        /// Whether a date of the tree is still there, its changes counted in (`net` is in
        /// date order).
        func stays(_ date: CountedDate) -> Bool {
            let at = net.partitioningIndex { !($0.entry < date.entry) }
            let delta = at < net.count && net[at].entry == date.entry ? net[at].delta : 0
            return date.count + delta > 0
        }
        // Only a change can take a date out, so at most `net.count` dates are passed over.
        var earliest: DatedEntry?
        for k in 0..<dates.count where stays(dates[k]) {
            earliest = dates[k].entry
            break
        }
        var latest: DatedEntry?
        for k in stride(from: dates.count - 1, through: 0, by: -1) where stays(dates[k]) {
            latest = dates[k].entry
            break
        }
        // A date counted in on balance is there, whether the tree has it or not.
        for change in net where change.delta > 0 {
            if earliest.map({ change.entry < $0 }) ?? true { earliest = change.entry }
            if latest.map({ $0 < change.entry }) ?? true { latest = change.entry }
        }
        return (earliest, latest)
    }

    /// The summary of one timeline as it stands, or `nil` if it does not exist.
    private func summary(of id: TimelineID) -> TimelineSummary? {
        guard let timeline = timelines[id] else { return nil }
        let (earliest, latest) = Self.extremes(of: timeline)
        return TimelineSummary(
            id: id, name: timeline.name, eventCount: timeline.eventCount,
            earliest: earliest?.date, latest: latest?.date, ongoingCount: timeline.ongoingCount)
    }

    /// The list order: by name, then id, both as UTF-8 bytes.
    private static func precedes(_ a: TimelineSummary, _ b: TimelineSummary) -> Bool {
        let c = EventID.compareUTF8(a.name, b.name)
        return c != 0 ? c < 0 : EventID.compareUTF8(a.id.rawValue, b.id.rawValue) < 0
    }

    /// Brings the summaries of the timelines gathered up to date in the sorted list, and
    /// stops gathering (`gathering` → `tracking`, the set's storage kept); returns each
    /// touched timeline's old index and new index and whether its summary changed.
    ///
    /// The common case — the touched timelines keep their names, so their places — updates
    /// the summaries in place; otherwise the touched summaries are taken out and put back
    /// in order.
    /// - Complexity: O(*k* log *t*) for *k* touched of *t* timelines, plus moving array
    ///   elements when a timeline is created, renamed or removed.
    private mutating func updateList() -> [ChangeSetBuilder<TimelineID>.Touched] {
        guard var touched = state.stopGathering() else { return [] }
        let result = updateList(touched)
        touched.removeAll(keepingCapacity: true)
        state = .tracking(spare: touched)
        return result
    }

    /// ``updateList()`` for the timelines `touched`.
    private mutating func updateList(_ touched: Set<TimelineID>) -> [ChangeSetBuilder<TimelineID>.Touched] {
        guard !touched.isEmpty else { return [] }
        var result: [ChangeSetBuilder<TimelineID>.Touched] = []
        // Where each touched timeline is in the list now, found by the name it is listed under.
        var olds: [(id: TimelineID, index: Int?, fresh: TimelineSummary?)] = []
        olds.reserveCapacity(touched.count)
        // The same, while every touched timeline is listed and keeps its name (its place).
        var inPlace: [(id: TimelineID, index: Int, fresh: TimelineSummary)] = []
        var keepsPlaces = true
        for id in touched {
            let index = listedNames[id].flatMap { name in
                let at = insertionIndex(name: name, id: id)
                return at < list.count && list[at].id == id ? at : nil
            }
            let fresh = summary(of: id)
            if keepsPlaces, let index, let fresh, fresh.name == listedNames[id] {
                inPlace.append((id, index, fresh))
            } else {
                keepsPlaces = false
            }
            olds.append((id, index, fresh))
        }
        if keepsPlaces {
            for old in inPlace where list[old.index] != old.fresh {
                list[old.index] = old.fresh
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
        list.partitioningIndex { summary in
            let c = EventID.compareUTF8(summary.name, name)
            return c > 0 || (c == 0 && EventID.compareUTF8(summary.id.rawValue, id.rawValue) >= 0)
        }
    }

    /// Ends a batch at `to`: the change set, or `nil` when no summary changed.
    mutating func endBatch(to: Int64) -> SummaryChangeSet? {
        switch state {
        case .tracking, .untracked:
            return nil
        case .untrackedBatch(let listIsBehind, let touchedTimeline):
            // Not described, but the position still follows the summaries, so that a
            // change set made later (after a checkpoint, say) goes from where they were.
            state = .untracked(listIsBehind: listIsBehind)
            if touchedTimeline { position = to }
            return nil
        case .gathering:
            break
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
    /// and timelines changed, a list made now (pending date changes taken into account,
    /// not counted in).
    /// - Complexity: O(1) when the list is up to date; otherwise O(*t* log *t*) for *t*
    ///   timelines, plus O(*k* log *k* + *k* log *d*) for a timeline's *k* pending changes.
    var currentList: [TimelineSummary] {
        switch state {
        case .tracking: list
        case .gathering(let touched): touched.isEmpty ? list : sortedSummaries()
        case .untracked(let listIsBehind), .untrackedBatch(let listIsBehind, _): listIsBehind ? sortedSummaries() : list
        }
    }

    /// Every timeline's summary, sorted by name and then id.
    /// - Complexity: O(*t* log *t*) for *t* timelines.
    private func sortedSummaries() -> [TimelineSummary] {
        timelines.keys.compactMap(summary(of:)).sorted(by: Self.precedes)
    }

    /// Starts or stops describing each batch's change. Starting counts in the dates left
    /// pending and brings the list up to date first, without a change set: a subscriber
    /// starts from the list as it is then.
    /// - Complexity: O(*k* log *d*) for *k* pending date changes, and O(*t* log *t*) for *t*
    ///   timelines if one changed.
    mutating func trackChanges(_ on: Bool) {
        switch (state, on) {
        case (.tracking, false):
            state = .untracked(listIsBehind: false)
        case (.gathering(let touched), false):
            // The timelines the batch touched so far are behind in the list.
            state = .untrackedBatch(listIsBehind: !touched.isEmpty, touchedTimeline: !touched.isEmpty)
        case (.untracked(let listIsBehind), true):
            catchUp(listIsBehind: listIsBehind)
            state = .tracking(spare: [])
        case (.untrackedBatch(let listIsBehind, _), true):
            catchUp(listIsBehind: listIsBehind)
            state = .gathering(touched: [])
        case (.tracking, true), (.gathering, true), (.untracked, false), (.untrackedBatch, false):
            break
        }
    }

    /// Counts in the dates left pending, and makes the list afresh if it is behind.
    private mutating func catchUp(listIsBehind: Bool) {
        for index in timelines.indices where !timelines.values[index].pendingDates.isEmpty {
            Self.countPendingDates(in: &timelines.values[index])
        }
        if listIsBehind { makeList() }
    }
}
