import TimelineCore
/// Turns the old and new indices of the rows a batch touched into a minimal change set.
///
/// Rows the batch did not touch keep their relative order. A touched row that is in both
/// lists stays put (no move) when the untouched rows before it are the same in both lists
/// and it keeps its order with the other rows that stay; the largest such set is a
/// longest increasing subsequence. Everything else is a removal, an insertion or a move.
struct ChangeSetBuilder<ID: Hashable> {
    struct Touched {
        var id: ID
        var old: Int?
        var new: Int?
        var contentChanged: Bool
    }

    struct Result {
        var removals: [Int] = []
        var insertions: [Int] = []
        var moves: [ChangeSet.Move] = []
        var updates: [ID] = []
    }

    /// The lists a row set keeps from one batch to the next, for the next batch of one or
    /// two rows to build into (``build(_:reusing:)``): one allocation per list a batch
    /// needs otherwise, and one free.
    ///
    /// The lists a batch's change sets were given stay here too; once the change sets are
    /// dropped, they are the row set's own again, and the next batch that needs a list of
    /// that kind empties it and appends to it, in the same storage. A list a batch does
    /// not need is left as it was, unseen, so that a change set still held is not copied
    /// for nothing; one that a batch needs while a held change set shares it is copied
    /// first, as any array would be.
    struct Storage {
        fileprivate var lists = Result()
        /// Which lists the batch being built uses: bits for removals, insertions, moves, updates.
        fileprivate var used: UInt8 = 0

        init() {}

        /// Empties `list` at the batch's first use of it (bit `bit` of `used`).
        @inline(__always)
        private static func use<T>(_ list: inout [T], _ bit: UInt8, _ used: inout UInt8) {
            if used & bit == 0 {
                used |= bit
                list.removeAllKeepingStorage()
            }
        }

        fileprivate mutating func appendRemoval(_ index: Int) {
            Self.use(&lists.removals, 1, &used)
            lists.removals.append(index)
        }

        fileprivate mutating func appendInsertion(_ index: Int) {
            Self.use(&lists.insertions, 2, &used)
            lists.insertions.append(index)
        }

        fileprivate mutating func appendMove(_ move: ChangeSet.Move) {
            Self.use(&lists.moves, 4, &used)
            lists.moves.append(move)
        }

        fileprivate mutating func appendUpdate(_ id: ID) {
            Self.use(&lists.updates, 8, &used)
            lists.updates.append(id)
        }

        /// The batch's lists: those it used, sharing their storage, and empty ones.
        fileprivate var result: Result {
            Result(removals: used & 1 != 0 ? lists.removals : [], insertions: used & 2 != 0 ? lists.insertions : [],
                   moves: used & 4 != 0 ? lists.moves : [], updates: used & 8 != 0 ? lists.updates : [])
        }
    }

    /// - Complexity: O(*k* log *k*) for *k* touched rows.
    static func build(_ touched: [Touched]) -> Result {
        var storage = Storage()
        return build(touched, reusing: &storage)
    }

    /// ``build(_:)``, building a batch of one or two rows (most batches) into the lists of
    /// `storage`, which it keeps for the next (see ``Storage``); a larger batch's lists
    /// are new, and `storage` is left as it was.
    /// - Complexity: O(*k* log *k*) for *k* touched rows.
    static func build(_ touched: [Touched], reusing storage: inout Storage) -> Result {
        storage.used = 0
        if touched.count == 1 {
            // One row (most commands): it stays, moves, comes or goes; no sorting needed.
            let row = touched[0]
            switch (row.old, row.new) {
            case (let old?, nil): storage.appendRemoval(old)
            case (nil, let new?): storage.appendInsertion(new)
            case (let old?, let new?):
                if old != new { storage.appendMove(ChangeSet.Move(from: old, to: new)) }
                if row.contentChanged { storage.appendUpdate(row.id) }
            case (nil, nil): break
            }
            return storage.result
        }
        if touched.count == 2 {
            buildPair(touched[0], touched[1], into: &storage)
            return storage.result
        }
        return buildAny(touched)
    }

