import TimelineCore

/// How one view changed from one log position to another: the indices a front end animates.
///
/// Follows UIKit's `performBatchUpdates` convention: ``removals`` are indices in the old
/// list, ``insertions`` are indices in the new list, ``moves`` go from an old index to a new
/// one, and ``updates`` name the rows whose content changed by id, never by index (a row
/// that moves and changes is a move plus an update). ``applied(to:)`` shows the exact
/// order in which they apply. A ``isReset`` change set carries no indices: the new rows
/// replace the old ones.
///
/// Every view also gives its changes as (section, item) positions, ``sectioned``, the form
/// a `UITableView` takes: in the view's sections, or all in section 0 for a view without
/// sections.
///
/// Change sets chain: one's ``to`` is the next one's ``from``.
public struct ChangeSet: Sendable, Equatable {
    /// A row that moved from an index in the old list to an index in the new list.
    public struct Move: Hashable, Sendable {
        /// The row's index in the old list.
        public var from: Int
        /// The row's index in the new list.
        public var to: Int

        /// Creates a move.
        package init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }

    /// The view that changed: one handler that follows several views tells them apart by it.
    public let view: ViewDefinition
    /// The log position of the old rows.
    public let from: Int64
    /// The log position of the new rows.
    public let to: Int64
    /// Whether this change set replaces the rows wholesale (too large to animate).
    public let isReset: Bool
    /// Indices of removed rows in the old list, ascending.
    public let removals: [Int]
    /// Indices of inserted rows in the new list, ascending.
    public let insertions: [Int]
    /// Rows that moved, ordered by their old index.
    public let moves: [Move]
    /// The ids of rows whose content (title, date, kind, timeline) changed.
    public let updates: [RowID]
    /// Indices of removed sections in the old section list, ascending.
    package let sectionRemovals: [Int]
    /// Indices of inserted sections in the new section list, ascending.
    package let sectionInsertions: [Int]
    /// Whether the sections changed (names or row counts), even where no row index did:
    /// in a `now`-placed view, ongoing rows change section when "now" enters a new year.
    package let sectionsChanged: Bool
    /// The new rows: an O(1) snapshot that shares structure with the view.
    public let rows: RowList
    /// The new sections (empty for a view without sections), named on access.
    public let sections: SectionList
    /// Where ``sectioned`` comes from.
    let sectionedSource: SectionedSource

    /// What a change set makes its sectioned form of (one word: the sectioned cases are
    /// boxed, and the flat case's array allocates nothing without updates).
    enum SectionedSource: Sendable {
        /// No sectioned form: a reset.
        case none
        /// The one section of a view without sections, and the new indices of the updated
        /// rows: every position is in section 0.
        case flat(updated: [UpdatedIndex])
        /// The sectioned form itself, as given to the public initialiser.
        indirect case given(SectionedChangeSet)
        /// The sections before the change, and the new indices of the updated rows: the
        /// sectioned form is made when it is read, so a change set nobody reads in
        /// sections costs nothing more.
        indirect case past(PastSections, updated: [UpdatedIndex])
    }

    /// Creates a change set (to test the package's readers of change sets); see the
    /// properties for what each list holds. `sectioned` is the sectioned form of a view with
    /// sections; a view without sections makes its own (the updated rows found in `rows`).
    package init(
        view: ViewDefinition, from: Int64, to: Int64, isReset: Bool = false,
        removals: [Int] = [], insertions: [Int] = [], moves: [Move] = [], updates: [RowID] = [],
        sectionRemovals: [Int] = [], sectionInsertions: [Int] = [], sectionsChanged: Bool = false,
        rows: RowList = RowList(), sections: SectionList = SectionList(), sectioned: SectionedChangeSet? = nil
    ) {
        self.init(view: view, from: from, to: to, isReset: isReset, removals: removals, insertions: insertions,
                  moves: moves, updates: updates, sectionRemovals: sectionRemovals,
                  sectionInsertions: sectionInsertions, sectionsChanged: sectionsChanged, rows: rows,
                  sections: sections,
                  sectionedSource: sectioned.map { .given($0) }
                    ?? (view.sections == .none ? .flat(updated: Self.indices(of: updates, in: rows)) : .none))
    }

