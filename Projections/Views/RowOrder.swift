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

    /// An index of the rows of the events in `events` that `includes` lets in, in this order.
    ///
    /// Sorts plain keys — group, instant, the first eight bytes of the event id, role,
    /// and where the event is in the table — and compares whole ids only where those
    /// tie, so the sort moves no references and rarely touches a string (callgrind: the
    /// sort was half of rebuilding 400k rows). The keys are made from the table's slots
    /// and the index's nodes are filled from the sorted keys, so no array of the rows is
    /// made: with one, the rows and their keys were 40 bytes a row at the peak of
    /// opening a store, where the keys alone are 24.
    ///
    /// The keys' array is reserved for two rows per event; pages that no row reaches are
    /// never written, so they take no memory.
    /// - Complexity: O(*n* log *n*) for *n* rows, plus O(*c*) for the table's *c* slots.
    func sortedIndex(of events: EventTable, includes: (EventSnapshot) -> Bool) -> OrderedIndex<RowEntry> {
        // 24 bytes: the wide fields first.
        struct Key {
            var instant: Int64
            var prefix: UInt64
            var slot: UInt32
            var group: UInt8
            var role: UInt8
        }
        var keys: [Key] = []
        keys.reserveCapacity(2 * events.count)
        events.forEachSnapshot { slot, snapshot in
            guard includes(snapshot) else { return }
            let prefix = Self.prefix(snapshot.id.rawValue)
            let first = RowEntry(event: snapshot, kind: snapshot.firstRowKind, now: now, placement: placement)
            keys.append(Key(instant: instant(first), prefix: prefix, slot: slot, group: group(first.kind),
                            role: first.kind.role.rawValue))
            if let kind = snapshot.secondRowKind {
                let second = RowEntry(event: snapshot, kind: kind, now: now, placement: placement)
                keys.append(Key(instant: instant(second), prefix: prefix, slot: slot, group: group(kind),
                                role: kind.role.rawValue))
            }
        }
        keys.sort { a, b in
            if a.group != b.group { return a.group < b.group }
            if a.instant != b.instant { return a.instant < b.instant }
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            if a.slot != b.slot {
                let c = EventID.compareUTF8(events[slot: a.slot].id.rawValue, events[slot: b.slot].id.rawValue)
                if c != 0 { return c < 0 }
            }
            return a.role < b.role
        }
        return OrderedIndex(count: keys.count) { index in
            let key = keys[index]
            let snapshot = events[slot: key.slot]
            let kind = key.role == RowRole.start.rawValue ? snapshot.firstRowKind : snapshot.secondRowKind!
            return RowEntry(event: snapshot, kind: kind, now: now, placement: placement)
        }
    }

    /// The first eight UTF-8 bytes of `id`, big-endian, zero-padded: comparing prefixes
    /// orders ids as their bytes do, except that equal prefixes need the whole ids.
    static func prefix(_ id: String) -> UInt64 {
        var value: UInt64 = 0
        var count = 0
        for byte in id.utf8.prefix(8) {
            value = value << 8 | UInt64(byte)
            count += 1
        }
        return count == 8 ? value : value << (8 * UInt64(8 - count))
    }

    /// The index of `entry` in `index` if it is there, or where it would be inserted.
    ///
    /// - Complexity: O(log *n*).
    func position(of entry: RowEntry, in index: OrderedIndex<RowEntry>) -> Int {
        index.partitionIndex { !precedes($0, entry) }
    }
}
