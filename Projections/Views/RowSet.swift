import TimelineCore

/// The rows of every view with one filter and one placement, kept once, incrementally, and
/// the views that show them.
///
/// Such views have the same rows in the same order: their sort order (a descending view
/// reads the index backwards) and their sections only change how the rows are read. A
/// list and its sectioned variant therefore cost one index, one search per changed row
/// and one build.
struct RowSet: Sendable {
    let filter: RowFilter
    let placement: OngoingPlacement
    private(set) var index = OrderedIndex<RowEntry>()
    /// The views of these rows, in the order they were added.
    private(set) var views: [ViewState] = []

    /// The batch in progress and the storage it works in; between batches, the storage
    /// the last one left for the next (see ``BatchState``).
    private var batch = BatchState.idle(spare: nil)

    /// The most rows a batch may have touched for its storage to be kept for the next.
    static let spareRowLimit = 16

    /// A batch of the row set, which owns the storage it works in. Transitions: `idle` →
    /// `batching` at its start, handed the spare storage (``begin(now:oldIndices:)``);
    /// `batching` → `idle` at its end, or when the rows are replaced (``end()``), with the
    /// storage the batch leaves (``BatchStorage/keepForNext()``).
    ///
    /// The state is moved out (`consume`) and back to be changed: changed through a copy,
    /// each of the storage's arrays would be retained and released, or copied.
    private enum BatchState {
        /// No batch: the storage the last one left for the next; `nil` before the first
        /// batch, and while the end of one has it out (cheaper to put there and drop than
        /// an empty storage, whose every array is released).
        case idle(spare: BatchStorage?)
        /// A batch in progress, and its storage: apart, so that the batch's end moves the
        /// storage out whole.
        case batching(Batch, BatchStorage)

        /// Starts a batch, unless one is in progress.
        mutating func begin(now: Int64, oldIndices: Batch.OldIndices) {
            switch consume self {
            case .idle(let spare): self = .batching(Batch(now: now, oldIndices: oldIndices), spare ?? BatchStorage())
            case .batching(let batch, let storage): self = .batching(batch, storage)
            }
        }

        /// Changes the batch in progress and its storage in place; nothing without one.
        mutating func modify(_ body: (inout Batch, inout BatchStorage) -> Void) {
            switch consume self {
            case .idle(let spare):
                self = .idle(spare: spare)
            case .batching(var batch, var storage):
                body(&batch, &storage)
                self = .batching(batch, storage)
            }
        }

        /// Ends the batch in progress, handing it and its storage over: `idle` without
        /// storage until the caller puts back what the batch leaves. `nil` without a batch.
        mutating func end() -> (Batch, BatchStorage)? {
            switch consume self {
            case .idle(let spare):
                self = .idle(spare: spare)
                return nil
            case .batching(let batch, let storage):
                self = .idle(spare: nil)
                return (batch, storage)
            }
        }
    }

    /// The arrays a batch works in, kept emptied between batches: two allocations per
    /// command otherwise. Only a small batch's are kept, so that one large batch (a
    /// timeline's removal) does not hold its arrays for good.
    ///
    /// The index lists built for each order the views read the rows in are kept too
    /// (``ChangeSetBuilder/Storage``), although the change sets made from them share their
    /// storage: once a subscriber drops those change sets, the lists are the row set's
    /// own again, and the next batch of one or two rows builds into them without
    /// allocating. A change set that is still held keeps its lists. (A descending view's
    /// rows are still reversed into an array of their own each batch.)
    private struct BatchStorage {
        /// The insertions and removals, in order (while the batch's old indices are
        /// found by undoing them).
        var operations: [IndexOperation] = []
        /// Rows touched: their entry before the batch, its old index, their entry now.
        var touched = TouchedRows()
        /// The touched rows' old and new indices, ascending, made at the batch's end.
        var described: [ChangeSetBuilder<RowID>.Touched] = []
        var ascending = ChangeSetBuilder<RowID>.Storage()
        var descending = ChangeSetBuilder<RowID>.Storage()

        /// The index before the batch of a row that is at `index` now and was not touched yet.
        func originalIndex(_ index: Int) -> Int {
            var p = index
            for operation in operations.reversed() {
                switch operation {
                case .insert(let at): if p > Int(at) { p -= 1 }
                case .remove(let at): if p >= Int(at) { p += 1 }
                }
            }
            return p
        }

