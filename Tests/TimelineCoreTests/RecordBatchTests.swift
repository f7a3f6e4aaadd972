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

    /// A batch of one fact gives its record the decided array itself; an array with room
    /// reserved for more is copied, so that a log does not keep the room.
    @Test func aBatchOfOneKeepsAnExactArrayAndCopiesAReservedOne() throws {
        let fact = try storyFacts()[0]
        let decided = [fact]
        let record = try #require(Record.batch(of: decided, after: 0, options: AppendOptions()).first)
        #expect(record.facts == decided)
        #expect(Self.storage(of: record.facts) == Self.storage(of: decided))

        var reserved = [fact]
        reserved.reserveCapacity(64)
        let copied = try #require(Record.batch(of: reserved, after: 0, options: AppendOptions()).first)
        #expect(copied.facts == reserved)
        #expect(Self.storage(of: copied.facts) != Self.storage(of: reserved))
        #expect(copied.facts.capacity < 64)
    }

    private static func storage(of facts: [Fact]) -> UnsafePointer<Fact>? {
        facts.withUnsafeBufferPointer { $0.baseAddress }
    }
}
