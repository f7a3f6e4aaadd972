import Dispatch
import Synchronization
import TimelineCore

/// The events by id, split into shards by a hash of the id, with the keys of the events
/// each timeline holds kept per shard (``TimelineMembers``).
///
/// A fact about an event touches one shard only, and a timeline's removal each shard on
/// its own, so the shards of a log are folded at the same time, one per processor (see
/// ``applyInParallel(_:alongside:)``), and a checkpoint's table is built the same way: the
/// events are the largest part of the work of a rebuild and of opening a checkpoint.
///
/// A table restored from a checkpoint for a store that keeps no view may leave the
/// checkpoint's events where they are (``PendingPartitions``): the events fall into
/// ``partitionCount`` partitions by the same hash, partition `p` in shard `p % shards`.
/// While partition `p` is pending, its events are those its shard holds (taken over from
/// it, or new), and those it holds that its shard does not and that were not removed
/// since (``Partly/removed``): a lookup reads the partition's index, a change
/// takes the event over first. Anything that goes through every event joins every
/// partition to its shard first (``loadAll()``).
struct EventTable: Sendable {
    /// A shard: some of the events, and the keys of those each timeline holds.
    struct Shard: Sendable {
        var events = SnapshotTable()
        var members = TimelineMembers()
    }

    private(set) var shards: [Shard]

    /// Where the events are: all in the shards, or partly still in a checkpoint's partitions.
    private enum Residence: Sendable {
        case inShards
        case partly(Partly)
    }

    /// The state of a table whose events are partly still in a checkpoint's partitions.
    /// Invariant: the shard count divides ``partitionCount``.
    private struct Partly: Sendable {
        let pending: PendingPartitions
        /// Bit `p` set: partition `p` joined its shard.
        var joined: UInt64 = 0
        /// How many events of pending partitions their shards took over (changed, or
        /// adopted by a row: the shard's copy is the event) or that were removed since:
        /// counted in their partitions, not to be counted again.
        var shadowed = 0
        /// The events removed since loading (one of a pending partition stays out of it).
        var removed: Set<EventID> = []

        func isPending(_ partition: Int) -> Bool { joined & (1 << UInt64(partition)) == 0 }
        var isComplete: Bool { joined == UInt64.max }
    }

    private var residence = Residence.inShards
    /// A partition found malformed was joined (as no events): see ``lostPartitions``.
    private var joinedMalformed = false

    /// As many shards as processors, from two to eight, a power of two (it divides
    /// ``partitionCount``).
    static let defaultShardCount = ProcessInfoCount.active >= 8 ? 8 : ProcessInfoCount.active >= 4 ? 4 : 2

    /// How many partitions a checkpoint divides the events into (``partition(ofHash:)``).
    static let partitionCount = 64

    init(shardCount: Int = EventTable.defaultShardCount) {
        precondition(shardCount > 0, "a table has at least one shard")
        shards = Array(repeating: Shard(), count: shardCount)
    }

    /// A table of shards built elsewhere; `shards[k]` must hold the events whose ids
    /// ``shard(of:count:)`` puts in shard `k` of `shards.count`.
    init(shards: [Shard]) {
        precondition(!shards.isEmpty, "a table has at least one shard")
        self.shards = shards
    }

    /// A table whose events are all still in a checkpoint's partitions.
    init(pending: PendingPartitions, shardCount: Int = EventTable.defaultShardCount) {
        precondition(shardCount > 0 && Self.partitionCount % shardCount == 0, "the shard count divides the partitions'")
        precondition(Self.partitionCount == UInt64.bitWidth, "a partition's bit in a word says whether it joined")
        shards = Array(repeating: Shard(), count: shardCount)
        residence = .partly(Partly(pending: pending))
    }

    /// The partition of an id with this hash: the shard it has among ``partitionCount``.
    static func partition(ofHash hash: UInt64) -> Int { shard(ofHash: hash, count: partitionCount) }

    /// Whether some events are still in a checkpoint's partitions.
    var hasPendingEvents: Bool {
        if case .partly = residence { return true }
        return false
    }

    /// How many of the checkpoint's partitions were decoded (0 when there were none).
    var decodedPartitions: Int {
        if case .partly(let partly) = residence { return partly.pending.decodedCount }
        return 0
    }

    /// How many of the checkpoint's pending partitions were found not to decode, and so
    /// hold no event (0 when there were none, or once every partition joined).
    var malformedPartitions: Int {
        if case .partly(let partly) = residence { return partly.pending.malformedCount }
        return 0
    }

