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
    /// "Now" in microseconds since the epoch, within ``RowEntry/instantRange`` as a row's
    /// instant is; used by marked (ongoing, started) rows.
    let now: Int64

    init(placement: OngoingPlacement, now: Int64) {
        self.placement = placement
        self.now = RowEntry.kept(now)
    }

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

    /// ``RowEntry/instantKey`` of the instant the row sorts at: now's (which has no
    /// sub-microsecond part) for a marked row.
    @inline(__always)
    func instantKey(_ entry: RowEntry) -> Int64 { entry.isMarked ? now << 1 : entry.instantKey }

    /// Whether `a` sorts before `b`: the comparison a view's search makes (one definition
    /// of the order, read in place there).
    func precedes(_ a: RowEntry, _ b: RowEntry) -> Bool {
        withUnsafePointer(to: a) { precedes($0, b, group: group(b.kind), instantKey: instantKey(b)) }
    }

    /// An index of the rows of the events in `events` that `includes` lets in, in this order.
    ///
    /// Sorts keys of two words — the group and the instant's key in one; the first four bytes
    /// of the event id (of the row's ``RowEntry/idPrefix``), where the event is in the
    /// table and the role in the other — and
    /// compares sub-microsecond parts only where the first words tie with one on both rows,
    /// and whole ids only where the first words and the ids' first bytes tie, so the
    /// sort moves no references and rarely touches a string. The keys are made from the
    /// table's slots and the index's nodes are filled from the sorted keys, so no array of
    /// the rows is made: the keys
    /// are the largest part of the peak memory of opening a store, and an array of rows
    /// beside them would add to it for every row.
    ///
    /// The keys' array is reserved for two rows per event; pages that no row reaches are
    /// never written, so they take no memory.
    /// - Complexity: O(*n* log *n*) for *n* rows, plus O(*c*) for the table's *c* slots.
    func sortedIndex(of table: EventTable, includes: (EventSnapshot) -> Bool) -> OrderedIndex<RowEntry> {
        // Rows are found again by their events' places, read in a table holding them all.
        let events = table.loaded
        struct Key {
            /// The group above the instant's key, offset to be unsigned (both within 63 bits).
            var first: UInt64
            /// The id's first four bytes, the slot below them (31 bits), then the role.
            var second: UInt64

            var prefix: UInt64 { second >> 32 }
            var slot: UInt32 { UInt32(truncatingIfNeeded: second) >> 1 }
            var role: UInt64 { second & 1 }
        }
        func key(_ entry: RowEntry, slot: UInt32) -> Key {
            // The lowest key is even, so the offset's lowest bit is the key's: the flag of a
            // sub-microsecond part.
            let offset = UInt64(bitPattern: instantKey(entry) &- RowEntry.instantRange.lowerBound << 1)
            return Key(first: UInt64(group(entry.kind)) << 61 | offset,
                       second: entry.idPrefix & 0xFFFF_FFFF_0000_0000 | UInt64(slot) << 1 | UInt64(entry.kind.role.rawValue))
        }
        var keys: [Key] = []
        keys.reserveCapacity(2 * events.count)
        events.forEachSnapshot { slot, snapshot in
            guard includes(snapshot) else { return }
            // The id's first bytes, read once for both of the event's rows.
            let prefix = Self.prefix(snapshot.id.rawValue)
            func row(_ kind: RowKind) -> RowEntry {
                RowEntry(event: snapshot, kind: kind, now: now, placement: placement, idPrefix: prefix)
            }
            keys.append(key(row(snapshot.firstRowKind), slot: slot))
            if let kind = snapshot.secondRowKind { keys.append(key(row(kind), slot: slot)) }
        }
        func nanoseconds(_ key: Key) -> UInt16 {
            let snapshot = events[slot: key.slot]
            return RowEntry.nanoseconds(of: snapshot, key.role == 0 ? snapshot.firstRowKind : snapshot.secondRowKind!)
        }
        keys.sort { a, b in
            if a.first != b.first { return a.first < b.first }
            if a.first & 1 == 1 {
                let na = nanoseconds(a), nb = nanoseconds(b)
                if na != nb { return na < nb }
            }
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            if a.slot != b.slot {
                let c = EventSnapshot.compareIDs(events[slot: a.slot], events[slot: b.slot])
                if c != 0 { return c < 0 }
            }
            return a.role < b.role
        }
        return OrderedIndex(count: keys.count) { index in
            let key = keys[index]
            let snapshot = events[slot: key.slot]
            let kind = key.role == 0 ? snapshot.firstRowKind : snapshot.secondRowKind!
            return RowEntry(event: snapshot, kind: kind, now: now, placement: placement)
        }
    }

    /// The first eight UTF-8 bytes of `id`, big-endian, zero-padded: comparing prefixes
    /// (or their first bytes) orders ids as their bytes do, except that equal prefixes
    /// need the whole ids.
    ///
    /// Read from the string's contiguous bytes, not by iterating its UTF-8 view: every row
    /// made at open computes one.
    static func prefix(_ id: String) -> UInt64 {
        var id = id
        return id.withUTF8 { bytes in
            var value: UInt64 = 0
            let count = Swift.min(8, bytes.count)
            for offset in 0..<count { value = value << 8 | UInt64(bytes[offset]) }
            return count == 0 ? 0 : value << (8 * (8 - UInt64(count)))
        }
    }

    /// The index of `entry` in `index` if it is there, or where it would be inserted.
    ///
    /// - Complexity: O(log *n*).
    func position(of entry: RowEntry, in index: OrderedIndex<RowEntry>) -> Int {
        walk(to: entry, in: index) { at, _, _ in at }
    }

    /// ``position(of:in:)``, with the walk's way down recorded in `steps` for the
    /// insertion at that position (``OrderedIndex/Path``).
    /// - Complexity: O(log *n*).
    func position(of entry: RowEntry, in index: OrderedIndex<RowEntry>,
                  recording steps: UnsafeMutableBufferPointer<OrderedIndex<RowEntry>.PathStep>)
        -> (at: Int, path: OrderedIndex<RowEntry>.Path) {
        walk(to: entry, in: index, recording: steps) { at, _, path in (at, path) }
    }

    /// The index of `entry` in `index` if it is there, or where it would be inserted, and
    /// the row at that index (`nil` at the end), found on one walk, whose way down is
    /// recorded in `steps` for a removal or an update there (``OrderedIndex/Path``).
    /// - Complexity: O(log *n*).
    func find(_ entry: RowEntry, in index: OrderedIndex<RowEntry>,
              recording steps: UnsafeMutableBufferPointer<OrderedIndex<RowEntry>.PathStep>? = nil)
        -> (at: Int, row: RowEntry?, path: OrderedIndex<RowEntry>.Path) {
        walk(to: entry, in: index, recording: steps) { at, row, path in (at, row?.pointee, path) }
    }

    /// Walks `index` to where `entry` is or would go, handing `body` that index, the row
    /// there, read in place, and the way down when `steps` records it.
    @inline(__always)
    private func walk<R>(to entry: RowEntry, in index: OrderedIndex<RowEntry>,
                         recording steps: UnsafeMutableBufferPointer<OrderedIndex<RowEntry>.PathStep>? = nil,
                         _ body: (Int, UnsafePointer<RowEntry>?, OrderedIndex<RowEntry>.Path) -> R) -> R {
        let group = group(entry.kind), key = instantKey(entry)
        return index.partitionIndex(splittingNodes: { elements in
            OrderedIndex.partitionPoint(of: elements, step: OrderedIndex<RowEntry>.elementsPerLine) {
                precedes($0, entry, group: group, instantKey: key)
            }
        }, recording: steps, body)
    }

    /// `precedes(a.pointee, b)` for `b` of the given group and instant key, reading `a` in
    /// place: its event is only touched when the instants and the ids' prefixes tie, or
    /// the instants' microseconds tie and both have a sub-microsecond part.
    @inline(__always)
    private func precedes(_ a: UnsafePointer<RowEntry>, _ b: RowEntry, group gb: UInt8, instantKey ib: Int64) -> Bool {
        let ga = group(a.pointee.kind)
        if ga != gb { return ga < gb }
        let ia = instantKey(a.pointee)
        if ia != ib { return ia < ib }
        // The element's event, unretained: the node holds it for the whole search.
        let event = UnsafeRawPointer(a).load(fromByteOffset: RowEntry.eventOffset, as: Unmanaged<EventSnapshot>.self)
        if ia & 1 == 1 {
            let na = event._withUnsafeGuaranteedRef { RowEntry.nanoseconds(of: $0, a.pointee.kind) }
            let nb = b.nanoseconds
            if na != nb { return na < nb }
        }
        let pa = a.pointee.idPrefix
        if pa != b.idPrefix { return pa < b.idPrefix }
        let c = event._withUnsafeGuaranteedRef { EventSnapshot.compareIDs($0, b.event) }
        if c != 0 { return c < 0 }
        return a.pointee.kind.role < b.kind.role
    }
}
