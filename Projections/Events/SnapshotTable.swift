import TimelineCore

/// The snapshots of a shard's events, found by id: an open-addressing hash table with
/// linear probing, holding a reference and a 32-bit key per slot (31 bits of the id's
/// mixed hash, with the top bit set to mark the slot full).
///
/// A slot is 12 bytes, half of a `Dictionary<EventID, EventSnapshot>`'s 24 (the id's 16
/// and the reference's 8): the table holds every event of a store. The keys
/// find a slot's home without reading its snapshot, so growing and removing
/// never touch the snapshots, and a probe reads a snapshot only when its key matches.
///
/// Removal shifts the following entries of the probe run back (no tombstones), so a
/// lookup stops at the first empty slot.
struct SnapshotTable: Sendable {
    /// A slot's snapshot, or `nil`.
    private var slots: [EventSnapshot?] = []
    /// Each slot's key (``key(for:)``); 0 for an empty slot.
    private var keys: [UInt32] = []
    /// How many snapshots the table holds.
    /// - Complexity: O(1).
    private(set) var count = 0

    init() {}

    /// A table with room for `capacity` events before it grows.
    init(minimumCapacity capacity: Int) {
        if capacity > 0 { resize(to: Self.slotCount(for: capacity)) }
    }

    /// The slot count that holds `count` snapshots at most three quarters full.
    private static func slotCount(for count: Int) -> Int {
        var slots = 16
        while slots / 4 * 3 < count { slots *= 2 }
        return slots
    }

    /// The key of an event whose id has this hash (``EventTable/hash(of:)``): 31 bits of
    /// the hash, mixed so that bits used to choose a shard do not choose the slot, with
    /// the top bit set. It places the event in the table and finds its probe run without
    /// its id (``contains(key:where:)``, ``removeAll(key:where:)``).
    @inline(__always)
    static func key(for hash: UInt64) -> UInt32 {
        // The finaliser of MurmurHash3.
        var h = hash
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h &*= 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return UInt32(truncatingIfNeeded: h) | 0x8000_0000
    }

    /// The slot of the event with this id and key, or the empty slot that ends its probe run.
    private func find(_ id: EventID, key: UInt32) -> (found: Bool, slot: Int) {
        let mask = slots.count - 1
        var slot = Int(key) & mask
        while true {
            let bits = keys[slot]
            if bits == 0 { return (false, slot) }
            if bits == key, slots[slot].unsafelyUnwrapped.id == id { return (true, slot) }
            slot = (slot + 1) & mask
        }
    }

    /// The snapshot of the event with this id and hash.
    /// - Complexity: O(1) on average.
    func snapshot(_ id: EventID, hash: UInt64) -> EventSnapshot? {
        slot(of: id, hash: hash).map { slots[$0].unsafelyUnwrapped }
    }

    /// Where the event with this id and hash is, for ``replace(at:with:)`` or ``remove(at:)``.
    /// - Complexity: O(1) on average.
    func slot(of id: EventID, hash: UInt64) -> Int? {
        guard count > 0 else { return nil }
        let (found, slot) = find(id, key: Self.key(for: hash))
        return found ? slot : nil
    }

    /// The snapshot in a slot that ``slot(of:hash:)`` found.
    subscript(slot slot: Int) -> EventSnapshot { slots[slot].unsafelyUnwrapped }

    /// Puts a new snapshot of the same event in a slot that ``slot(of:hash:)`` found.
    /// - Complexity: O(1).
    mutating func replace(at slot: Int, with snapshot: EventSnapshot) {
        assert(slots[slot]?.id == snapshot.id, "a slot is replaced with a snapshot of the same event")
        slots[slot] = snapshot
    }

