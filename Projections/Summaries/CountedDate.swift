/// One distinct date of a timeline's summary, and how many times its events have it (as
/// a single date, a range's start or a closed range's end).
///
/// A timeline's dates are a multiset (an event's removal takes one of its dates out),
/// but most dates are shared with other events: a day holds many. Keeping each
/// distinct date once, with a count, makes the tree a fraction of the size, and a date
/// already there is counted in place instead of shifting the rest of its leaf.
struct CountedDate: OrderedIndexElement, Sendable {
    let entry: DatedEntry
    /// How many times the timeline's events have the date; at least 1.
    var count: Int

    var isMarked: Bool { false }

    /// Runs of equal dates in `sorted` (in order), each counted once.
    /// - Complexity: O(*n*).
    static func runs(of sorted: [DatedEntry]) -> [CountedDate] {
        var runs: [CountedDate] = []
        for entry in sorted {
            if let last = runs.last, last.entry == entry {
                runs[runs.count - 1].count += 1
            } else {
                runs.append(CountedDate(entry: entry, count: 1))
            }
        }
        return runs
    }
}

extension CountedDate {
    /// Two lists of distinct dates in order, merged in order (no date is in both).
    /// - Complexity: O(*m* + *n*).
    static func merged(_ a: [CountedDate], _ b: [CountedDate]) -> [CountedDate] {
        if b.isEmpty { return a }
        if a.isEmpty { return b }
        var result: [CountedDate] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if b[j].entry < a[i].entry {
                result.append(b[j])
                j += 1
            } else {
                result.append(a[i])
                i += 1
            }
        }
        result.append(contentsOf: a[i...])
        result.append(contentsOf: b[j...])
        return result
    }
}

extension OrderedIndex where Element == CountedDate {
    /// Counts `date` `delta` times more (or fewer, for a negative `delta`), adding it when
    /// it is new and removing it when its count comes to zero or below; counting out a
    /// date that is not there changes nothing.
    /// - Complexity: O(log *n*).
    mutating func adjust(_ date: DatedEntry, by delta: Int) {
        switch changeCount(of: date, by: delta) {
        case .counted:
            break
        case .absent(let position):
            if delta > 0 { insert(CountedDate(entry: date, count: delta), at: position) }
        case .last(let position):
            remove(at: position)
        }
    }

    /// Adds `delta` to the count of `date` in one walk from the root, if the date is
    /// there and its count stays above zero; otherwise says where the date is or would go,
    /// so that inserting or removing it walks once more, not three times.
    ///
    /// Most dates are shared, so most changes are counted in place: finding the date,
    /// reading it and writing it back would be three walks.
    /// - Complexity: O(log *n*), copying the nodes on the path that another copy of
    ///   the index shares.
    private mutating func changeCount(of date: DatedEntry, by delta: Int) -> CountChange {
        var node = uniqueRoot()
        var base = 0
        while true {
            // Every fourth date first (a cache line and a half apart), then a binary search
            // between, as a view's search does with its rows.
            let elements = node.elements
            let low = Self.partitionPoint(of: UnsafeBufferPointer(elements), step: 4) { $0.pointee.entry < date }
            let found = low < elements.count && elements[low].entry == date
            if node.isLeaf {
                base += low
            } else {
                base += node.elementsBefore(child: low)
                if found { base += node.childCounts[low] }
            }
            if found {
                let count = elements[low].count + delta
                guard count > 0 else { return .last(at: base) }
                elements[low].count = count
                return .counted
            }
            if node.isLeaf { return .absent(at: base) }
            node = node.uniqueChild(low, nodeCapacity: nodeCapacity)
        }
    }
}

/// What ``OrderedIndex/changeCount(of:by:)`` did.
private enum CountChange {
    /// The date was there, and its count was changed.
    case counted
    /// The date is not there; it would go at this position.
    case absent(at: Int)
    /// The date is at this position, and the change would take its count to zero.
    case last(at: Int)
}