    /// Whether a partition of the checkpoint this table came from was found not to decode
    /// (behind a matching checksum: a forged file), so that its events are missing: such a
    /// table must not be saved as a checkpoint. Stays true once every partition joined.
    var lostPartitions: Bool { joinedMalformed || malformedPartitions > 0 }

    /// Changes the state of a table whose events are partly in partitions (`nil` for
    /// one whose events are all in its shards), held once while `body` runs, so that the
    /// set of removed events is changed in place, not copied.
    private mutating func changePartly<R>(_ body: (inout Partly, inout [Shard]) -> R) -> R? {
        guard case .partly(var partly) = residence else { return nil }
        residence = .inShards
        defer { if !partly.isComplete { residence = .partly(partly) } }
        return body(&partly, &shards)
    }

    /// Moves partition `partition` into its shard, if it is still pending: its events but
    /// those the shard took over.
    /// - Complexity: O(*n*) for its *n* events the first time, O(1) after.
    private mutating func join(_ partition: Int) {
        let malformed = changePartly { partly, shards -> Bool in
            guard partly.isPending(partition) else { return false }
            let events = partly.pending.events(of: partition)
            let shard = partition % shards.count
            let anyShadowed = partly.shadowed > 0 || !partly.removed.isEmpty
            for (offset, snapshot) in events.snapshots.enumerated() {
                let hash = events.hashes[offset]
                if anyShadowed, shards[shard].events.snapshot(snapshot.id, hash: hash) != nil
                    || partly.removed.contains(snapshot.id) {
                    partly.shadowed -= 1
                    continue
                }
                // A forged checkpoint may list an id twice: the later one stands, as in a fold.
                if let old = shards[shard].events.update(snapshot, hash: hash), old.timeline == snapshot.timeline { continue }
                shards[shard].members.add(SnapshotTable.key(for: hash), to: snapshot.timeline)
            }
            if !partly.removed.isEmpty {
                partly.removed = partly.removed.filter { Self.partition(ofHash: Self.hash(of: $0)) != partition }
            }
            partly.joined |= 1 << UInt64(partition)
            return partly.pending.malformedCount > 0
        }
        if malformed == true { joinedMalformed = true }
    }

    /// Before a change to the event with this id and hash: puts it in its shard as the
    /// pending partition holds it, if it is pending there and not taken over yet.
    /// - Complexity: O(log *n*) for the partition's *n* events.
    private mutating func takeOver(_ id: EventID, hash: UInt64) {
        changePartly { partly, shards in
            let partition = Self.partition(ofHash: hash)
            let shard = Self.shard(ofHash: hash, count: shards.count)
            guard partly.isPending(partition), shards[shard].events.snapshot(id, hash: hash) == nil,
                  !partly.removed.contains(id),
                  let base = partly.pending.snapshot(id, hash: hash, partition: partition) else { return }
            shards[shard].events.update(base, hash: hash)
            shards[shard].members.add(SnapshotTable.key(for: hash), to: base.timeline)
            partly.shadowed += 1
        }
    }

    /// After a fact about the event with this id: if its shard no longer holds it (it was
    /// removed, or never was), its partition's copy, if pending, is no longer the event.
    private mutating func noteRemoval(_ id: EventID, hash: UInt64) {
        changePartly { partly, shards in
            let partition = Self.partition(ofHash: hash)
            guard partly.isPending(partition),
                  shards[Self.shard(ofHash: hash, count: shards.count)].events.snapshot(id, hash: hash) == nil else { return }
            partly.removed.insert(id)
        }
    }

    /// The table's snapshot of the event `snapshot` is of, as a pending partition holds
    /// it: `snapshot` itself, taken over into its shard unless the shard has the event
    /// already (a row restored from a checkpoint shares its snapshot with the table).
    /// - Complexity: O(1) on average.
    mutating func adopt(_ snapshot: EventSnapshot) -> EventSnapshot {
        let hash = Self.hash(of: snapshot.id)
        let shard = Self.shard(ofHash: hash, count: shards.count)
        if let held = shards[shard].events.snapshot(snapshot.id, hash: hash) { return held }
        changePartly { partly, shards in
            guard partly.isPending(Self.partition(ofHash: hash)), !partly.removed.contains(snapshot.id) else { return }
            shards[shard].events.update(snapshot, hash: hash)
            shards[shard].members.add(SnapshotTable.key(for: hash), to: snapshot.timeline)
            partly.shadowed += 1
        }
        return snapshot
    }

    /// Moves every pending partition into the shards.
    /// - Complexity: O(*n*) for the *n* events still pending.
    mutating func loadAll() {
        guard hasPendingEvents else { return }
        for partition in 0..<Self.partitionCount { join(partition) }
    }

