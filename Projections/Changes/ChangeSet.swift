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
/// Change sets chain: one's ``to`` is the next one's ``from``.
public struct ChangeSet: Sendable {
    /// A row that moved from an index in the old list to an index in the new list.
    public struct Move: Hashable, Sendable {
        /// The row's index in the old list.
        public var from: Int
        /// The row's index in the new list.
        public var to: Int

        /// Creates a move.
        public init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }

    /// The view that changed.
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
    public let sectionRemovals: [Int]
    /// Indices of inserted sections in the new section list, ascending.
    public let sectionInsertions: [Int]
    /// Whether the sections changed (names or row counts), even where no row index did:
    /// in a `now`-placed view, ongoing rows change section when "now" enters a new year.
    public let sectionsChanged: Bool
    /// The new rows: an O(1) snapshot that shares structure with the view.
    public let rows: RowList
    /// The new sections (empty for a view without sections), named on access.
    public let sections: SectionList

    init(
        view: ViewDefinition, from: Int64, to: Int64, isReset: Bool,
        removals: [Int] = [], insertions: [Int] = [], moves: [Move] = [], updates: [RowID] = [],
        sectionRemovals: [Int] = [], sectionInsertions: [Int] = [], sectionsChanged: Bool = false,
        rows: RowList, sections: SectionList
    ) {
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

    /// Whether the change set changes nothing (never true of a change set a view emits).
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