    /// Adds a snapshot, or replaces the snapshot of the same event; returns the replaced one.
    /// `hash` is the hash of the snapshot's id.
    /// - Complexity: O(1) on average; O(*n*) when the table grows, amortised O(1).
    @discardableResult
    mutating func update(_ snapshot: EventSnapshot, hash: UInt64) -> EventSnapshot? {
        if (count + 1) > slots.count / 4 * 3 { resize(to: Self.slotCount(for: count + 1)) }
        let key = Self.key(for: hash)
        let (found, slot) = find(snapshot.id, key: key)
        if found {
            let old = slots[slot]
            slots[slot] = snapshot
            return old
        }
        slots[slot] = snapshot
        keys[slot] = key
        count += 1
        return nil
    }

    /// Removes the snapshot in a slot that ``slot(of:hash:)`` found, and returns it.
    ///
    /// The entries after it in its probe run move back into the hole when their home is
    /// not between the hole and them.
    /// - Complexity: O(1) on average.
    @discardableResult
    mutating func remove(at slot: Int) -> EventSnapshot {
        let removed = slots[slot].unsafelyUnwrapped
        let mask = slots.count - 1
        var hole = slot
        var next = (slot + 1) & mask
        while keys[next] != 0 {
            let home = Int(keys[next]) & mask
            // The entry may fill the hole if the hole lies on its way from home to `next`.
            if (next - home) & mask >= (next - hole) & mask {
                slots[hole] = slots[next]
                keys[hole] = keys[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = nil
        keys[hole] = 0
        count -= 1
        return removed
    }

    /// Whether an event with this key (``key(for:)``) satisfies `predicate`.
    /// - Complexity: O(1) on average: the key's probe run.
    func contains(key: UInt32, where predicate: (EventSnapshot) -> Bool) -> Bool {
        guard count > 0 else { return false }
        let mask = slots.count - 1
        var slot = Int(key) & mask
        while keys[slot] != 0 {
            if keys[slot] == key, predicate(slots[slot].unsafelyUnwrapped) { return true }
            slot = (slot + 1) & mask
        }
        return false
    }

    /// Removes every event with this key (``key(for:)``) that satisfies `predicate`, and
    /// returns them.
    /// - Complexity: O(1) on average: the key's probe run.
    mutating func removeAll(key: UInt32, where predicate: (EventSnapshot) -> Bool) -> [EventSnapshot] {
        guard count > 0 else { return [] }
        var removed: [EventSnapshot] = []
        let mask = slots.count - 1
        var slot = Int(key) & mask
        while keys[slot] != 0 {
            if keys[slot] == key, predicate(slots[slot].unsafelyUnwrapped) {
                // The run's later entries may shift into this slot: look at it again.
                removed.append(remove(at: slot))
            } else {
                slot = (slot + 1) & mask
            }
        }
        return removed
    }

    /// How many slots the table has: a slot number is below it.
    var slotCount: Int { slots.count }

    /// Calls `body` with each snapshot and its slot, in slot order.
    /// - Complexity: O(*c*) for *c* slots.
    func forEachSnapshot(_ body: (Int, EventSnapshot) -> Void) {
        slots.withUnsafeBufferPointer { slots in
            for slot in slots.indices {
                if let snapshot = slots[slot] { body(slot, snapshot) }
            }
        }
    }

    /// Every snapshot, in slot order.
    /// - Complexity: O(*c*) to iterate, for *c* slots.
    var snapshots: some Sequence<EventSnapshot> { slots.lazy.compactMap { $0 } }

    /// `count` copies of `value`, in storage that asks for huge pages before it is
    /// written (``HugePages``): a table's arrays are the largest a store has.
    private static func array<T>(repeating value: T, count: Int) -> [T] {
        [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
            buffer.initialize(repeating: value)
            initialized = count
        }
    }

    /// Moves every entry to a table of `slotCount` slots, by its key alone.
    private mutating func resize(to slotCount: Int) {
        let oldSlots = slots, oldHashes = keys
        slots = Self.array(repeating: nil, count: slotCount)
        keys = Self.array(repeating: 0, count: slotCount)
        let mask = slotCount - 1
        for (snapshot, bits) in zip(oldSlots, oldHashes) where bits != 0 {
            var slot = Int(bits) & mask
            while keys[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = snapshot
            keys[slot] = bits
        }
    }
}
