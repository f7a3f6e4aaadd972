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

    /// - Complexity: O(*k* log *k*) for *k* touched rows.
    static func build(_ touched: [Touched]) -> Result {
        var result = Result()
        if touched.count == 1 {
            // One row (most commands): it stays, moves, comes or goes; no sorting needed.
            let row = touched[0]
            switch (row.old, row.new) {
            case (let old?, nil): result.removals = [old]
            case (nil, let new?): result.insertions = [new]
            case (let old?, let new?):
                if old != new { result.moves = [ChangeSet.Move(from: old, to: new)] }
                if row.contentChanged { result.updates = [row.id] }
            case (nil, nil): break
            }
            return result
        }
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

    /// The number of elements of the ascending array `sorted` that are less than `value`.
    static func lowerBound(_ sorted: [Int], _ value: Int) -> Int {
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid] < value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The positions in `values` of a longest strictly increasing subsequence.
    /// - Complexity: O(*k* log *k*).
    static func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
        if values.count <= 1 { return Array(values.indices) }
        var tails: [Int] = []  // positions of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, value) in values.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[tails[mid]] < value { lo = mid + 1 } else { hi = mid }
            }
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