    init(
        view: ViewDefinition, from: Int64, to: Int64, isReset: Bool,
        removals: [Int] = [], insertions: [Int] = [], moves: [Move] = [], updates: [RowID] = [],
        sectionRemovals: [Int] = [], sectionInsertions: [Int] = [], sectionsChanged: Bool = false,
        rows: RowList, sections: SectionList, sectionedSource: SectionedSource
    ) {
        self.sectionedSource = isReset ? .none : sectionedSource
        self.sectionsChanged = sectionsChanged || isReset
        self.view = view
        self.from = from
        self.to = to
        self.isReset = isReset
        self.removals = removals
        self.insertions = insertions
        self.moves = moves
        self.updates = updates
        self.sectionRemovals = sectionRemovals
        self.sectionInsertions = sectionInsertions
        self.rows = rows
        self.sections = sections
    }

    /// The indices in `rows` of the rows `ids` names (those it holds).
    /// - Complexity: O(*n*) for *n* rows, O(1) without ids.
    private static func indices(of ids: [RowID], in rows: RowList) -> [UpdatedIndex] {
        guard !ids.isEmpty else { return [] }
        let wanted = Set(ids)
        return rows.enumerated().compactMap { wanted.contains($1.id) ? UpdatedIndex(id: $1.id, index: $0) : nil }
    }

    /// The change as (section, item) positions, for every view: in the view's sections, or,
    /// for a view without sections, all in section 0 (the one section of a plain table);
    /// `nil` only for a reset (which has no positions: reload).
    ///
    /// Apply it in one batch (`performBatchUpdates`), then reconfigure its updates. A
    /// table of a view without sections has one section (``sections`` is empty), of a view
    /// with sections one per section: `view.sections == .none ? 1 : sections.count`.
    /// - Complexity: O(*s* + *k* log(*k* + *s*)) for *s* sections and *k* rows listed, made
    ///   each time it is read.
    public var sectioned: SectionedChangeSet? {
        switch sectionedSource {
        case .none: return nil
        case .given(let sectioned): return sectioned
        case .flat(let updated):
            // One section, that no change adds or takes away: the flat indices are the items.
            func path(_ item: Int) -> RowPath { RowPath(section: 0, item: item) }
            return SectionedChangeSet(
                deletions: removals.map(path), insertions: insertions.map(path),
                moves: moves.map { SectionedChangeSet.Move(from: path($0.from), to: path($0.to)) },
                updates: updated.map { SectionedChangeSet.Update(id: $0.id, path: path($0.index)) }
                    .sorted { $0.path < $1.path })
        case .past(let past, let updated):
            var old = (keys: past.keyed.keys, counts: (0..<past.keyed.count).map(past.count(at:)))
            var new = (keys: sections.keyed.keys, counts: (0..<sections.keyed.count).map(sections.keyed.count(at:)))
            if sections.descending {
                old = (old.keys.reversed(), old.counts.reversed())
                new = (new.keys.reversed(), new.counts.reversed())
            }
            return SectionedChangeSet.make(old: old, new: new, descending: sections.descending, removals: removals,
                                           insertions: insertions, moves: moves, updated: updated)
        }
    }

    /// Whether two change sets say the same: the same view, positions, indices, rows,
    /// sections and sectioned form.
    /// - Complexity: O(*n* + *s* + *k* log(*k* + *s*)) for *n* rows, *s* sections and *k* changes.
    public static func == (a: ChangeSet, b: ChangeSet) -> Bool {
        a.view == b.view && a.from == b.from && a.to == b.to && a.isReset == b.isReset && a.removals == b.removals
            && a.insertions == b.insertions && a.moves == b.moves && a.updates == b.updates
            && a.sectionRemovals == b.sectionRemovals && a.sectionInsertions == b.sectionInsertions
            && a.sectionsChanged == b.sectionsChanged && a.sections == b.sections && a.rows.elementsEqual(b.rows)
            && a.sectioned == b.sectioned
    }

    /// Whether the change set changes nothing: no reset, no index, no update, and no
    /// section that came, went or changed its count. Never true of a change set a store
    /// sends (a change that moves no row of a view sends that view nothing).
    public var isEmpty: Bool {
        !isReset && removals.isEmpty && insertions.isEmpty && moves.isEmpty && updates.isEmpty
            && sectionRemovals.isEmpty && sectionInsertions.isEmpty && !sectionsChanged
    }

    /// Applies the change set to the old rows: removals and move sources in descending old
    /// order, then insertions and move destinations in ascending new order, then updates by id.
    ///
    /// The result equals ``rows``; this is how a front end that keeps its own array stays in step.
    /// - Complexity: O(*n* + *k* log *n*) for *n* rows and *k* changes (a new row is read from the tree in O(log *n*)).
    public func applied(to old: [Row]) -> [Row] {
        if isReset { return Array(rows) }
        return applyIndexChanges(to: old, removals: removals, insertions: insertions, moves: moves, updates: updates,
                                 id: \.id, newElement: { rows[$0] })
    }
}
