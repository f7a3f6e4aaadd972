import TimelineCore

/// One view's rows, sections and position, maintained incrementally.
struct ViewState: Sendable {
    let definition: ViewDefinition
    private(set) var index = OrderedIndex<RowEntry>()
    private(set) var sectionCounts = SectionCounts()
    /// The log position of the view's latest change (or of its creation).
    private(set) var position: Int64

    /// The state at the start of the current batch, kept while a batch is being applied.
    private var batchBase: (index: OrderedIndex<RowEntry>, sections: KeyedSections, now: Int64)?
    /// Rows the current batch touched: their entry before the batch and their entry now.
    private var touched: [RowID: (old: RowEntry?, new: RowEntry?)] = [:]

    init(definition: ViewDefinition, position: Int64) {
        self.definition = definition
        self.position = position
    }

    // MARK: Reading

    func rows() -> RowList { RowList(index: index, descending: definition.order == .descending) }

    func order(now: Int64) -> RowOrder { RowOrder(placement: definition.placement, now: now) }

    /// The sections in list order (empty without sectioning).
    func sections(now: Int64) -> SectionList {
        SectionList(keyed: ascendingSections(now: now), sectioning: definition.sections,
                    descending: definition.order == .descending)
    }

    private func ascendingSections(now: Int64) -> KeyedSections {
        guard definition.sections != .none else { return KeyedSections() }
        let nowKey = SectionKey(group: 0, bucket: SectionKey.bucket(of: now, definition.sections))
        return sectionCounts.sections(marked: index.markedCount, nowKey: nowKey)
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

    /// Replaces all rows with `entries`, sorting them (used to build or rebuild a view).
    /// - Complexity: O(*n* log *n*).
    mutating func rebuild(entries: [RowEntry], now: Int64, position: Int64) {
        let order = order(now: now)
        restore(sortedEntries: entries.sorted(by: order.precedes), now: now, position: position)
    }

    /// Replaces all rows with `sorted`, already in the view's order.
    /// - Complexity: O(*n*).
    mutating func restore(sortedEntries sorted: [RowEntry], now: Int64, position: Int64) {
        let order = order(now: now)
        index = OrderedIndex(sorted)
        sectionCounts = SectionCounts()
        if definition.sections != .none {
            for entry in sorted { if let key = sectionKey(of: entry, order: order) { sectionCounts.add(key, 1) } }
        }
        self.position = position
        batchBase = nil
        touched = [:]
    }

    // MARK: Batches

    /// Starts collecting the changes of a batch; the old state is kept in O(1).
    mutating func beginBatch(now: Int64) {
        guard batchBase == nil else { return }
        batchBase = (index, ascendingSections(now: now), now)
    }

    /// Removes a row from the view.
    /// - Complexity: O(log *n*).
    mutating func remove(_ entry: RowEntry, now: Int64) {
        let order = order(now: now)
        let at = order.position(of: entry, in: index)
        guard at < index.count, index[at].id == entry.id else { return }
        let removed = index.remove(at: at)
        if let key = sectionKey(of: removed, order: order) { sectionCounts.add(key, -1) }
        note(removed.id, old: removed, new: nil)
    }

    /// Inserts a row into the view.
    /// - Complexity: O(log *n*).
    mutating func insert(_ entry: RowEntry, now: Int64) {
        let order = order(now: now)
        let at = order.position(of: entry, in: index)
        index.insert(entry, at: at)
        if let key = sectionKey(of: entry, order: order) { sectionCounts.add(key, 1) }
        note(entry.id, old: nil, new: entry)
    }

    /// Replaces a row with one that sorts in the same place (a new title).
    /// - Complexity: O(log *n*).
    mutating func replace(_ old: RowEntry, with new: RowEntry, now: Int64) {
        let order = order(now: now)
        let at = order.position(of: old, in: index)
        guard at < index.count, index[at].id == old.id else { return }
        index.update(at: at, with: new)
        note(old.id, old: old, new: new)
    }

    private mutating func note(_ id: RowID, old: RowEntry?, new: RowEntry?) {
        guard batchBase != nil else { return }
        if let first = touched[id] {
            touched[id] = (first.old, new)
        } else {
            touched[id] = (old, new)
        }
    }

    /// Ends the batch at log position `to`, returning the change set (nil when nothing
    /// visible changed). Touching more than `resetThreshold` rows gives a reset.
    mutating func endBatch(to: Int64, now: Int64, resetThreshold: Int) -> ChangeSet? {
        guard let base = batchBase else { return nil }
        defer {
            batchBase = nil
            touched = [:]
        }
        let newSections = ascendingSections(now: now)
        if touched.count > resetThreshold {
            return finish(ChangeSet(view: definition, from: position, to: to, isReset: true,
                                    rows: rows(), sections: sections(now: now)), to: to)
        }
        let oldOrder = order(now: base.now), newOrder = order(now: now)
        let descending = definition.order == .descending
        let oldCount = base.index.count, newCount = index.count
        var rows: [ChangeSetBuilder<RowID>.Touched] = []
        rows.reserveCapacity(touched.count)
        for (id, change) in touched {
            var old = change.old.map { oldOrder.position(of: $0, in: base.index) }
            var new = change.new.map { newOrder.position(of: $0, in: index) }
            if descending {
                old = old.map { oldCount - 1 - $0 }
                new = new.map { newCount - 1 - $0 }
            }
            let changed = change.old != nil && change.new != nil && change.old!.row != change.new!.row
            rows.append(.init(id: id, old: old, new: new, contentChanged: changed))
        }
        let built = ChangeSetBuilder.build(rows)
        let (sectionRemovals, sectionInsertions) = sectionChanges(old: base.sections, new: newSections)
        let changeSet = ChangeSet(
            view: definition, from: position, to: to, isReset: false,
            removals: built.removals, insertions: built.insertions, moves: built.moves, updates: built.updates,
            sectionRemovals: sectionRemovals, sectionInsertions: sectionInsertions,
            sectionsChanged: base.sections != newSections,
            rows: self.rows(), sections: sections(now: now))
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
