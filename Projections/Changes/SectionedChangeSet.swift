import TimelineCore
/// A row's place in a sectioned list: its section, and its item within the section.
public struct RowPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The section's index in the list of sections.
    public var section: Int
    /// The row's index within its section.
    public var item: Int

    /// Creates a path (from a table's `IndexPath`, for example).
    /// - Precondition: `section` and `item` are not negative.
    public init(section: Int, item: Int) {
        precondition(section >= 0 && item >= 0, "a section and an item are not negative")
        self.section = section
        self.item = item
    }

    /// Orders by section, then item.
    public static func < (lhs: RowPath, rhs: RowPath) -> Bool { (lhs.section, lhs.item) < (rhs.section, rhs.item) }

    /// `[section, item]`.
    public var description: String { "[\(section), \(item)]" }
}

/// How a sectioned view changed, as (section, item) positions: what a sectioned
/// `UITableView` or `UICollectionView` takes in one `performBatchUpdates`.
///
/// ``sectionDeletions`` and ``deletions`` are positions in the old sections, moves go from
/// an old position to a new one, ``sectionInsertions`` and ``insertions`` are positions in
/// the new sections. A deleted section takes its rows with it (they are not listed again),
/// and an inserted section brings its rows; a row that changes section is a move between
/// sections that exist before and after, even where its index in the flat list stays the
/// same. ``updates`` name rows whose content changed, at their new positions: reconfigure
/// them once the batch has run.
public struct SectionedChangeSet: Hashable, Sendable {
    /// A row that moved from a position in the old sections to one in the new sections.
    public struct Move: Hashable, Sendable {
        /// The row's position in the old sections.
        public var from: RowPath
        /// The row's position in the new sections.
        public var to: RowPath

        /// Creates a move.
        package init(from: RowPath, to: RowPath) {
            self.from = from
            self.to = to
        }
    }

    /// A row whose content changed, at its position in the new sections.
    public struct Update: Hashable, Sendable {
        /// The row's id.
        public var id: RowID
        /// The row's position in the new sections.
        public var path: RowPath

        /// Creates an update.
        package init(id: RowID, path: RowPath) {
            self.id = id
            self.path = path
        }
    }

    /// Indices of deleted sections in the old list of sections, ascending.
    public var sectionDeletions: [Int]
    /// Indices of inserted sections in the new list of sections, ascending.
    public var sectionInsertions: [Int]
    /// Deleted rows at their old positions, ascending; none in a deleted section.
    public var deletions: [RowPath]
    /// Inserted rows at their new positions, ascending; none in an inserted section.
    public var insertions: [RowPath]
    /// Rows that moved, ordered by their old position; none from a deleted section or into an inserted one.
    public var moves: [Move]
    /// Rows whose content changed, at their new positions, ordered by position.
    public var updates: [Update]

    /// Creates a sectioned change set (to test a table adapter, for example).
    package init(sectionDeletions: [Int] = [], sectionInsertions: [Int] = [], deletions: [RowPath] = [],
                insertions: [RowPath] = [], moves: [Move] = [], updates: [Update] = []) {
        self.sectionDeletions = sectionDeletions
        self.sectionInsertions = sectionInsertions
        self.deletions = deletions
        self.insertions = insertions
        self.moves = moves
        self.updates = updates
    }

    /// Whether nothing changed.
    package var isEmpty: Bool {
        sectionDeletions.isEmpty && sectionInsertions.isEmpty && deletions.isEmpty && insertions.isEmpty
            && moves.isEmpty && updates.isEmpty
    }
}

/// A change count of one section: what a batch added to (or took from) its rows.
struct SectionCountChange: Hashable, Sendable {
    var key: SectionKey
    var delta: Int
}

/// The sections of a view before a change, as the change set keeps them to make its
/// sectioned form when it is read: sections, less the counts the batch added (when the
/// batch added and took away no section, the sections after it and its few count changes
/// are all that is kept).
struct PastSections: Hashable, Sendable {
    /// The sections, ascending, before ``undone`` is taken off.
    var keyed: KeyedSections
    /// Count changes to take off ``keyed``'s counts.
    var undone: [SectionCountChange] = []

    /// The row count of the section at `index` (ascending).
    /// - Complexity: O(*c*) for *c* undone changes.
    func count(at index: Int) -> Int {
        var count = keyed.count(at: index)
        if !undone.isEmpty {
            let key = keyed.key(at: index)
            for change in undone where change.key == key { count -= change.delta }
        }
        return count
    }

    static func == (a: PastSections, b: PastSections) -> Bool {
        a.keyed.count == b.keyed.count
            && (0..<a.keyed.count).allSatisfy { a.keyed.key(at: $0) == b.keyed.key(at: $0) && a.count(at: $0) == b.count(at: $0) }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(keyed.count)
        for index in 0..<keyed.count { hasher.combine(keyed.key(at: index)) }
    }
}

/// The new indices of the rows a change set updates (its sectioned form places them).
struct UpdatedIndex: Hashable, Sendable {
    var id: RowID
    var index: Int
}

