import TimelineCore

/// One view's rows, sections and position, maintained incrementally.
struct ViewState: Sendable {
    let definition: ViewDefinition
    private(set) var index = OrderedIndex<RowEntry>()
    private(set) var sectionCounts = SectionCounts()
    /// The log position of the view's latest change (or of its creation).
    private(set) var position: Int64

    /// What the current batch needs to describe its change, while it is being applied.
    private var batch: Batch?
    /// The last batch's working storage, emptied, for the next batch: two allocations
    /// per view and command otherwise. Only a small batch's storage is kept, so that one
    /// large batch (a timeline's removal) does not hold its arrays for good.
    private var spare = (operations: [Int](), touched: TouchedRows(), described: [ChangeSetBuilder<RowID>.Touched]())

    /// The most rows a batch may have touched for its storage to be kept for the next.
    static let spareRowLimit = 16

    /// How many touched rows the kept storage has room for (for tests).
    var spareCapacity: Int { spare.touched.capacity }

    /// A batch in progress.
    ///
    /// A row's index in the old list is found at its first touch by undoing the batch's
    /// earlier insertions and removals (O(*k*) for *k* operations): no copy of the old
    /// index is kept, so a batch of a few records copies no tree node unless a subscriber
    /// still holds the previous rows. A large batch keeps the old index instead (an O(1)
    /// copy) and ranks old rows in it at the end.
    private struct Batch {
        /// The sections before the batch, taken at its first change (most batches leave
        /// most views alone, and taking them costs arrays).
        var sections: KeyedSections?
        var now: Int64
        var snapshot: OrderedIndex<RowEntry>?
        /// Insertions as `j + 1`, removals as `-(i + 1)`, in order.
        var operations: [Int] = []
        /// Rows touched: their entry before the batch, its old index, their entry now.
        var touched = TouchedRows()
        /// More operations than `operationLimit` without a snapshot: the change is a reset.
        var overflowed = false

        static let operationLimit = 512

        /// The index before the batch of a row that is at `index` now and was not touched yet.
        func originalIndex(_ index: Int) -> Int {
            var p = index
            for operation in operations.reversed() {
                if operation > 0 {
                    if p >= operation { p -= 1 }  // undo an insertion at operation - 1
                } else if p >= -operation - 1 {
                    p += 1  // undo a removal at -operation - 1
                }
            }
            return p
        }
    }


    init(definition: ViewDefinition, position: Int64) {
        self.definition = definition
        self.position = position
    }

    // MARK: Reading

    func rows() -> RowList { RowList(index: index, descending: definition.order == .descending) }

    func order(now: Int64) -> RowOrder { RowOrder(placement: definition.placement, now: now) }

    /// The sections in list order (empty without sectioning).
    func sections(now: Int64) -> SectionList { sectionList(ascendingSections(now: now)) }

    private func sectionList(_ ascending: KeyedSections) -> SectionList {
        SectionList(keyed: ascending, sectioning: definition.sections, descending: definition.order == .descending)
    }

    private func ascendingSections(now: Int64) -> KeyedSections {
        Self.ascendingSections(sectionCounts, marked: index.markedCount, sectioning: definition.sections, now: now)
    }

    private static func ascendingSections(_ counts: SectionCounts, marked: Int, sectioning: Sectioning,
                                          now: Int64) -> KeyedSections {
        guard sectioning != .none else { return KeyedSections() }
        let nowKey = SectionKey(group: 0, bucket: SectionKey.bucket(of: now, sectioning))
        return counts.sections(marked: marked, nowKey: nowKey)
    }

    private func sectionKey(of entry: RowEntry, order: RowOrder) -> SectionKey? {
        guard definition.sections != .none, !entry.isMarked else { return nil }
        let group = order.group(entry.kind)
        if entry.kind == .ongoing, definition.placement != .now {
            return SectionKey(group: group, bucket: SectionKey.ongoingBucket)
        }
        return SectionKey(group: group, bucket: SectionKey.bucket(of: entry.instant, definition.sections))
    }

    // MARK: Building

    /// Replaces all rows with those of `events`, sorting them (used to build or rebuild a view).
    /// - Complexity: O(*n* log *n*).
    mutating func rebuild(events: EventTable, now: Int64, position: Int64) {
        let filter = definition.filter
        restore(index: order(now: now).sortedIndex(of: events, includes: filter.includes), now: now, position: position)
    }