    /// The table with every event in its shards: itself, or a copy that loaded them.
    var loaded: EventTable {
        guard hasPendingEvents else { return self }
        var all = self
        all.loadAll()
        return all
    }

    /// The hash of an id: FNV-1a over its UTF-8 bytes, the same in every process, so an
    /// id goes to the same shard and the table's order is the same in every run.
    static func hash(of id: EventID) -> UInt64 {
        var text = id.rawValue
        return text.withUTF8 { bytes in
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return hash
        }
    }

    /// The shard of an id with this hash among `count`.
    static func shard(ofHash hash: UInt64, count: Int) -> Int {
        Int((hash ^ (hash >> 32)) % UInt64(count))
    }

    /// The shard of `id` among `count`.
    static func shard(of id: EventID, count: Int) -> Int { shard(ofHash: hash(of: id), count: count) }

    /// How many events there are.
    /// - Complexity: O(*s*) for *s* shards, plus O(*p*) for *p* partitions while some are pending.
    var count: Int {
        var count = shards.reduce(0) { $0 + $1.events.count }
        if case .partly(let partly) = residence {
            for partition in 0..<Self.partitionCount where partly.isPending(partition) {
                count += partly.pending.count(of: partition)
            }
            count -= partly.shadowed
        }
        return count
    }

    /// Every event's snapshot, shard after shard.
    var snapshots: some Sequence<EventSnapshot> {
        loaded.shards.lazy.flatMap(\.events.snapshots)
    }

    /// Calls `body` with each snapshot and a number for its place in the table, which
    /// ``subscript(slot:)`` reads back while the table is not changed.
    ///
    /// The number interleaves the shards: slot `s` of shard `k` is `s * shards + k`,
    /// below 2³¹ (a view's build keeps it in 31 bits).
    /// - Complexity: O(*c*) for the shards' *c* slots.
    func forEachSnapshot(_ body: (UInt32, EventSnapshot) -> Void) {
        // The numbers are places in a table that holds every event: while some are
        // pending, in a copy that loaded them (``subscript(slot:)`` reads a loaded table).
        guard !hasPendingEvents else { return loaded.forEachSnapshot(body) }
        let count = shards.count
        precondition((shards.map(\.events.slotCount).max() ?? 0) * count <= 1 << 31,
                     "a table's slots are numbered in 31 bits")
        for (shard, part) in shards.enumerated() {
            part.events.forEachSnapshot { slot, snapshot in body(UInt32(slot * count + shard), snapshot) }
        }
    }

    /// The snapshot at a place ``forEachSnapshot(_:)`` gave.
    /// - Complexity: O(1).
    subscript(slot slot: UInt32) -> EventSnapshot {
        precondition(!hasPendingEvents, "a place is read in a table with every event loaded (``loaded``)")
        let count = UInt32(shards.count)
        return shards[Int(slot % count)].events[slot: Int(slot / count)]
    }

    /// The snapshot of the event with this id.
    /// - Complexity: O(1) on average.
    subscript(id: EventID) -> EventSnapshot? {
        let hash = Self.hash(of: id)
        let inShard = shards[Self.shard(ofHash: hash, count: shards.count)].events.snapshot(id, hash: hash)
        let partition = Self.partition(ofHash: hash)
        guard inShard == nil, case .partly(let partly) = residence, partly.isPending(partition),
              !partly.removed.contains(id) else { return inShard }
        return partly.pending.snapshot(id, hash: hash, partition: partition)
    }

    /// Applies a fact about an event to its shard; returns the event's snapshot before and
    /// after, or `nil` when no event changed (timeline facts change none here).
    mutating func apply(_ fact: Fact) -> (old: EventSnapshot?, new: EventSnapshot?)? {
        guard let id = fact.event else { return nil }
        let hash = Self.hash(of: id)
        guard hasPendingEvents else { return shards[Self.shard(ofHash: hash, count: shards.count)].apply(fact, hash: hash) }
        takeOver(id, hash: hash)
        let change = shards[Self.shard(ofHash: hash, count: shards.count)].apply(fact, hash: hash)
        if change?.new == nil { noteRemoval(id, hash: hash) }
        return change
    }

    /// Applies a fact to the events alone, for a bulk build: a fact about an event to its
    /// shard, a timeline's removal to every shard.
    mutating func fold(_ fact: Fact) {
        if let id = fact.event {
            let hash = Self.hash(of: id)
            if hasPendingEvents { takeOver(id, hash: hash) }
            shards[Self.shard(ofHash: hash, count: shards.count)].fold(fact, hash: hash)
            if hasPendingEvents { noteRemoval(id, hash: hash) }
        } else {
            loadAll()
            for index in shards.indices { shards[index].fold(fact, hash: 0) }
        }
    }