        /// Makes this the storage kept for the next batch once the batch that worked in it
        /// ended: itself, emptied, if that batch touched at most ``RowSet/spareRowLimit``
        /// rows in at most four times as many operations; otherwise only the lists built
        /// into, which a larger batch leaves as they were (``ChangeSetBuilder/build(_:reusing:)``).
        mutating func keepForNext() {
            guard touched.count <= RowSet.spareRowLimit, operations.count <= 4 * RowSet.spareRowLimit else {
                self = BatchStorage(ascending: ascending, descending: descending)
                return
            }
            operations.removeAllKeepingStorage()
            touched.removeAll()
            described.removeAllKeepingStorage()
        }
    }

    /// A batch in progress.
    ///
    /// A row's index in the old list is found at its first touch by undoing the batch's
    /// earlier insertions and removals (O(*k*) for *k* operations): no copy of the old
    /// index is kept, so a batch of a few records copies no tree node unless a subscriber
    /// still holds the previous rows. A large batch keeps the old index instead (an O(1)
    /// copy) and ranks old rows in it at the end.
    private struct Batch {
        /// "Now" at its start.
        let now: Int64
        var oldIndices: OldIndices

        /// More operations than this without a snapshot: the change is a reset.
        static let operationLimit = 512

        /// How a batch finds the index a touched row had before it.
        enum OldIndices {
            /// By undoing the operations recorded since, at the row's first touch.
            case undoing
            /// Past ``operationLimit`` operations, too many to undo: the batch ends in a reset.
            case overflowed
            /// By ranking the row, at the batch's end, in the index as it was at its start.
            case snapshot(OrderedIndex<RowEntry>)
        }

        /// The index as it was at the batch's start, if it was kept.
        var snapshot: OrderedIndex<RowEntry>? {
            if case .snapshot(let index) = oldIndices { index } else { nil }
        }

        /// Notes in `storage` row `id`'s first touch: its entry `old` and index `at` before
        /// the batch's later changes (`nil` for a row not there).
        func noteFirstTouch(_ id: RowID, old: RowEntry?, at: Int?, in storage: inout BatchStorage) {
            var oldIndex: Int?
            if let at, case .undoing = oldIndices { oldIndex = storage.originalIndex(at) }
            storage.touched.append(TouchedRows.Touch(id: id, old: old, oldIndex: oldIndex, new: old, newIndex: at))
        }

        /// Records in `storage` an insertion or a removal, and the entry `new` that touched
        /// row `id` has after it, at index `at` (`nil`: removed).
        mutating func record(_ operation: IndexOperation, new: RowEntry?, at: Int?, for id: RowID,
                             in storage: inout BatchStorage) {
            if case .undoing = oldIndices {
                if storage.operations.count >= Self.operationLimit {
                    oldIndices = .overflowed
                } else {
                    storage.operations.append(operation)
                    storage.touched.shift(for: operation)
                }
            }
            storage.touched.setNew(new, at: at, for: id)
        }
    }

    /// An empty set of the rows `filter` lets in, placed by `placement`, with no views yet.
    init(filter: RowFilter, placement: OngoingPlacement) {
        self.filter = filter
        self.placement = placement
    }

    /// Whether `definition`'s rows are these rows.
    func holds(_ definition: ViewDefinition) -> Bool {
        definition.filter == filter && definition.placement == placement
    }

    // MARK: Views

    /// Adds a view of these rows, at log position `position`.
    /// - Complexity: O(*n*) for *n* rows with sections, O(1) without.
    mutating func addView(_ definition: ViewDefinition, position: Int64, now: Int64) {
        precondition(holds(definition), "a view joins the row set of its filter and placement")
        var view = ViewState(definition: definition, position: position)
        view.countSections(of: index, order: order(now: now))
        views.append(view)
    }

    /// Stops maintaining the view at `offset` in ``views``.
    mutating func removeView(at offset: Int) {
        views.remove(at: offset)
    }

    // MARK: Reading

    /// The rows, in a view's order.
    func rows(descending: Bool) -> RowList { RowList(index: index, descending: descending) }

    func order(now: Int64) -> RowOrder { RowOrder(placement: placement, now: now) }

