import Synchronization
import Testing
@testable import TimelineCore

/// Both logs number an appended batch with ``Record/batch(of:after:options:)``.
@Suite struct RecordBatchTests {
    @Test func aBatchHasARecordPerFactWithItsTimeCommandAndRemainder() throws {
        let facts = Array(try storyFacts().prefix(3))
        let at = try recordedAt()
        let records = Record.batch(of: facts, after: 41, options: AppendOptions(commandID: "c", recordedAt: at))
        #expect(records == [
            Record(position: 42, facts: [facts[0]], recordedAt: at, commandID: "c", batchRemainder: 2),
            Record(position: 43, facts: [facts[1]], recordedAt: at, commandID: "c", batchRemainder: 1),
            Record(position: 44, facts: [facts[2]], recordedAt: at, commandID: "c", batchRemainder: 0),
        ])
        #expect(Record.batch(of: [facts[1]], after: 0, options: AppendOptions())
            == [Record(position: 1, facts: [facts[1]], recordedAt: nil, commandID: nil, batchRemainder: 0)])
    }

    /// An import's batch is made in parts at the same time: the same records, in order.
    @Test func aBigBatchIsNumberedInOrder() throws {
        let facts = (0..<50_000).map { Fact.eventRemoved(event: EventID("e\($0)")) }
        let at = try recordedAt()
        let records = Record.batch(of: facts, after: 7, options: AppendOptions(commandID: "c", recordedAt: at))
        #expect(records.count == facts.count)
        for (offset, record) in records.enumerated() {
            guard record != Record(position: Int64(8 + offset), facts: [facts[offset]], recordedAt: at, commandID: "c",
                                   batchRemainder: facts.count - offset - 1) else { continue }
            Issue.record("record \(offset) is \(record)")
            break
        }
    }

    /// A log checks each record as it is made: every record is seen once, with its index.
    @Test func eachRecordIsInspectedOnceWithItsIndex() throws {
        for count in [1, 3, 50_000] {
            let facts = (0..<count).map { Fact.eventRemoved(event: EventID("e\($0)")) }
            let seen = Mutex<[Int: Record]>([:])
            let records = Record.batch(of: facts, after: 7, options: AppendOptions()) { index, record in
                seen.withLock { seen in
                    #expect(seen.updateValue(record, forKey: index) == nil, "record \(index) seen twice")
                }
            }
            let inspected = seen.withLock { $0 }
            #expect(inspected.count == count)
            #expect(records.indices.allSatisfy { inspected[$0] == records[$0] }, "\(count) facts")
        }
    }
}
