import EventLogContract
import Foundation
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
final class LogFixture: EventLogFixture {
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

/// The same checks for every kind of log (``EventLogContract``): positions, batches,
/// conflicts, resends, catch-up reading, and many writers at once.
@Suite struct EventLogContractTests {
    @Test(arguments: LogKind.allCases)
    func appendsReturnContiguousPositionsAcrossBatchesAndReopening(kind: LogKind) throws {
        try withLog(kind) { try EventLogContract.appendsReturnContiguousPositionsAcrossBatchesAndReopening($0) }
    }

    @Test(arguments: LogKind.allCases)
    func severalBatchesAppendInOneHold(kind: LogKind) throws {
        try withLog(kind) { try EventLogContract.severalBatchesAppendInOneHold($0) }
    }

    @Test(arguments: LogKind.allCases)
    func aConflictAppendsNothing(kind: LogKind) throws {
        try withLog(kind) { try EventLogContract.aConflictAppendsNothing($0) }
    }

    @Test(arguments: LogKind.allCases)
    func aResentCommandAppendsOnce(kind: LogKind) throws {
        try withLog(kind) { try EventLogContract.aResentCommandAppendsOnce($0) }
    }

    @Test(arguments: LogKind.allCases)
    func anEmptyBatchIsRefused(kind: LogKind) throws {
        try withLog(kind) { try EventLogContract.anEmptyBatchIsRefused($0) }
    }

    @Test(arguments: LogKind.allCases)
    func recordsAfterEveryPosition(kind: LogKind) throws {
        try withLog(kind) { try EventLogContract.recordsAfterEveryPosition($0) }
    }

    @Test(arguments: LogKind.allCases)
    func resumePointsDescribeTheirLogAndNoOther(kind: LogKind) throws {
        try withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory + "/other", withIntermediateDirectories: false)
            let fixture = try LogFixture(kind: kind, directory: directory)
            let other = try LogFixture(kind: kind, directory: directory + "/other")
            defer {
                fixture.close()
                other.close()
            }
            try EventLogContract.resumePointsDescribeTheirLogAndNoOther(fixture, other: other)
        }
    }

    @Test(arguments: LogKind.allCases)
    func concurrentAppendsNeverInterleave(kind: LogKind) async throws {
        try await withTemporaryDirectory { directory in
            let fixture = try LogFixture(kind: kind, directory: directory)
            defer { fixture.close() }
            try await EventLogContract.concurrentAppendsNeverInterleave(fixture)
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
