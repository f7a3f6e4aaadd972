import Testing
import TimelineCore
import TimelineTestSupport
@testable import TimelineProjections

/// The table of a shard's snapshots behaves as a dictionary keyed by id, through growth
/// and removals, including when many ids share a home slot.
@Suite("Snapshot table")
struct SnapshotTableTests {
    enum Hashing: String, CaseIterable {
        /// The table's own hash.
        case fnv
        /// Five hashes for all ids: long probe runs, so removals shift entries back.
        case clustered
    }

    static func hash(_ id: EventID, _ hashing: Hashing) -> UInt64 {
        switch hashing {
        case .fnv: EventTable.hash(of: id)
        case .clustered: UInt64(id.rawValue.utf8.reduce(0) { $0 + Int($1) } % 5)
        }
    }

    @Test(arguments: Hashing.allCases)
    func actsAsADictionaryKeyedByID(hashing: Hashing) {
        var rng = SplitMix64(seed: 0x7AB1E)
        var table = SnapshotTable()
        var model: [EventID: EventSnapshot] = [:]
        let ids = (0..<400).map { EventID("e\($0)") }
        for step in 0..<20_000 {
            let id = ids[rng.below(ids.count)]
            let hash = Self.hash(id, hashing)
            switch rng.below(10) {
            case 0..<5:
                let snapshot = EventSnapshot.make(id: id, timeline: "t", title: "\(step)", dates: .single(date("2019")))
                let old = table.update(snapshot, hash: hash)
                #expect(old === model[id])
                model[id] = snapshot
            case 5..<8:
                let slot = table.slot(of: id, hash: hash)
                #expect((slot == nil) == (model[id] == nil))
                if let slot {
                    #expect(table.remove(at: slot) === model[id])
                    model[id] = nil
                }
            default:
                if let slot = table.slot(of: id, hash: hash) {
                    let snapshot = table[slot: slot].with(title: "replaced \(step)")
                    table.replace(at: slot, with: snapshot)
                    model[id] = snapshot
                } else {
                    #expect(model[id] == nil)
                }
            }
            #expect(table.count == model.count)
            if step % 1000 == 0 || step == 19_999 {
                for id in ids { #expect(table.snapshot(id, hash: Self.hash(id, hashing)) === model[id]) }
                #expect(Set(table.snapshots.map(\.id)) == Set(model.keys))
            }
        }
    }

    /// A table sized up front holds its events, and finds no other.
    @Test func aTableSizedUpFrontHoldsItsEvents() {
        var table = SnapshotTable(minimumCapacity: 1000)
        for n in 0..<1000 {
            let id = EventID("e\(n)")
            table.update(EventSnapshot.make(id: id, timeline: "t", title: "T", dates: .single(date("2019"))),
                         hash: EventTable.hash(of: id))
        }
        #expect(table.count == 1000)
        #expect((0..<1000).allSatisfy { table.snapshot(EventID("e\($0)"), hash: EventTable.hash(of: EventID("e\($0)"))) != nil })
        #expect(table.snapshot("e1000", hash: EventTable.hash(of: "e1000")) == nil)
    }

    /// An event's key finds it without its id, among others that share the key: removing
    /// by key and predicate takes exactly the events that satisfy it, however the probe
    /// runs shift.
    @Test(arguments: Hashing.allCases)
    func keysFindEventsWithoutTheirIDs(hashing: Hashing) {
        var rng = SplitMix64(seed: 0x4E75)
        for _ in 0..<50 {
            var table = SnapshotTable()
            var model: [EventID: EventSnapshot] = [:]
            for n in 0..<200 {
                let id = EventID("e\(n)")
                let snapshot = EventSnapshot.make(id: id, timeline: rng.chance(50) ? "a" : "b", title: "T",
                                                  dates: .single(date("2019")))
                table.update(snapshot, hash: Self.hash(id, hashing))
                model[id] = snapshot
            }
            let id = EventID("e\(rng.below(200))")
            let key = SnapshotTable.key(for: Self.hash(id, hashing))
            let sharing = model.values.filter { SnapshotTable.key(for: Self.hash($0.id, hashing)) == key }
            #expect(sharing.contains { $0.id == id })
            #expect(table.contains(key: key) { $0.timeline == "a" } == sharing.contains { $0.timeline == "a" })
            let removed = table.removeAll(key: key) { $0.timeline == "a" }
            #expect(Set(removed.map(\.id)) == Set(sharing.filter { $0.timeline == "a" }.map(\.id)))
            for snapshot in removed { model[snapshot.id] = nil }
            #expect(table.count == model.count)
            for (id, snapshot) in model { #expect(table.snapshot(id, hash: Self.hash(id, hashing)) === snapshot) }
        }
    }
}
