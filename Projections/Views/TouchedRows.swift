/// The rows a batch touched, in the order first touched: a small array searched linearly
/// (a batch of one command touches one or two rows), with a dictionary from row id to
/// place once there are more than a few.
struct TouchedRows {
    /// A touched row: its entry before the batch and its index then, and its entry now.
    struct Touch {
        var id: RowID
        var old: RowEntry?
        var oldIndex: Int?
        var new: RowEntry?
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
    mutating func append(_ touch: Touch) {
        rows.append(touch)
        if rows.count > Self.linearLimit {
            if places.isEmpty {
                for (place, row) in rows.enumerated() { places[row.id] = place }
            } else {
                places[touch.id] = rows.count - 1
            }
        }
    }

    /// Sets the entry a touched row has now (`nil`: removed).
    /// - Complexity: O(1) on average.
    mutating func setNew(_ entry: RowEntry?, for id: RowID) {
        guard let place = place(of: id) else { return }
        rows[place].new = entry
    }

    private func place(of id: RowID) -> Int? {
        if rows.count > Self.linearLimit { return places[id] }
        return rows.firstIndex { $0.id == id }
    }
}
