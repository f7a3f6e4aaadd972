import Testing
import TimelineTestSupport
@testable import TimelineCore

/// The kinds of event log that must keep the ``EventLog`` contract.
enum LogKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case file

    var testDescription: String { rawValue }
}

/// A log of one kind under test, which can be closed and opened again.
///
/// Reopening a file log opens its file anew; reopening an in-memory log builds a new one
/// from the records of the old, as a front end that persists elsewhere would.
final class LogFixture {
    let kind: LogKind
    let path: String
    private(set) var log: any EventLog

    init(kind: LogKind, directory: String) throws {
        self.kind = kind
        path = directory + "/log.jsonl"
        log = switch kind {
        case .inMemory: InMemoryEventLog()
        case .file: try FileEventLog(path: path)
        }
    }

    func reopen() throws {
        switch kind {
        case .inMemory:
            log = InMemoryEventLog(records: try log.records(after: 0))
        case .file:
            (log as? FileEventLog)?.close()
            log = try FileEventLog(path: path)
        }
    }

    func close() {
        (log as? FileEventLog)?.close()
    }
}

/// Runs `body` with a fresh log of `kind`, closed and removed afterwards.
func withLog(_ kind: LogKind, _ body: (LogFixture) throws -> Void) throws {
    try withTemporaryDirectory { directory in
        let fixture = try LogFixture(kind: kind, directory: directory)
        defer { fixture.close() }
        try body(fixture)
    }
}

/// The same checks for every kind of log: positions, batches, conflicts, resends,
/// catch-up reading, and many writers at once.
@Suite struct EventLogContractTests {
    @Test(arguments: LogKind.allCases)
    func appendsReturnContiguousPositionsAcrossBatchesAndReopening(kind: LogKind) throws {
        try withLog(kind) { fixture in
            let facts = try storyFacts()
            let at = try recordedAt()
            #expect(fixture.log.position == 0)
            let first = try fixture.log.append(Array(facts[0..<3]), options: AppendOptions(commandID: "one", recordedAt: at))
            #expect(first == AppendResult(records: batch(Array(facts[0..<3]), after: 0, recordedAt: at, commandID: "one"),
                                          wasDuplicate: false))
            let second = try fixture.log.append([facts[3]], options: AppendOptions())
            #expect(second.records == [Record(position: 4, fact: facts[3])])
            #expect(fixture.log.position == 4)
            try fixture.reopen()
            #expect(fixture.log.position == 4)
            let third = try fixture.log.append(Array(facts[4...]), options: AppendOptions())
            #expect(third.records.map(\.position) == Array(5...Int64(facts.count)))
            #expect(third.records.map(\.batchRemainder) == Array((0..<(facts.count - 4)).reversed()))
            #expect(try fixture.log.records(after: 0) == first.records + second.records + third.records)
            try fixture.reopen()
            #expect(try fixture.log.records(after: 0) == first.records + second.records + third.records)
        }
    }

    @Test(arguments: LogKind.allCases)
    func aConflictAppendsNothing(kind: LogKind) throws {
        try withLog(kind) { fixture in
            let facts = try storyFacts()
            #expect(throws: EventLogError.conflict(expected: 1, actual: 0)) {
                try fixture.log.append([facts[0]], options: AppendOptions(expectedPosition: 1))
            }
            #expect(fixture.log.position == 0)
            let first = try fixture.log.append(Array(facts[0..<2]), options: AppendOptions(expectedPosition: 0))
            for expected: Int64 in [0, 1, 3, -1, .max] {
                #expect(throws: EventLogError.conflict(expected: expected, actual: 2)) {
                    try fixture.log.append(Array(facts[2..<4]), options: AppendOptions(expectedPosition: expected,
                                                                                       commandID: "c\(expected)"))
                }
            }
            #expect(fixture.log.position == 2)
            #expect(try fixture.log.records(after: 0) == first.records)
            // A refused command was not recorded: its id is free.
            #expect(try fixture.log.records(forCommandID: "c1") == nil)
            try fixture.reopen()
            #expect(throws: EventLogError.conflict(expected: 1, actual: 2)) {
                try fixture.log.append([facts[2]], options: AppendOptions(expectedPosition: 1))
            }
            #expect(try fixture.log.append([facts[2]], options: AppendOptions(expectedPosition: 2)).records[0].position == 3)
        }
    }

    @Test(arguments: LogKind.allCases)
    func aResentCommandAppendsOnce(kind: LogKind) throws {
        try withLog(kind) { fixture in
            let facts = try storyFacts()
            let at = try recordedAt()
            _ = try fixture.log.append([facts[0]], options: AppendOptions(commandID: "a"))
            let original = try fixture.log.append(Array(facts[1..<3]), options: AppendOptions(commandID: "b", recordedAt: at))
            let resent = try fixture.log.append(Array(facts[1..<3]), options: AppendOptions(commandID: "b", recordedAt: at))
            #expect(resent == AppendResult(records: original.records, wasDuplicate: true))
            #expect(fixture.log.position == 3)
            // The id decides: other facts, a stale expected position, an empty batch all
            // get the first answer again.
            #expect(try fixture.log.append([facts[5]], options: AppendOptions(commandID: "b")).records == original.records)
            #expect(try fixture.log.append([], options: AppendOptions(expectedPosition: 0, commandID: "b"))
                == AppendResult(records: original.records, wasDuplicate: true))
            #expect(try fixture.log.records(forCommandID: "b") == original.records)
            #expect(try fixture.log.records(forCommandID: "a")?.map(\.position) == [1])
            #expect(try fixture.log.records(forCommandID: "c") == nil)
            try fixture.reopen()
            #expect(try fixture.log.append(Array(facts[1..<3]), options: AppendOptions(commandID: "b"))
                == AppendResult(records: original.records, wasDuplicate: true))
            #expect(fixture.log.position == 3)
            let other = try fixture.log.append([facts[3]], options: AppendOptions(commandID: "c"))
            #expect(!other.wasDuplicate)
            #expect(other.records.map(\.position) == [4])
            // Without an id, the same facts are appended again.
            #expect(try fixture.log.append([facts[3]], options: AppendOptions()).records.map(\.position) == [5])
        }
    }

    @Test(arguments: LogKind.allCases)
    func anEmptyBatchIsRefused(kind: LogKind) throws {
        try withLog(kind) { fixture in
            #expect(throws: EventLogError.emptyBatch) { try fixture.log.append([], options: AppendOptions()) }
            #expect(throws: EventLogError.emptyBatch) {
                try fixture.log.append([], options: AppendOptions(expectedPosition: 0, commandID: "new"))
            }
            #expect(fixture.log.position == 0)
            let recorded = try fixture.log.records(forCommandID: "new")
            #expect(recorded == nil)
        }
    }

    @Test(arguments: LogKind.allCases)
    func recordsAfterEveryPosition(kind: LogKind) throws {
        try withLog(kind) { fixture in
            let facts = try storyFacts()
            var written: [Record] = []
            for chunk in [0..<2, 2..<3, 3..<7, 7..<10] {
                written += try fixture.log.append(Array(facts[chunk]), options: AppendOptions()).records
            }
            for _ in 0..<2 {
                for position in -3...(written.count + 3) {
                    #expect(try fixture.log.records(after: Int64(position)) == Array(written.dropFirst(max(0, position))))
                }
                #expect(try fixture.log.records(after: .min) == written)
                #expect(try fixture.log.records(after: .max).isEmpty)
                try fixture.reopen()
            }
        }
    }

    /// Many writers at once: every batch lands whole, positions run 1…n with no gap or
    /// repeat, and each writer's answer is what the log holds at those positions.
    @Test(arguments: LogKind.allCases)
    func concurrentAppendsNeverInterleave(kind: LogKind) async throws {
        try await withTemporaryDirectory { directory in
            let fixture = try LogFixture(kind: kind, directory: directory)
            defer { fixture.close() }
            let log = fixture.log
            let writers = 4
            let batchesPerWriter = 8
            let results = try await withThrowingTaskGroup(of: [AppendResult].self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var results: [AppendResult] = []
                        for index in 0..<batchesPerWriter {
                            let facts = (0...(index % 3)).map { part in
                                Fact.eventRemoved(event: EventID("w\(writer)-b\(index)-\(part)"))
                            }
                            results.append(try log.append(facts, options: AppendOptions(commandID: "w\(writer)-b\(index)")))
                        }
                        return results
                    }
                }
                var all: [AppendResult] = []
                for try await results in group { all += results }
                return all
            }
            let stored = try log.records(after: 0)
            #expect(stored.map(\.position) == Array(1...Int64(stored.count)))
            #expect(stored.count == results.reduce(0) { $0 + $1.records.count })
            for result in results {
                let first = Int(result.records[0].position) - 1
                #expect(Array(stored[first..<(first + result.records.count)]) == result.records)
                #expect(!result.wasDuplicate)
            }
            try fixture.reopen()
            #expect(try fixture.log.records(after: 0) == stored)
        }
    }
}