    /// ``build(_:)`` for any number of rows: the definition the others follow.
    /// - Complexity: O(*k* log *k*) for *k* touched rows.
    static func buildAny(_ touched: [Touched]) -> Result {
        var result = Result()
        var oldAffected: [Int] = []
        var newAffected: [Int] = []
        var both: [Touched] = []
        for row in touched {
            switch (row.old, row.new) {
            case (let old?, nil):
                result.removals.append(old)
                oldAffected.append(old)
            case (nil, let new?):
                result.insertions.append(new)
                newAffected.append(new)
            case (let old?, let new?):
                oldAffected.append(old)
                newAffected.append(new)
                both.append(row)
                if row.contentChanged { result.updates.append(row.id) }
            case (nil, nil):
                break
            }
        }
        result.removals.sort()
        result.insertions.sort()
        oldAffected.sort()
        newAffected.sort()
        both.sort { $0.old! < $1.old! }
        // Rows whose untouched neighbourhood is unchanged may stay; of those, the longest
        // run increasing in the new order stays, the others move.
        var eligible: [Int] = []  // indices into `both`
        for (i, row) in both.enumerated() {
            let gapOld = row.old! - lowerBound(oldAffected, row.old!)
            let gapNew = row.new! - lowerBound(newAffected, row.new!)
            if gapOld == gapNew { eligible.append(i) }
        }
        let staying = Set(longestIncreasingSubsequence(eligible.map { both[$0].new! }).map { eligible[$0] })
        for (i, row) in both.enumerated() where !staying.contains(i) {
            result.moves.append(ChangeSet.Move(from: row.old!, to: row.new!))
        }
        return result
    }

    /// ``buildAny(_:)`` for two rows (a range's two rows, or a row in and a row out: the
    /// most common change sets), without its working arrays, sort and set, each of which
    /// is an allocation.
    static func buildPair(_ first: Touched, _ second: Touched) -> Result {
        var storage = Storage()
        buildPair(first, second, into: &storage)
        return storage.result
    }

    /// ``buildPair(_:_:)`` appending to the lists of `storage`.
    private static func buildPair(_ first: Touched, _ second: Touched, into storage: inout Storage) {
        func appendAscending(_ a: Int?, _ b: Int?, _ append: (inout Storage, Int) -> Void) {
            switch (a, b) {
            case (let a?, let b?):
                append(&storage, min(a, b))
                append(&storage, max(a, b))
            case (let a?, nil), (nil, let a?): append(&storage, a)
            case (nil, nil): break
            }
        }
        func ifOnly(_ kept: Int?, _ absent: Int?) -> Int? { absent == nil ? kept : nil }
        appendAscending(ifOnly(first.old, first.new), ifOnly(second.old, second.new)) { $0.appendRemoval($1) }
        appendAscending(ifOnly(first.new, first.old), ifOnly(second.new, second.old)) { $0.appendInsertion($1) }
        let firstInBoth = first.old != nil && first.new != nil
        let secondInBoth = second.old != nil && second.new != nil
        if firstInBoth && first.contentChanged { storage.appendUpdate(first.id) }
        if secondInBoth && second.contentChanged { storage.appendUpdate(second.id) }
        // A row in both lists may stay when as many affected rows precede it in each.
        func below(_ value: Int, _ a: Int?, _ b: Int?) -> Int {
            (a.map { $0 < value ? 1 : 0 } ?? 0) + (b.map { $0 < value ? 1 : 0 } ?? 0)
        }
        func mayStay(_ row: Touched) -> Bool {
            row.old! - below(row.old!, first.old, second.old) == row.new! - below(row.new!, first.new, second.new)
        }
        func move(_ row: Touched) { storage.appendMove(ChangeSet.Move(from: row.old!, to: row.new!)) }
        if firstInBoth && secondInBoth {
            let (p, q) = first.old! <= second.old! ? (first, second) : (second, first)
            // Of two that may stay, both do when in order; out of order, the later one does.
            let pMay = mayStay(p), qMay = mayStay(q)
            if !(pMay && (!qMay || p.new! < q.new!)) { move(p) }
            if !qMay { move(q) }
        } else if firstInBoth {
            if !mayStay(first) { move(first) }
        } else if secondInBoth {
            if !mayStay(second) { move(second) }
        }
    }

    /// The number of elements of the ascending array `sorted` that are less than `value`.
    static func lowerBound(_ sorted: [Int], _ value: Int) -> Int {
        sorted.partitioningIndex { $0 >= value }
    }

    /// The positions in `values` of a longest strictly increasing subsequence.
    /// - Complexity: O(*k* log *k*).
    static func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
        if values.count <= 1 { return Array(values.indices) }
        var tails: [Int] = []  // positions of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, value) in values.enumerated() {
            let lo = tails.partitioningIndex { values[$0] >= value }
            if lo > 0 { previous[i] = tails[lo - 1] }
            if lo == tails.count { tails.append(i) } else { tails[lo] = i }
        }
        var result: [Int] = []
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            result.append(cursor)
            cursor = previous[cursor]
        }
        return result.reversed()
    }
}

extension ChangeSetBuilder.Touched: Sendable where ID: Sendable {}
extension ChangeSetBuilder.Result: Sendable where ID: Sendable {}
extension ChangeSetBuilder.Storage: Sendable where ID: Sendable {}