    /// Removes a timeline's events from every shard; returns their snapshots.
    /// - Complexity: O(*k*) for the *k* keys the timeline's lists hold (after loading
    ///   every pending event).
    mutating func removeEvents(of timeline: TimelineID) -> [EventSnapshot] {
        loadAll()
        return shards.indices.flatMap { shards[$0].removeEvents(of: timeline) }
    }

    /// Applies the facts of `records` (in log order) to the events, each shard on a
    /// thread of its own: each reads every record and applies the facts about its own
    /// events and the removals of timelines. `alongside` runs at the same time, on a
    /// thread of its own, with the same records.
    /// - Complexity: O(*r* · *s* / *p*) for *r* records, *s* shards and *p* processors.
    mutating func applyInParallel<T: Sendable>(
        _ records: UnsafeBufferPointer<Record>, alongside: @Sendable (UnsafeBufferPointer<Record>) -> T
    ) -> T {
        loadAll()
        let count = shards.count
        let state = Mutex<(shards: [Shard], alongside: T?)>((shards, nil))
        shards = []
        let shared = SharedBuffer(records)
        DispatchQueue.concurrentPerform(iterations: count + 1) { index in
            guard index < count else {
                let result = alongside(shared.buffer)
                state.withLock { $0.alongside = result }
                return
            }
            var shard = state.withLock { state in
                var shard = Shard()
                swap(&shard, &state.shards[index])
                return shard
            }
            for record in shared.buffer {
                for fact in record.facts {
                    var hash: UInt64 = 0
                    if let id = fact.event {
                        hash = Self.hash(of: id)
                        if Self.shard(ofHash: hash, count: count) != index { continue }
                    }
                    shard.fold(fact, hash: hash)
                }
            }
            state.withLock { state in swap(&shard, &state.shards[index]) }
        }
        return state.withLock { state in
            swap(&shards, &state.shards)
            return state.alongside!
        }
    }
}

extension EventTable.Shard {
    /// Applies a fact to this shard's events alone: a fact about one of them (`hash` is
    /// the hash of its id), or a timeline's removal (other timeline facts change no event).
    mutating func fold(_ fact: Fact, hash: UInt64) {
        if case .timelineRemoved(let timeline) = fact {
            _ = removeEvents(of: timeline)
        } else {
            _ = apply(fact, hash: hash)
        }
    }

    /// Updates the events for a fact about one of this shard's events (`hash` is the hash
    /// of its id), as ``Fact/eventEffect`` says; returns the event's snapshot before and
    /// after, or `nil` when no event changed.
    ///
    /// One lookup of the event id per fact: a snapshot is replaced in its slot.
    mutating func apply(_ fact: Fact, hash: UInt64) -> (old: EventSnapshot?, new: EventSnapshot?)? {
        switch fact.eventEffect {
        case .none, .removeEvents:
            return nil
        case .add(let event):
            let snapshot = EventSnapshot.make(id: event.id, timeline: event.timeline, title: event.title,
                                              dates: event.dates)
            let old = events.update(snapshot, hash: hash)
            if old?.timeline != event.timeline {
                if let old { noteDeparture(from: old.timeline) }
                members.add(SnapshotTable.key(for: hash), to: event.timeline)
            }
            return (old, snapshot)
        case .remove(let id):
            guard let slot = events.slot(of: id, hash: hash) else { return nil }
            let old = events.remove(at: slot)
            noteDeparture(from: old.timeline)
            return (old, nil)
        case .update(let id, let update):
            guard let slot = events.slot(of: id, hash: hash) else { return nil }
            let old = events[slot: slot]
            let new = old.updated(by: update)
            events.replace(at: slot, with: new)
            if case .timeline(let timeline) = update, old.timeline != timeline {
                noteDeparture(from: old.timeline)
                members.add(SnapshotTable.key(for: hash), to: timeline)
            }
            return (old, new)
        }
    }

    /// Notes that an event left a timeline.
    private mutating func noteDeparture(from timeline: TimelineID) {
        let events = self.events
        members.noteDeparture(from: timeline) { key in events.contains(key: key) { $0.timeline == timeline } }
    }

    /// Removes a timeline's events; returns their snapshots.
    /// - Complexity: O(*k*) for the *k* keys the timeline's list holds.
    mutating func removeEvents(of timeline: TimelineID) -> [EventSnapshot] {
        var removed: [EventSnapshot] = []
        for key in members.removeAll(of: timeline) {
            removed += events.removeAll(key: key) { $0.timeline == timeline }
        }
        return removed
    }
}
