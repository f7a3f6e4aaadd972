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
    var sectionsBefore: KeyedSections?

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

    /// The sections that went and came between `old` and `new`, as indices in list order.
    func sectionChanges(old: KeyedSections, new: KeyedSections) -> (removals: [Int], insertions: [Int]) {
        guard hasSections, old.keys != new.keys else { return ([], []) }
        let oldKeys = Set(old.keys), newKeys = Set(new.keys)
        var removals = old.keys.indices.filter { !newKeys.contains(old.keys[$0]) }
        var insertions = new.keys.indices.filter { !oldKeys.contains(new.keys[$0]) }
        if isDescending {
            removals = removals.map { old.keys.count - 1 - $0 }.reversed()
            insertions = insertions.map { new.keys.count - 1 - $0 }.reversed()
        }
        return (removals, insertions)
    }
}
