import Testing
import TimelineCore
import TimelineTestSupport
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

/// `--upto`: a log read a chunk at a time stops after the last whole atomic batch that ends
/// at or before the position, whatever chunk the batch boundary falls in; the records after
/// it are still read and counted.
@Suite("Loading a log up to a position")
struct LoaderUpToTests {
    @Test(arguments: 0..<3)
    func theLoaderStopsAtTheLastWholeBatch(seed: UInt64) throws {
        var generator = FactGenerator(seed: seed)
        var records: [Record] = []
        var rng = SplitMix64(seed: seed)
        while records.count < 300 {
            // Batches of one to four facts, each record saying how many of its batch follow.
            let size = Int.random(in: 1...4, using: &rng)
            for index in 0..<size {
                records.append(Record(position: Int64(records.count + 1), facts: generator.nextFacts().prefix(1).map { $0 },
                                      batchRemainder: size - 1 - index))
            }
        }
        var bytes: [UInt8] = []
        let encoder = RecordEncoder(layout: .store)
        for record in records { encoder.encode(record, into: &bytes) }
        let now = date("2015-06-01T12:00Z").instant
        for upTo in [Int64(0), 1, 2, 3, 50, 151, 299, Int64(records.count), 1_000] {
            // The log read in three chunks that end outside batches, as the chunk reader gives them.
            let contents = try LogReader().read(bytes)
            let cuts = [0, contents.records.committedCount(upTo: 100), contents.records.committedCount(upTo: 200),
                        contents.records.count]
            var loader = TimelineProjection.Loader(views: allViews, now: now, validating: false, upTo: upTo)
            for (from, to) in zip(cuts, cuts.dropFirst()) {
                var part = contents
                part.records = Array(contents.records[from..<to])
                part.offsets = Array(contents.offsets[from..<to])
                part.lineNumbers = Array(contents.lineNumbers[from..<to])
                try loader.add(part)
            }
            #expect(loader.recordCount == records.count)
            let kept = records.committedCount(upTo: upTo)
            #expect(kept == 0 || records[kept - 1].batchRemainder == 0)
            let expected = TimelineProjection(records: Array(records[..<kept]), views: allViews, now: now)
            CheckpointTests.expectEqual(loader.finish(), expected)
        }
    }
}
