import TimelineCore

/// The rows a batch touched, in the order first touched: a small array searched linearly
/// (a batch of one command touches one or two rows), with a dictionary from row id to
/// place once there are more than a few.
struct TouchedRows {
    /// A touched row: its entry before the batch and its index then, and its entry and
    /// index now (the index kept up to date through the batch's insertions and removals,
    /// so that the end of a small batch need not search for it).
    struct Touch {
        var id: RowID
        var old: RowEntry?
        var oldIndex: Int?
        var new: RowEntry?
        var newIndex: Int?
    }

    private(set) var rows: [Touch] = []
    private var places: [RowID: Int] = [:]

    /// Above this many rows, places are looked up in a dictionary.
    static let linearLimit = 8

    var count: Int { rows.count }
    var isEmpty: Bool { rows.isEmpty }

    /// - Complexity: O(1) on average.
    func contains(_ id: RowID) -> Bool { place(of: id) != nil }

    /// Adds a row not touched before.
    /// - Complexity: O(1) amortised.
    mutating func append(_ touch: consuming Touch) {
        if rows.count >= Self.linearLimit {
            if places.isEmpty {
                for (place, row) in rows.enumerated() { places[row.id] = place }
            }
            places[touch.id] = rows.count
        }
        rows.append(touch)  // moved in, last: a copy retained its id and both entries
    }

    /// Sets the entry a touched row has now and its index (`nil`: removed).
    /// - Complexity: O(1) on average.
    mutating func setNew(_ entry: RowEntry?, at index: Int?, for id: RowID) {
        guard let place = place(of: id) else { return }
        rows[place].new = entry
        rows[place].newIndex = index
    }

    /// Moves the touched rows' indices past an insertion or a removal.
    /// - Complexity: O(*k*) for *k* touched rows.
    mutating func shift(for operation: IndexOperation) {
        for place in rows.indices {
            guard let index = rows[place].newIndex else { continue }
            switch operation {
            case .insert(let at): if index >= Int(at) { rows[place].newIndex = index + 1 }
            case .remove(let at): if index > Int(at) { rows[place].newIndex = index - 1 }
            }
        }
    }

    /// Forgets every row, keeping the storage for the next batch.
    mutating func removeAll() {
        rows.removeAllKeepingStorage()
        if !places.isEmpty { places.removeAll(keepingCapacity: true) }
    }

    private func place(of id: RowID) -> Int? {
        if rows.count > Self.linearLimit { return places[id] }
        return rows.firstIndex { $0.id == id }
    }
}
