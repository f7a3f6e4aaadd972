import TimelineCore

/// What one view keeps of its own beside the rows it shares with the other views of its
/// ``RowSet``: its definition, its sections' row counts and its log position.
struct ViewState: Sendable {
    let definition: ViewDefinition
    /// The rows in each section, kept only for a view with sections.
    private(set) var sectionCounts = SectionCounts()
    /// The log position of the view's latest change (or of its creation).
    var position: Int64
    /// The row set's batch as this view notes it: how its sections stood before the batch
    /// in progress, noted at its first change.
    ///
    /// Keeping the sections themselves would share the counts' storage, so the batch's
    /// first count would copy it, and comparing the old counts with the new would read
    /// every section, O(*s*) a batch for *s* sections. The counts changed since are what
    /// the old sections differ by: unless a section came or went, or the rows at now
    /// changed, they tell whether the sections changed without either (see
    /// ``sectionDifference(batchNow:marked:now:new:)``).
    private var batch = Batch.idle(spare: [])

    /// A batch of the row set, from this view's side ("now" at its start is the batch's own,
    /// which ``endBatch(from:to:now:marked:built:rows:)`` is handed). Transitions:
    /// `idle` → `noting` at the batch's start (a view with sections); `noting` → `counted`
    /// once its changes pass ``changeLimit``; either → `idle` at its end or a reset.
    private enum Batch {
        /// No batch: the storage of the last small batch's changes, emptied, for the next's.
        case idle(spare: [(key: SectionKey, delta: Int)])
        /// A batch: the rows at now when it started, and the counts changed since, in order.
        case noting(marked: Int, changes: [(key: SectionKey, delta: Int)])
        /// A large batch, which would otherwise note every row it moves: the rows at now and
        /// the counts when it started.
        case counted(marked: Int, counts: SectionCounts)
    }

    /// At most this many changed counts are noted in a batch; past it, the counts at its start.
    private static let changeLimit = 64

    init(definition: ViewDefinition, position: Int64) {
        self.definition = definition
        self.position = position
    }

    var isDescending: Bool { definition.order == .descending }
    var hasSections: Bool { definition.sections != .none }

    // MARK: Sections

    /// Counts the sections of every row of `index` afresh.
    /// - Complexity: O(*n*) for *n* rows with sections, O(1) without.
    mutating func countSections(of index: OrderedIndex<RowEntry>, order: RowOrder) {
        sectionCounts = SectionCounts()
        endBatchNoting()
        guard hasSections else { return }
        for entry in index { if let key = sectionKey(of: entry, order: order) { sectionCounts.add(key, 1) } }
    }

    /// Counts a row that comes (`delta` 1) or goes (-1).
    /// - Complexity: O(log *s*) for *s* sections, O(*s*) when a section appears or goes.
    mutating func count(_ entry: RowEntry, order: RowOrder, _ delta: Int) {
        guard let key = sectionKey(of: entry, order: order) else { return }
        if case .noting(let marked, var changes) = batch {
            batch = .idle(spare: [])  // so that `changes` is the only reference to its storage
            if changes.count < Self.changeLimit {
                changes.append((key, delta))
                batch = .noting(marked: marked, changes: changes)
            } else {
                batch = .counted(marked: marked, counts: counts(undoing: changes))
            }
        }
        sectionCounts.add(key, delta)
    }

    /// The section of a row; `nil` for a view without sections and for a row at now.
    func sectionKey(of entry: RowEntry, order: RowOrder) -> SectionKey? {
        guard hasSections, !entry.isMarked else { return nil }
        let group = order.group(entry.kind)
        if entry.kind == .ongoing, definition.placement != .now {
            return SectionKey(group: group, bucket: SectionKey.ongoingBucket)
        }
        return SectionKey(group: group, bucket: SectionKey.bucket(of: entry.instant, definition.sections))
    }

    /// The sections, ascending, with `marked` rows at now (empty without sectioning).
    func ascendingSections(marked: Int, now: Int64) -> KeyedSections {
        ascendingSections(of: sectionCounts, marked: marked, now: now)
    }

    /// The sections of `counts`, ascending, with `marked` rows at `now`.
    private func ascendingSections(of counts: SectionCounts, marked: Int, now: Int64) -> KeyedSections {
        guard hasSections else { return KeyedSections() }
        return counts.sections(marked: marked, nowKey: nowKey(now))
    }

    /// The section counts before `changes`: the counts now, the changes undone.
    /// - Complexity: O(*k* log *s*) for *k* changes of *s* sections, plus O(*s*).
    private func counts(undoing changes: [(key: SectionKey, delta: Int)]) -> SectionCounts {
        var counts = sectionCounts
        for change in changes.reversed() { counts.add(change.key, -change.delta) }
        return counts
    }

    /// Ends the batch's noting, keeping a small batch's storage for the next.
    private mutating func endBatchNoting() {
        switch batch {
        case .idle: break
        case .noting(_, var changes):
            batch = .idle(spare: [])
            changes.removeAll(keepingCapacity: true)
            batch = .idle(spare: changes)
        case .counted: batch = .idle(spare: [])
        }
    }