    /// The sections of the view at `offset` in list order (empty without sectioning).
    func sections(ofView offset: Int, now: Int64) -> SectionList {
        views[offset].sectionList(views[offset].ascendingSections(marked: index.markedCount, now: now))
    }

    // MARK: Building

    /// Replaces all rows with those of `events`, sorting them, and moves every view to
    /// `position` (used to build the views).
    /// - Complexity: O(*n* log *n*).
    mutating func rebuild(events: EventTable, now: Int64, position: Int64) {
        resort(events: events, now: now)
        moveViews(to: position)
    }

    /// Sets every view's position to `position`.
    mutating func moveViews(to position: Int64) {
        for offset in views.indices { views[offset].position = position }
    }

    /// Sets the position of the view at `offset` to `position`.
    mutating func moveView(at offset: Int, to position: Int64) {
        views[offset].position = position
    }

    /// Replaces all rows with those of `events`, sorting them; the views keep their
    /// positions (a reset that follows goes on from each view's last change set).
    /// - Complexity: O(*n* log *n*).
    mutating func resort(events: EventTable, now: Int64) {
        replaceRows(with: order(now: now).sortedIndex(of: events, includes: filter.includes), now: now)
    }

    /// Replaces all rows with those of `rows`, already in order, and counts the views'
    /// sections afresh; the views keep their positions.
    /// - Complexity: O(*n*) for each view with sections, O(1) for the others.
    mutating func replaceRows(with rows: OrderedIndex<RowEntry>, now: Int64) {
        index = rows
        let order = order(now: now)
        for offset in views.indices { views[offset].countSections(of: rows, order: order) }
        if case (_, var storage)? = batch.end() {
            storage.keepForNext()
            batch = .idle(spare: storage)
        }
    }

    // MARK: Batches

    /// Takes the events a batch of records touched in `table` (the events after it), each
    /// from its snapshot before the batch to its last, appending a change set for each view in which something visible
    /// changed. When more than `resetThreshold` of them have rows here, the rows are
    /// sorted afresh and every view resets (as touching that many rows one by one would
    /// end); otherwise each event's rows are replaced (see ``withBatch(startingAt:large:endingAt:now:resetThreshold:into:_:)``).
    /// - Complexity: O(*k* log *n*) for *k* touched events; O(*n* log *n*) for a reset.
    mutating func apply(_ events: [TouchedEvent], of table: EventTable, now: Int64, large: Bool, to position: Int64,
                        resetThreshold: Int, into changes: inout [ChangeSet]) {
        if events.count > resetThreshold {
            let mine = events.count { event in
                event.old.map(filter.includes) == true || event.new.map(filter.includes) == true
            }
            if mine > resetThreshold {
                resort(events: table, now: now)
                reset(to: position, now: now, into: &changes)
                return
            }
        }
        withBatch(startingAt: now, large: large, endingAt: position, now: now, resetThreshold: resetThreshold,
                  into: &changes) { rows in
            for event in events { rows.project(old: event.old, new: event.new, idPrefix: event.idPrefix, now: now) }
        }
    }

    /// Runs one batch: `body` changes the rows (``insert(_:now:)``, ``remove(_:now:)``,
    /// ``project(old:new:idPrefix:now:)``) with "now" at `startNow`; then the batch ends
    /// at log position `position` and `now`, appending a change set for each view in which
    /// something visible changed (resets when more than `resetThreshold` rows were
    /// touched). `large` keeps a copy of the old index (O(1)) instead of tracking each
    /// operation. The batch's working storage is the row set's own, between calls.
    mutating func withBatch(startingAt startNow: Int64, large: Bool, endingAt position: Int64, now: Int64,
                            resetThreshold: Int, into changes: inout [ChangeSet], _ body: (inout RowSet) -> Void) {
        beginBatch(now: startNow, large: large)
        body(&self)
        endBatch(to: position, now: now, resetThreshold: resetThreshold, into: &changes)
    }

    /// Starts collecting the changes of a batch; `large` keeps a copy of the old index
    /// (O(1)) instead of tracking operations.
    private mutating func beginBatch(now: Int64, large: Bool) {
        let oldIndices: Batch.OldIndices = large ? .snapshot(index) : .undoing
        batch.begin(now: now, oldIndices: oldIndices)
    }

