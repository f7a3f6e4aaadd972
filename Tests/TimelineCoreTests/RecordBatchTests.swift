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
}
