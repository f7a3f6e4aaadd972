import TimelineCore

/// What one view keeps of its own beside the rows it shares with the other views of its
/// ``RowSet``: its definition, its sections' row counts and its log position.
struct ViewState: Sendable {
    let definition: ViewDefinition
    /// The rows in each section, kept only for a view with sections.
    private(set) var sectionCounts = SectionCounts()
    /// The log position of the view's latest change (or of its creation).
    var position: Int64
    /// The sections before the row set's batch in progress, taken at its first change.
    private var sectionsBefore: KeyedSections?

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
        sectionsBefore = nil
        guard hasSections else { return }
        for entry in index { if let key = sectionKey(of: entry, order: order) { sectionCounts.add(key, 1) } }
    }

    /// Counts a row that comes (`delta` 1) or goes (-1).
    /// - Complexity: O(log *s*) for *s* sections, O(*s*) when a section appears or goes.
    mutating func count(_ entry: RowEntry, order: RowOrder, _ delta: Int) {
        if let key = sectionKey(of: entry, order: order) { sectionCounts.add(key, delta) }
    }

    /// The section of a row; `nil` for a view without sections and for a row at now.
    private func sectionKey(of entry: RowEntry, order: RowOrder) -> SectionKey? {
        guard hasSections, !entry.isMarked else { return nil }
        let group = order.group(entry.kind)
        if entry.kind == .ongoing, definition.placement != .now {
            return SectionKey(group: group, bucket: SectionKey.ongoingBucket)
        }
        return SectionKey(group: group, bucket: SectionKey.bucket(of: entry.instant, definition.sections))
    }

    /// The sections, ascending, with `marked` rows at now (empty without sectioning).
    func ascendingSections(marked: Int, now: Int64) -> KeyedSections {
        guard hasSections else { return KeyedSections() }
        let nowKey = SectionKey(group: 0, bucket: SectionKey.bucket(of: now, definition.sections))
        return sectionCounts.sections(marked: marked, nowKey: nowKey)
    }

    /// Ascending sections in the view's order.
    func sectionList(_ ascending: KeyedSections) -> SectionList {
        SectionList(keyed: ascending, sectioning: definition.sections, descending: isDescending)
    }

    /// Keeps the sections as they are before a batch changes the rows (`marked` of them at now).
    mutating func takeSectionsBefore(marked: Int, now: Int64) {
        if hasSections { sectionsBefore = ascendingSections(marked: marked, now: now) }
    }

    /// The view's change set at the end of a batch of its row set from `batchNow` to
    /// `now`, or `nil` when nothing it shows changed; moves the view to `to` if one is made.
    ///
    /// A method of the view, so that its row set does not copy it (callgrind: copying
    /// the views' states was a twentieth of one command's instructions).
    mutating func endBatch(from batchNow: Int64, to: Int64, now: Int64, marked: Int,
                           built: ChangeSetBuilder<RowID>.Result, rows: RowList) -> ChangeSet? {
        let oldSections = sectionsBefore ?? ascendingSections(marked: marked, now: batchNow)
        sectionsBefore = nil
        let newSections = ascendingSections(marked: marked, now: now)
        let (sectionRemovals, sectionInsertions) = sectionChanges(old: oldSections, new: newSections)
        let changeSet = ChangeSet(
            view: definition, from: position, to: to, isReset: false,
            removals: built.removals, insertions: built.insertions, moves: built.moves, updates: built.updates,
            sectionRemovals: sectionRemovals, sectionInsertions: sectionInsertions,
            sectionsChanged: oldSections != newSections, rows: rows, sections: sectionList(newSections))
        if changeSet.isEmpty { return nil }
        position = to
        return changeSet
    }

    /// A reset change set to `rows`, moving the view to `to`.
    mutating func reset(to: Int64, marked: Int, now: Int64, rows: RowList) -> ChangeSet {
        sectionsBefore = nil
        let changeSet = ChangeSet(view: definition, from: position, to: to, isReset: true,
                                  rows: rows, sections: sectionList(ascendingSections(marked: marked, now: now)))
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