extension SectionedChangeSet {
    /// The sectioned form of a flat change: the sections before and after, in list order
    /// (`keys` and `counts`, list order being descending keys for a descending view), the
    /// flat change's indices, and the new flat index of every updated row.
    ///
    /// Rows the flat change leaves in place (neither removed, inserted nor moved) keep
    /// their order; the *r*-th of them in the old list is the *r*-th in the new. Such a row
    /// changes section only where the runs of the kept rows that the sections cut differ
    /// between old and new, so the sections are walked once, side by side, and only
    /// the kept rows of a run whose section differs are placed.
    /// - Complexity: O(*s* + (*k* + *m*) log(*k* + *s*)) for *s* sections, *k* changed rows
    ///   and *m* kept rows that change section.
    static func make(
        old: (keys: [SectionKey], counts: [Int]), new: (keys: [SectionKey], counts: [Int]), descending: Bool,
        removals: [Int], insertions: [Int], moves: [ChangeSet.Move], updated: [UpdatedIndex]
    ) -> SectionedChangeSet {
        func precedes(_ a: SectionKey, _ b: SectionKey) -> Bool { descending ? b < a : a < b }
        // Which sections are in both lists, walking both in list order.
        var oldSurvives = [Bool](repeating: false, count: old.keys.count)
        var newInserted = [Bool](repeating: true, count: new.keys.count)
        var result = SectionedChangeSet()
        do {
            var i = 0, j = 0
            while i < old.keys.count || j < new.keys.count {
                if j == new.keys.count || (i < old.keys.count && precedes(old.keys[i], new.keys[j])) {
                    result.sectionDeletions.append(i)
                    i += 1
                } else if i == old.keys.count || precedes(new.keys[j], old.keys[i]) {
                    result.sectionInsertions.append(j)
                    j += 1
                } else {
                    oldSurvives[i] = true
                    newInserted[j] = false
                    i += 1
                    j += 1
                }
            }
        }
        let oldStarts = Self.starts(old.counts), newStarts = Self.starts(new.counts)
        func path(_ index: Int, _ starts: [Int]) -> RowPath {
            // The last section that starts at or before `index` (sections are never empty).
            let section = starts.partitioningIndex { $0 > index } - 1
            return RowPath(section: section, item: index - starts[section])
        }
        func place(old o: Int, new n: Int) {
            let from = path(o, oldStarts), to = path(n, newStarts)
            switch (oldSurvives[from.section], newInserted[to.section]) {
            case (true, false): result.moves.append(Move(from: from, to: to))
            case (true, true): result.deletions.append(from)  // its new section's insertion brings it
            case (false, false): result.insertions.append(to)  // its old section's deletion took it
            case (false, true): break
            }
        }
        for o in removals {
            let from = path(o, oldStarts)
            if oldSurvives[from.section] { result.deletions.append(from) }
        }
        for n in insertions {
            let to = path(n, newStarts)
            if !newInserted[to.section] { result.insertions.append(to) }
        }
        for move in moves { place(old: move.from, new: move.to) }

        // The kept rows: the *r*-th is the *r*-th index missing from `leftOld` and `leftNew`.
        let leftOld = (removals + moves.map(\.from)).sorted(), leftNew = (insertions + moves.map(\.to)).sorted()
        let keptOld = Self.keptRuns(starts: oldStarts, counts: old.counts, leaving: leftOld)
        let keptNew = Self.keptRuns(starts: newStarts, counts: new.counts, leaving: leftNew)
        var i = 0, j = 0
        while i < keptOld.count && j < keptNew.count {
            let lo = max(keptOld[i].lowerBound, keptNew[j].lowerBound)
            let hi = min(keptOld[i].upperBound, keptNew[j].upperBound)
            if lo < hi && old.keys[i] != new.keys[j] {
                for rank in lo..<hi {
                    place(old: Self.missing(rank, from: leftOld), new: Self.missing(rank, from: leftNew))
                }
            }
            if keptOld[i].upperBound < keptNew[j].upperBound { i += 1 }
            else if keptOld[i].upperBound > keptNew[j].upperBound { j += 1 }
            else {
                i += 1
                j += 1
            }
        }
        for update in updated { result.updates.append(Update(id: update.id, path: path(update.index, newStarts))) }
        result.deletions.sort()
        result.insertions.sort()
        result.moves.sort { $0.from < $1.from }
        result.updates.sort { $0.path < $1.path }
        return result
    }

    /// The index of each section's first row.
    private static func starts(_ counts: [Int]) -> [Int] {
        var starts: [Int] = []
        starts.reserveCapacity(counts.count)
        var start = 0
        for count in counts {
            starts.append(start)
            start += count
        }
        return starts
    }

    /// For each section, the ranks among the kept rows (those whose indices are not in
    /// `leaving`, ascending) of its kept rows.
    private static func keptRuns(starts: [Int], counts: [Int], leaving: [Int]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        runs.reserveCapacity(starts.count)
        var left = 0  // how many of `leaving` are before the section
        for (start, count) in zip(starts, counts) {
            let lower = start - left
            while left < leaving.count && leaving[left] < start + count { left += 1 }
            runs.append(lower..<(start + count - left))
        }
        return runs
    }

    /// The `rank`-th (from 0) non-negative integer that is not in `sorted`.
    /// - Complexity: O(log *k*) for *k* integers in `sorted`.
    static func missing(_ rank: Int, from sorted: [Int]) -> Int {
        // sorted[i] - i is how many integers before sorted[i] are missing: the answer is
        // `rank` plus the number of elements of `sorted` with fewer missing before them than `rank + 1`.
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] - middle <= rank { low = middle + 1 } else { high = middle }
        }
        return rank + low
    }
}