    /// What a few changes of counts add up to: whether any count changed on balance, and
    /// whether a section came or went (a changed count that is 0 now, or was 0 before);
    /// `nil` for more than a few changes.
    /// - Complexity: O(*k*² + *k* log *s*) for *k* changes of *s* sections.
    private func balance(of changes: [(key: SectionKey, delta: Int)]) -> (changed: Bool, keysChanged: Bool)? {
        guard changes.count <= 8 else { return nil }
        var changed = false, keysChanged = false
        for i in changes.indices {
            let key = changes[i].key
            // Each section once, at its first change.
            if changes[..<i].contains(where: { $0.key == key }) { continue }
            var delta = 0
            for change in changes[i...] where change.key == key { delta += change.delta }
            guard delta != 0 else { continue }
            changed = true
            let count = sectionCounts.count(of: key)
            if count == 0 || count == delta { keysChanged = true }
        }
        return (changed, keysChanged)
    }

    /// Whether the sections changed between the batch's start and now, and the sections
    /// that went and came, in list order.
    ///
    /// When the batch added no section and took none away, and the rows at now stayed in
    /// the same section with the same count, the sections changed exactly where the
    /// batch's changes do not add up to nothing, and the old sections are not made.
    private func sectionDifference(batchNow: Int64, marked: Int, now: Int64, new: KeyedSections)
        -> (changed: Bool, removals: [Int], insertions: [Int], old: PastSections?) {
        guard hasSections else { return (false, [], [], nil) }
        let old: KeyedSections
        switch batch {
        case .noting(let startMarked, let changes):
            if let balance = balance(of: changes), !balance.keysChanged, startMarked == marked,
               batchNow == now || nowKey(batchNow) == nowKey(now) {
                // The same sections before and after: the old counts are the new less the batch's changes.
                let undone = changes.map { SectionCountChange(key: $0.key, delta: $0.delta) }
                return (balance.changed, [], [], PastSections(keyed: new, undone: undone))
            }
            old = ascendingSections(of: counts(undoing: changes), marked: startMarked, now: batchNow)
        case .counted(let startMarked, let counts):
            old = ascendingSections(of: counts, marked: startMarked, now: batchNow)
        case .idle:
            old = ascendingSections(marked: marked, now: batchNow)
        }
        let (removals, insertions) = sectionChanges(old: old, new: new)
        return (old != new, removals, insertions, PastSections(keyed: old))
    }

    /// The section that rows at `now` count in.
    func nowKey(_ now: Int64) -> SectionKey {
        SectionKey(group: 0, bucket: SectionKey.bucket(of: now, definition.sections))
    }

    /// Ascending sections in the view's order.
    func sectionList(_ ascending: KeyedSections) -> SectionList {
        SectionList(keyed: ascending, sectioning: definition.sections, descending: isDescending)
    }

    /// Notes how the sections stand before a batch changes the rows (`marked` of them at now).
    mutating func noteBatchStart(marked: Int) {
        guard hasSections else { return }
        let spare: [(key: SectionKey, delta: Int)] = if case .idle(let spare) = batch { spare } else { [] }
        batch = .noting(marked: marked, changes: spare)
    }

    /// The view's change set at the end of a batch of its row set from `batchNow` to
    /// `now`, or `nil` when nothing it shows changed; moves the view to `to` if one is made.
    ///
    /// A method of the view, so that its row set does not copy it.
    ///
    /// `updated` gives the new index (in the view's order) of each row whose content
    /// changed, for the (section, item) form: in the view's sections, or in the one
    /// section of a view without sections.
    mutating func endBatch(from batchNow: Int64, to: Int64, now: Int64, marked: Int,
                           built: ChangeSetBuilder<RowID>.Result, updated: () -> [UpdatedIndex],
                           rows: RowList) -> ChangeSet? {
        let newSections = ascendingSections(marked: marked, now: now)
        let sections = sectionDifference(batchNow: batchNow, marked: marked, now: now, new: newSections)
        endBatchNoting()
        let changeSet = ChangeSet(
            view: definition, from: position, to: to, isReset: false,
            removals: built.removals, insertions: built.insertions, moves: built.moves, updates: built.updates,
            sectionRemovals: sections.removals, sectionInsertions: sections.insertions,
            sectionsChanged: sections.changed, rows: rows, sections: sectionList(newSections),
            sectionedSource: sections.old.map { .past($0, updated: built.updates.isEmpty ? [] : updated()) }
                ?? .flat(updated: built.updates.isEmpty ? [] : updated()))
        if changeSet.isEmpty { return nil }
        position = to
        return changeSet
    }

    /// A reset change set to `rows`, moving the view to `to`.
    mutating func reset(to: Int64, marked: Int, now: Int64, rows: RowList) -> ChangeSet {
        endBatchNoting()
        let changeSet = ChangeSet(view: definition, from: position, to: to, isReset: true,
                                  rows: rows, sections: sectionList(ascendingSections(marked: marked, now: now)),
                                  sectionedSource: .none)
        position = to
        return changeSet
    }

    /// The sections that went and came between `old` and `new`, as indices in list order.
    private func sectionChanges(old: KeyedSections, new: KeyedSections) -> (removals: [Int], insertions: [Int]) {
        guard hasSections, !old.hasSameKeys(as: new) else { return ([], []) }
        let old = old.keys, new = new.keys
        let oldKeys = Set(old), newKeys = Set(new)
        var removals = old.indices.filter { !newKeys.contains(old[$0]) }
        var insertions = new.indices.filter { !oldKeys.contains(new[$0]) }
        if isDescending {
            removals = removals.map { old.count - 1 - $0 }.reversed()
            insertions = insertions.map { new.count - 1 - $0 }.reversed()
        }
        return (removals, insertions)
    }
}