    /// Replaces all rows with those of `restored`, already in the view's order.
    /// - Complexity: O(*n*) with sections, O(1) without.
    mutating func restore(index restored: OrderedIndex<RowEntry>, now: Int64, position: Int64) {
        let order = order(now: now)
        index = restored
        sectionCounts = SectionCounts()
        if definition.sections != .none {
            for entry in restored { if let key = sectionKey(of: entry, order: order) { sectionCounts.add(key, 1) } }
        }
        self.position = position
        batch = nil
    }

    // MARK: Batches

    /// Starts collecting the changes of a batch; `large` keeps a copy of the old index
    /// (O(1)) instead of tracking operations.
    mutating func beginBatch(now: Int64, large: Bool = false) {
        guard batch == nil else { return }
        var batch = Batch(sections: nil, now: now, snapshot: large ? index : nil)
        swap(&batch.operations, &spare.operations)
        swap(&batch.touched, &spare.touched)
        self.batch = batch
    }

    /// Removes a row from the view.
    /// - Complexity: O(log *n*).
    mutating func remove(_ entry: RowEntry, now: Int64) {
        let order = order(now: now)
        let at = order.position(of: entry, in: index)
        guard at < index.count else { return }
        let current = index[at]
        guard entry.isSameRow(as: current) else { return }
        let id = entry.id
        noteFirstTouch(id, old: current, at: at)
        let removed = index.remove(at: at)
        if let key = sectionKey(of: removed, order: order) { sectionCounts.add(key, -1) }
        record(-(at + 1))
        batch?.touched.setNew(nil, at: nil, for: removed.id)
    }

    /// Inserts a row into the view.
    /// - Complexity: O(log *n*).
    mutating func insert(_ entry: RowEntry, now: Int64) {
        let order = order(now: now)
        let at = order.position(of: entry, in: index)
        noteFirstTouch(entry.id, old: nil, at: nil)
        index.insert(entry, at: at)
        if let key = sectionKey(of: entry, order: order) { sectionCounts.add(key, 1) }
        record(at + 1)
        batch?.touched.setNew(entry, at: at, for: entry.id)
    }

    /// Replaces a row with one that sorts in the same place (a new title).
    /// - Complexity: O(log *n*).
    mutating func replace(_ old: RowEntry, with new: RowEntry, now: Int64) {
        let order = order(now: now)
        let at = order.position(of: old, in: index)
        guard at < index.count else { return }
        let current = index[at]
        guard old.isSameRow(as: current) else { return }
        let id = old.id
        noteFirstTouch(id, old: current, at: at)
        index.update(at: at, with: new)
        batch?.touched.setNew(new, at: at, for: id)
    }

    private mutating func noteFirstTouch(_ id: RowID, old: RowEntry?, at: Int?) {
        guard batch != nil, !batch!.touched.contains(id) else { return }
        if batch!.sections == nil {
            // From the parts, not `ascendingSections(now:)`: calling a method of `self`
            // here copied the whole view first (callgrind: 200 instructions a touch).
            batch!.sections = Self.ascendingSections(sectionCounts, marked: index.markedCount,
                                                     sectioning: definition.sections, now: batch!.now)
        }
        var oldIndex: Int?
        if let at, batch!.snapshot == nil, !batch!.overflowed { oldIndex = batch!.originalIndex(at) }
        batch!.touched.append(TouchedRows.Touch(id: id, old: old, oldIndex: oldIndex, new: old, newIndex: at))
    }

    private mutating func record(_ operation: Int) {
        guard batch != nil, batch!.snapshot == nil, !batch!.overflowed else { return }
        if batch!.operations.count >= Batch.operationLimit {
            batch!.overflowed = true  // too many to undo one by one: the batch ends in a reset
        } else {
            batch!.operations.append(operation)
            batch!.touched.shift(for: operation)
        }
    }

