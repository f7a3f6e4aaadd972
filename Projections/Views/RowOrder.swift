import TimelineCore

/// The row order contract: rows compare by `(group, instant, event id, role)`.
///
/// - `role`: 0 for `single` and `start`, 1 for `end` and `ongoing`;
/// - `event id`: compared as UTF-8 bytes;
/// - `now` placement: group 0 for all rows, an ongoing row's instant is max(now, start);
///   `last`: group 1 for ongoing rows; `first`: group 1 for dated rows.
///
/// The index always holds rows ascending; a descending view reverses indices.
struct RowOrder: Sendable {
    var placement: OngoingPlacement
    /// "Now" in microseconds since the epoch; used by marked (ongoing, started) rows.
    var now: Int64

    @inline(__always)
    func group(_ kind: RowKind) -> UInt8 {
        switch placement {
        case .now: 0
        case .last: kind == .ongoing ? 1 : 0
        case .first: kind == .ongoing ? 0 : 1
        }
    }

    @inline(__always)
    func instant(_ entry: RowEntry) -> Int64 { entry.isMarked ? now : entry.instant }

    /// Whether `a` sorts before `b`.
    @inline(__always)
    func precedes(_ a: RowEntry, _ b: RowEntry) -> Bool {
        let ga = group(a.kind), gb = group(b.kind)
        if ga != gb { return ga < gb }
        let ia = instant(a), ib = instant(b)
        if ia != ib { return ia < ib }
        if a.event !== b.event {
            let c = EventID.compareUTF8(a.event.id.rawValue, b.event.id.rawValue)
            if c != 0 { return c < 0 }
        }
        return a.kind.role < b.kind.role
    }

    /// The index of `entry` in `index` if it is there, or where it would be inserted.
    ///
    /// - Complexity: O(log *n*).
    func position(of entry: RowEntry, in index: OrderedIndex<RowEntry>) -> Int {
        index.partitionIndex { !precedes($0, entry) }
    }
}