    /// Removes a row.
    /// - Complexity: O(log *n*), and O(log *s*) per view with *s* sections.
    mutating func remove(_ entry: RowEntry, now: Int64) {
        let order = order(now: now)
        Self.withPathSteps { steps in
            guard let (at, id, path) = touchRow(entry, order: order, recording: steps) else { return }
            let removed = index.remove(at: at, along: path)
            countInViews(removed, order: order, -1)
            batch.modify { current, storage in
                current.record(.remove(at: Int32(at)), new: nil, at: nil, for: id, in: &storage)
            }
        }
    }

    /// Inserts a row.
    /// - Complexity: O(log *n*), and O(log *s*) per view with *s* sections.
    mutating func insert(_ entry: RowEntry, now: Int64) {
        let order = order(now: now)
        Self.withPathSteps { steps in
            let (at, path) = order.position(of: entry, in: index, recording: steps)
            noteFirstTouch(entry.id, old: nil, at: nil)
            index.insert(entry, at: at, along: path)
            countInViews(entry, order: order, 1)
            batch.modify { current, storage in
                current.record(.insert(at: Int32(at)), new: entry, at: at, for: entry.id, in: &storage)
            }
        }
    }

    /// Replaces a row with one that sorts in the same place (a new title).
    /// - Complexity: O(log *n*).
    mutating func replace(_ old: RowEntry, with new: RowEntry, now: Int64) {
        let order = order(now: now)
        Self.withPathSteps { steps in
            guard let (at, id, path) = touchRow(old, order: order, recording: steps) else { return }
            index.update(at: at, with: new, along: path)
            batch.modify { _, storage in storage.touched.setNew(new, at: at, for: id) }
        }
    }

    /// Calls `body` with room for a walk's way down (``OrderedIndex/Path``), on the stack,
    /// so that the change after a search takes each node's child from the search.
    private static func withPathSteps<R>(
        _ body: (UnsafeMutableBufferPointer<OrderedIndex<RowEntry>.PathStep>) -> R
    ) -> R {
        withUnsafeTemporaryAllocation(of: OrderedIndex<RowEntry>.PathStep.self,
                                      capacity: OrderedIndex<RowEntry>.Path.capacity, body)
    }

    /// Finds the row `entry` stands for and notes that the batch touches it, returning its
    /// index, its id and the walk's way down (in `steps`); `nil` if the index does not
    /// hold that row.
    private mutating func touchRow(
        _ entry: RowEntry, order: RowOrder,
        recording steps: UnsafeMutableBufferPointer<OrderedIndex<RowEntry>.PathStep>
    ) -> (at: Int, id: RowID, path: OrderedIndex<RowEntry>.Path)? {
        let (at, row, path) = order.find(entry, in: index, recording: steps)
        guard let current = row, entry.isSameRow(as: current) else { return nil }
        let id = entry.id
        noteFirstTouch(id, old: current, at: at)
        return (at, id, path)
    }

    /// Replaces an event's rows as it was (`nil` if it is new) with its rows as it is
    /// (`nil` if it was removed): a row whose sort key is unchanged is replaced in place,
    /// the others are removed and inserted. `idPrefix` is the first eight bytes of the
    /// event's id (``RowOrder/prefix(_:)``), read once for every row set.
    /// - Complexity: O(log *n*).
    mutating func project(old: EventSnapshot?, new: EventSnapshot?, idPrefix: UInt64, now: Int64) {
        assert((new ?? old).map { idPrefix == RowOrder.prefix($0.id.rawValue) } ?? true, "the prefix of another id")
        let olds = EventRows(old, idPrefix: idPrefix, filter: filter, placement: placement, now: now)
        var news = EventRows(new, idPrefix: idPrefix, filter: filter, placement: placement, now: now)
        if let entry = olds.first { replaceOrRemove(entry, from: &news, now: now) }
        if let entry = olds.second { replaceOrRemove(entry, from: &news, now: now) }
        if let entry = news.first { insert(entry, now: now) }
        if let entry = news.second { insert(entry, now: now) }
    }

    /// Replaces `old` with the row of `news` that sorts where it does, taking that row out
    /// of `news`, or removes `old` when there is none.
    private mutating func replaceOrRemove(_ old: RowEntry, from news: inout EventRows, now: Int64) {
        if let new = news.take(where: { Self.sortsInPlaceOf($0, old) }) {
            replace(old, with: new, now: now)
        } else {
            remove(old, now: now)
        }
    }