    /// Ends the batch at log position `to`, returning the change set (nil when nothing
    /// visible changed). Touching more than `resetThreshold` rows gives a reset.
    mutating func endBatch(to: Int64, now: Int64, resetThreshold: Int) -> ChangeSet? {
        guard var batch = self.batch.take() else { return nil }
        defer {
            if batch.touched.count <= Self.spareRowLimit, batch.operations.count <= 4 * Self.spareRowLimit {
                batch.operations.removeAll(keepingCapacity: true)
                batch.touched.removeAll()
                swap(&batch.operations, &spare.operations)
                swap(&batch.touched, &spare.touched)
            }
        }
        if batch.touched.isEmpty && batch.now == now { return nil }
        let oldSections = batch.sections ?? ascendingSections(now: batch.now)
        let newSections = ascendingSections(now: now)
        if batch.touched.count > resetThreshold || batch.overflowed {
            return finish(ChangeSet(view: definition, from: position, to: to, isReset: true,
                                    rows: rows(), sections: sectionList(newSections)), to: to)
        }
        let oldOrder = order(now: batch.now), newOrder = order(now: now)
        let descending = definition.order == .descending
        let newCount = index.count
        let oldCount = batch.snapshot?.count ?? (newCount - batch.operations.reduce(0) { $0 + ($1 > 0 ? 1 : -1) })
        // The rows' old and new indices, in the storage the last small batch left.
        var rows = [ChangeSetBuilder<RowID>.Touched]()
        if batch.touched.count <= Self.spareRowLimit { swap(&rows, &spare.described) }
        defer {
            if batch.touched.count <= Self.spareRowLimit {
                rows.removeAll(keepingCapacity: true)
                swap(&rows, &spare.described)
            }
        }
        rows.reserveCapacity(batch.touched.count)
        for touch in batch.touched.rows {
            var old = touch.old.map { entry in
                batch.snapshot.map { oldOrder.position(of: entry, in: $0) } ?? touch.oldIndex!
            }
            // A small batch knows where its rows are now; a large one looks them up.
            var new = touch.new.map { entry in
                batch.snapshot == nil ? touch.newIndex! : newOrder.position(of: entry, in: index)
            }
            if descending {
                old = old.map { oldCount - 1 - $0 }
                new = new.map { newCount - 1 - $0 }
            }
            let changed = touch.old != nil && touch.new != nil && !touch.old!.hasSameContent(as: touch.new!)
            rows.append(.init(id: touch.id, old: old, new: new, contentChanged: changed))
        }
        let built = ChangeSetBuilder.build(rows)
        let (sectionRemovals, sectionInsertions) = sectionChanges(old: oldSections, new: newSections)
        let changeSet = ChangeSet(
            view: definition, from: position, to: to, isReset: false,
            removals: built.removals, insertions: built.insertions, moves: built.moves, updates: built.updates,
            sectionRemovals: sectionRemovals, sectionInsertions: sectionInsertions,
            sectionsChanged: oldSections != newSections,
            rows: self.rows(), sections: sectionList(newSections))
        if changeSet.isEmpty { return nil }
        return finish(changeSet, to: to)
    }

    /// A reset change set to the current rows, for rebuilds and clock jumps backwards.
    mutating func reset(to: Int64, now: Int64) -> ChangeSet {
        finish(ChangeSet(view: definition, from: position, to: to, isReset: true,
                         rows: rows(), sections: sections(now: now)), to: to)
    }

    private mutating func finish(_ changeSet: ChangeSet, to: Int64) -> ChangeSet {
        position = to
        return changeSet
    }

    private func sectionChanges(old: KeyedSections, new: KeyedSections) -> (removals: [Int], insertions: [Int]) {
        guard definition.sections != .none, old.keys != new.keys else { return ([], []) }
        let oldKeys = Set(old.keys), newKeys = Set(new.keys)
        var removals = old.keys.indices.filter { !newKeys.contains(old.keys[$0]) }
        var insertions = new.keys.indices.filter { !oldKeys.contains(new.keys[$0]) }
        if definition.order == .descending {
            removals = removals.map { old.keys.count - 1 - $0 }.reversed()
            insertions = insertions.map { new.keys.count - 1 - $0 }.reversed()
        }
        return (removals, insertions)
    }

    // MARK: The clock

    /// The rows whose place depends on "now" between `from` and `to` (`from` <= `to`): rows
    /// that are not marked with an instant in `from...to`.
    /// - Complexity: O(*k* log *n*) for the *k* rows returned.
    func rowsPassed(from: Int64, to: Int64) -> [RowEntry] {
        guard definition.placement == .now else { return [] }
        let lo = index.partitionIndex { order(now: from).instant($0) >= from }
        let hi = index.partitionIndex { order(now: from).instant($0) > to }
        let firstUnmarked = lo - index.markedCount(before: lo)
        let endUnmarked = hi - index.markedCount(before: hi)
        guard firstUnmarked < endUnmarked else { return [] }
        return (firstUnmarked..<endUnmarked).map { index[index.indexOfUnmarked($0)] }
    }
}
