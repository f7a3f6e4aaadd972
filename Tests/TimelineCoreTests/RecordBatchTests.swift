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

    /// A result described by its batch (an import's, by a file log) reads as the records
    /// the batch has: counted and placed without them, equal to and hashed as the result
    /// made with them, the same records from every copy and thread.
    @Test func aDescribedResultIsTheBatchsRecords() async throws {
        let at = try recordedAt()
        for count in [0, 1, 3, 50_000] {
            let facts = (0..<count).map { Fact.eventRemoved(event: EventID("e\($0)")) }
            let batch = RecordBatch(facts: facts, after: 7, options: AppendOptions(commandID: "c", recordedAt: at))
            let records = Record.batch(of: facts, after: 7, options: batch.options)
            let described = AppendResult(appended: batch)
            let made = AppendResult(records: records, wasDuplicate: false)
            #expect(described.count == count)
            #expect(described.positions == made.positions)
            #expect(described.positions == (count == 0 ? nil : 8...Int64(7 + count)))
            let copies = Array(repeating: described, count: 4)
            let read = await withTaskGroup(of: [Record].self) { group in
                for copy in copies { group.addTask { copy.records } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(read.allSatisfy { $0 == records }, "\(count) facts")
            #expect(described == made)
            #expect(described.hashValue == made.hashValue)
            #expect(described != AppendResult(records: records, wasDuplicate: true))
            var changed = described
            changed.records = Array(records.dropLast())
            #expect(changed.count == max(0, count - 1))
            #expect(described.records == records)
        }
    }
}