    /// Whether `new` sorts exactly where `old` does (same instant, role and placement).
    private static func sortsInPlaceOf(_ new: RowEntry, _ old: RowEntry) -> Bool {
        new.instantKey == old.instantKey && new.kind.role == old.kind.role && new.isMarked == old.isMarked
            && new.nanoseconds == old.nanoseconds
            && (new.kind == .ongoing) == (old.kind == .ongoing)
    }

    private mutating func countInViews(_ entry: RowEntry, order: RowOrder, _ delta: Int) {
        // Mutating calls: reading a property of `views[offset]` copied the view.
        for offset in views.indices { views[offset].count(entry, order: order, delta) }
    }

    /// Notes that the batch touches row `id`, at index `at` with entry `old` (`nil` for a
    /// new row), unless it touched it before.
    private mutating func noteFirstTouch(_ id: RowID, old: RowEntry?, at: Int?) {
        var isFirstChange = false
        batch.modify { current, storage in
            guard !storage.touched.contains(id) else { return }
            isFirstChange = storage.touched.isEmpty
            current.noteFirstTouch(id, old: old, at: at, in: &storage)
        }
        // Noted at the batch's first change, not its start: most batches leave most row sets alone.
        if isFirstChange {
            let marked = index.markedCount
            for offset in views.indices { views[offset].noteBatchStart(marked: marked) }
        }
    }

    /// Ends the batch at log position `to`, appending to `changes` a change set for each
    /// view in which something visible changed. Touching more than `resetThreshold` rows
    /// gives resets.
    private mutating func endBatch(to: Int64, now: Int64, resetThreshold: Int, into changes: inout [ChangeSet]) {
        guard case (let ended, var storage)? = batch.end() else { return }
        appendChanges(of: ended, in: &storage, to: to, now: now, resetThreshold: resetThreshold, into: &changes)
        storage.keepForNext()
        batch = .idle(spare: storage)
    }

    /// Appends to `changes` a change set for each view in which `batch`, ended at log
    /// position `to` and `now`, changed something visible; resets for a batch that touched
    /// more than `resetThreshold` rows or overflowed. Works in the batch's `storage`.
    private mutating func appendChanges(of batch: Batch, in storage: inout BatchStorage, to: Int64, now: Int64,
                                        resetThreshold: Int, into changes: inout [ChangeSet]) {
        if storage.touched.isEmpty && batch.now == now { return }
        let marked = index.markedCount
        if storage.touched.count > resetThreshold {
            reset(to: to, now: now, into: &changes)
            return
        }
        let oldCount: Int, newCount = index.count
        switch batch.oldIndices {
        case .overflowed:
            reset(to: to, now: now, into: &changes)
            return
        case .snapshot(let old): oldCount = old.count
        case .undoing: oldCount = newCount - storage.operations.reduce(0) { $0 + $1.countChange }
        }
        describe(batch, into: &storage, now: now)
        let rows = storage.described
        // Built once for each order the views read the rows in, into the lists the last batch's change sets had.
        var ascending: ChangeSetBuilder<RowID>.Result?, descending: ChangeSetBuilder<RowID>.Result?
        for offset in views.indices {
            let isDescending = views[offset].definition.order == .descending
            let built: ChangeSetBuilder<RowID>.Result
            if isDescending {
                if let descending { built = descending } else {
                    built = ChangeSetBuilder.build(Self.reversed(rows, oldCount, newCount),
                                                   reusing: &storage.descending)
                    descending = built
                }
            } else {
                if let ascending { built = ascending } else {
                    built = ChangeSetBuilder.build(rows, reusing: &storage.ascending)
                    ascending = built
                }
            }
            let changeSet = views[offset].endBatch(
                from: batch.now, to: to, now: now, marked: marked, built: built,
                updated: { Self.updatedIndices(rows, descending: isDescending, newCount: newCount) },
                rows: self.rows(descending: isDescending))
            if let changeSet {
                changes.append(changeSet)
            }
        }
    }