/// What only the in-memory log has: starting from records.
@Suite struct InMemoryEventLogTests {
    @Test func startsFromRecordsWithTheirCommands() throws {
        let facts = try storyFacts()
        let records = batch(Array(facts[0..<2]), after: 0, commandID: "x") + [Record(position: 3, fact: facts[2])]
        let log = InMemoryEventLog(records: records)
        #expect(log.position == 3)
        #expect(try log.records(after: 1) == Array(records[1...]))
        #expect(try log.records(forCommandID: "x") == Array(records[0..<2]))
        #expect(try log.append([facts[5]], options: AppendOptions(commandID: "x"))
            == AppendResult(records: Array(records[0..<2]), wasDuplicate: true))
        #expect(try log.append([facts[3]], options: AppendOptions(expectedPosition: 3)).records
            == [Record(position: 4, fact: facts[3])])
    }

    /// Reading from any position, and a command's records, gives the same records
    /// whatever batches they were appended in, the first records' included.
    @Test func readsAcrossTheBatchesItWasGiven() throws {
        let facts = try storyFacts()
        let initial = batch(Array(facts[0..<3]), after: 0, commandID: "first")
        let log = InMemoryEventLog(records: initial)
        var all = initial
        var rng = SplitMix64(seed: 7)
        for k in 0..<40 {
            let size = 1 + rng.below(3)
            let appended = try log.append(Array(facts[3..<(3 + size)]), options: AppendOptions(commandID: "c\(k)")).records
            #expect(appended == batch(Array(facts[3..<(3 + size)]), after: Int64(all.count), commandID: "c\(k)"))
            all += appended
        }
        #expect(log.position == Int64(all.count))
        for position in 0...(all.count + 1) {
            #expect(try log.records(after: Int64(position)) == Array(all[min(position, all.count)...]))
        }
        #expect(try log.records(forCommandID: "first") == initial)
        for k in [0, 17, 39] {
            #expect(try log.records(forCommandID: "c\(k)") == all.filter { $0.commandID == "c\(k)" })
        }
    }
}
