import Testing
import TimelineCore
@testable import TimelineProjections

/// A long log is folded into the events shard by shard, one thread per shard; a short one
/// fact by fact. Both must give the same projection.
@Suite("Folding a log shard by shard")
struct ShardedFoldTests {
    @Test(arguments: 0..<4)
    func aLogFoldedShardByShardEqualsTheSameLogFoldedFactByFact(seed: UInt64) {
        var generator = FactGenerator(seed: seed)
        let count = 2 * TimelineProjection.Loader.parallelFoldMinimum
        let records = (1...count).map { Record(position: Int64($0), facts: generator.nextFacts()) }
        let now = date("2015-06-01T12:00Z").instant
        #expect(records.contains { $0.facts.contains { if case .timelineRemoved = $0 { true } else { false } } })

        let sharded = TimelineProjection(records: records, views: allViews, now: now)
        var loader = TimelineProjection.Loader(views: allViews, now: now, validating: false)
        for start in stride(from: 0, to: count, by: 100) {
            loader.add(records[start..<min(start + 100, count)])
        }
        let oneByOne = loader.finish()

        #expect(sharded.events.shards.count > 1)
        #expect(sharded.eventCount > 0)
        CheckpointTests.expectEqual(sharded, oneByOne)
        func ids(_ projection: TimelineProjection) -> Set<EventID> {
            var ids = Set<EventID>()
            projection.forEachEventID { ids.insert($0) }
            return ids
        }
        #expect(ids(sharded) == ids(oneByOne))
        // Each event is in the shard its id names.
        for (index, shard) in sharded.events.shards.enumerated() {
            for id in shard.events.snapshots.map(\.id) {
                #expect(EventTable.shard(of: id, count: sharded.events.shards.count) == index)
            }
        }
    }
}