    /// Puts in `storage.described` the indices before and after `batch` of the rows it
    /// touched, ascending.
    private func describe(_ batch: Batch, into storage: inout BatchStorage, now: Int64) {
        let oldOrder = order(now: batch.now), newOrder = order(now: now)
        let snapshot = batch.snapshot
        storage.described.reserveCapacity(storage.touched.count)
        // Read in place: a copy of each touched row retained its id and both entries.
        storage.touched.rows.withUnsafeBufferPointer { touches in
            for i in touches.indices {
                var old = touches[i].oldIndex, new = touches[i].newIndex
                if let snapshot {
                    // A small batch knows where its rows are; a large one looks them up.
                    old = touches[i].old.map { oldOrder.position(of: $0, in: snapshot) }
                    new = touches[i].new.map { newOrder.position(of: $0, in: index) }
                }
                assert((old == nil) == (touches[i].old == nil) && (new == nil) == (touches[i].new == nil),
                       "a touched row's index is kept exactly when it has an entry")
                var changed = false
                if let before = touches[i].old, let after = touches[i].new {
                    changed = !before.hasSameContent(as: after)
                }
                storage.described.append(.init(id: touches[i].id, old: old, new: new, contentChanged: changed))
            }
        }
    }

    /// The new index of each row of `rows` whose content changed, counted from the end of
    /// a list of `newCount` rows if `descending`.
    private static func updatedIndices(_ rows: [ChangeSetBuilder<RowID>.Touched], descending: Bool, newCount: Int)
        -> [UpdatedIndex] {
        rows.compactMap { row in
            guard row.contentChanged, row.old != nil, let new = row.new else { return nil }
            return UpdatedIndex(id: row.id, index: descending ? newCount - 1 - new : new)
        }
    }

    /// `rows` with their indices counted from the end of lists of `oldCount` and `newCount` rows.
    private static func reversed(_ rows: [ChangeSetBuilder<RowID>.Touched], _ oldCount: Int, _ newCount: Int)
        -> [ChangeSetBuilder<RowID>.Touched] {
        rows.map { row in
            .init(id: row.id, old: row.old.map { oldCount - 1 - $0 }, new: row.new.map { newCount - 1 - $0 },
                  contentChanged: row.contentChanged)
        }
    }

    /// Reset change sets to the current rows, one per view, for batches too large to animate.
    mutating func reset(to: Int64, now: Int64, into changes: inout [ChangeSet]) {
        let marked = index.markedCount
        for offset in views.indices {
            let rows = rows(descending: views[offset].definition.order == .descending)
            changes.append(views[offset].reset(to: to, marked: marked, now: now, rows: rows))
        }
    }

    // MARK: The clock

    /// The rows that sort at `now` because of it: the ongoing rows whose range started by then.
    /// - Complexity: O((*m* + *d*) log *n*) for *m* such rows and *d* dated rows at exactly `now`.
    func rowsAtNow(_ now: Int64) -> [RowEntry] {
        guard placement == .now, index.markedCount > 0 else { return [] }
        let order = order(now: now)
        let lo = index.partitionIndex { order.instant($0) >= order.now }
        let hi = index.partitionIndex { order.instant($0) > order.now }
        return (lo..<hi).map { index[$0] }.filter(\.isMarked)
    }

    /// The rows whose place depends on "now" between `from` and `to` (`from` <= `to`): rows
    /// that are not marked with an instant in `from...to`.
    /// - Complexity: O(*k* log *n*) for the *k* rows returned.
    func rowsPassed(from: Int64, to: Int64) -> [RowEntry] {
        guard placement == .now else { return [] }
        let lo = index.partitionIndex { order(now: from).instant($0) >= from }
        let hi = index.partitionIndex { order(now: from).instant($0) > to }
        let firstUnmarked = lo - index.markedCount(before: lo)
        let endUnmarked = hi - index.markedCount(before: hi)
        guard firstUnmarked < endUnmarked else { return [] }
        return (firstUnmarked..<endUnmarked).map { index[index.indexOfUnmarked($0)] }
    }
}

/// An insertion into or a removal from a row set's index, as a batch records it: in one
/// word, as a batch keeps many (an index holds fewer than 2³¹ rows).
enum IndexOperation: Equatable {
    /// A row was inserted at this index.
    case insert(at: Int32)
    /// The row at this index was removed.
    case remove(at: Int32)

    /// How the operation changes the number of rows.
    var countChange: Int {
        switch self {
        case .insert: 1
        case .remove: -1
        }
    }
}
