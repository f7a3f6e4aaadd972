import Testing
import TimelineCore

/// A log under test that can be closed and opened again from its storage.
public protocol EventLogFixture: AnyObject {
    /// The log under test.
    var log: any EventLog { get }
    /// Closes the log and opens it anew from where it keeps its records (a file, a
    /// database), or rebuilds it from its records (a log kept in memory).
    func reopen() throws
}

/// The checks every kind of ``EventLog`` must pass: positions, batches, conflicts, resends,
/// catch-up reading, and many writers at once. Each kind's test target runs them on a
/// fresh log of its kind.
public enum EventLogContract {
    /// Several batches in one hold of the lock (a replica pushing its submissions): each
    /// decided with the ones before it seen, a command id already there (or planned) skipped,
    /// a batch without facts skipped, stopping at `nil`, all durable and read back after
    /// reopening as if appended one by one.
    public static func severalBatchesAppendInOneHold(_ fixture: some EventLogFixture) throws {
        let date = try DateValue(parsing: "2000")
        let plans: [PlannedBatch] = [
            PlannedBatch(facts: [.timelineCreated(timeline: "t", name: "T")], options: AppendOptions(commandID: "a")),
            PlannedBatch(facts: [.eventAdded(event: "e", timeline: "t", title: "E", date: date),
                                 .rangeSet(event: "e", start: date, end: nil)],
                         options: AppendOptions(commandID: "b", submission: "n")),
            PlannedBatch(facts: [.eventRemoved(event: "e")], options: AppendOptions(commandID: "a")),  // a again: skipped
            PlannedBatch(facts: [], options: AppendOptions(commandID: "c")),  // nothing to append
            PlannedBatch(facts: [.eventRetitled(event: "e", title: "F")], options: AppendOptions(commandID: "d", undoes: 2)),
        ]
        let log = try #require(fixture.log as? any BatchAppending, "\(type(of: fixture.log)) appends several batches at once")
        var seen: [Int64] = []
        let appended = try log.appendEach(after: 0, count: plans.count, catchingUp: { (records: [Record]) throws(Never) in
            seen += records.map(\.position)
        }, deciding: { (index: Int) throws(Never) -> PlannedBatch? in plans[index] })
        #expect(appended.map(\.position) == [1, 2, 3, 4])
        #expect(seen == [1, 2, 3, 4], "each planned batch is seen before the next is decided")
        #expect(log.position == 4)
        let records = try log.records(after: 0)
        #expect(records == appended)
        #expect(records.map(\.commandID) == ["a", "b", "b", "d"])
        #expect(records.map(\.batchRemainder) == [0, 1, 0, 0])
        #expect(records[1].submission == "n")
        #expect(records.map(\.undoes) == [nil, nil, nil, 2], "a batch's undo is kept with each of its records")
        #expect(try log.records(forCommandID: "b")?.map(\.position) == [2, 3])
        // A command id already in the log is skipped; stopping early (`nil`) appends what
        // was planned before.
        let more = try log.appendEach(after: 4, count: 3, catchingUp: { (_: [Record]) throws(Never) in },
                                      deciding: { (index: Int) throws(Never) -> PlannedBatch? in
            switch index {
            case 0: PlannedBatch(facts: [.eventRemoved(event: "e")], options: AppendOptions(commandID: "d"))
            case 1: PlannedBatch(facts: [.eventRemoved(event: "e")], options: AppendOptions(commandID: "e"))
            default: nil
            }
        })
        #expect(more.map(\.position) == [5])
        try fixture.reopen()
        #expect(try fixture.log.records(after: 0).map(\.commandID) == ["a", "b", "b", "d", "e"])
        #expect(try fixture.log.records(forCommandID: "d")?.first?.position == 4)
        #expect(try fixture.log.records(forCommandID: "e")?.first?.position == 5)
    }

    /// Positions run 1, 2, 3, … across batches and reopening; each batch's records count down `more`.
    public static func appendsReturnContiguousPositionsAcrossBatchesAndReopening(_ fixture: some EventLogFixture) throws {
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

    /// An append at another position than expected throws a conflict and appends nothing.
    public static func aConflictAppendsNothing(_ fixture: some EventLogFixture) throws {
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

    /// A command id already in the log gets the first answer again, whatever the facts or the expected position.
    public static func aResentCommandAppendsOnce(_ fixture: some EventLogFixture) throws {
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

    /// A resume point describes its log at its position and no other: it fits the log
    /// after reopening and after later appends, and ``EventLog/records(after:)`` of its
    /// position reads on from it; a point inside a batch or beyond the end is `nil`; the
    /// same records in `other` (another log of the same kind), a point moved to another
    /// position, cut short, or made by another kind of log do not fit. A log that never
    /// resumes gives no point at all and refuses every one.
    public static func resumePointsDescribeTheirLogAndNoOther(
        _ fixture: some EventLogFixture, other: some EventLogFixture
    ) throws {
        let facts = try storyFacts()
        for target in [fixture.log, other.log] {
            _ = try target.append(Array(facts[0..<3]), options: AppendOptions(commandID: "three"))
            _ = try target.append([facts[3]], options: AppendOptions())
        }
        let foreign = LogResumePoint(position: 3, bytes: [0xFF, 0, 0, 0])
        guard let point = try fixture.log.resumePoint(at: 3) else {
            for position: Int64 in 0...4 { #expect(try fixture.log.resumePoint(at: position) == nil) }
            #expect(try fixture.log.resumeProblem(at: foreign) != nil)
            return
        }
        #expect(point.position == 3)
        #expect(try fixture.log.resumePoint(at: 0)?.position == 0)
        #expect(try fixture.log.resumePoint(at: 1) == nil, "inside a batch")
        #expect(try fixture.log.resumePoint(at: 5) == nil, "beyond the end")
        #expect(try fixture.log.resumeProblem(at: point) == nil)
        try fixture.reopen()
        #expect(try fixture.log.resumeProblem(at: point) == nil)
        _ = try fixture.log.append(Array(facts[4...]), options: AppendOptions())
        #expect(try fixture.log.resumeProblem(at: point) == nil)
        #expect(try fixture.log.records(after: point.position).first?.position == 4)
        #expect(try fixture.log.resumePoint(at: 3) == point, "the same position, the same point")
        #expect(try other.log.resumeProblem(at: point) != nil, "the same records in another log")
        #expect(try fixture.log.resumeProblem(at: LogResumePoint(position: 4, bytes: point.bytes)) != nil)
        #expect(try fixture.log.resumeProblem(at: LogResumePoint(position: 3, bytes: point.bytes.dropLast())) != nil)
        #expect(try fixture.log.resumeProblem(at: foreign) != nil)
    }

    /// An empty batch is refused and records nothing, not even its command id.
    public static func anEmptyBatchIsRefused(_ fixture: some EventLogFixture) throws {
        #expect(throws: EventLogError.emptyBatch) { try fixture.log.append([], options: AppendOptions()) }
        #expect(throws: EventLogError.emptyBatch) {
            try fixture.log.append([], options: AppendOptions(expectedPosition: 0, commandID: "new"))
        }
        #expect(fixture.log.position == 0)
        let recorded = try fixture.log.records(forCommandID: "new")
        #expect(recorded == nil)
    }

    /// Catch-up reading from every position, before and beyond the ends, gives the records after it.
    public static func recordsAfterEveryPosition(_ fixture: some EventLogFixture) throws {
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

    /// Many writers at once: every batch lands whole, positions run 1…n with no gap or
    /// repeat, and each writer's answer is what the log holds at those positions.
    public static func concurrentAppendsNeverInterleave(_ fixture: some EventLogFixture) async throws {
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

extension EventLogContract {
    /// The facts of a small life story that the decider accepts in this order.
    public static func storyFacts() throws -> [Fact] {
        func day(_ text: String) throws -> DateValue { try DateValue(parsing: text) }
        return [
            .timelineCreated(timeline: "life", name: "My life"),
            .eventAdded(event: "born", timeline: "life", title: "Born", date: try day("1990-04-12")),
            .eventAdded(event: "school", timeline: "life", title: "School \"Ünter den Linden\" 🏫", date: try day("1996")),
            .rangeSet(event: "school", start: try day("1996-09"), end: nil),
            .timelineCreated(timeline: "work", name: "Work"),
            .eventAdded(event: "job", timeline: "work", title: "First job", date: try day("2012-05-02T09:00+02:00")),
            .rangeClosed(event: "school", end: try day("2008-07")),
            .eventRetitled(event: "born", title: "Born in Berlin"),
            .eventMoved(event: "job", timeline: "life"),
            .rangeReopened(event: "school"),
        ]
    }

    /// A timestamp for a record's `at`.
    public static func recordedAt() throws -> DateValue {
        try DateValue(parsing: "2026-11-29T12:00:00Z")
    }

    /// The records an append of `facts` at `position` writes: one batch, `more` counting down.
    public static func batch(_ facts: [Fact], after position: Int64, recordedAt: DateValue? = nil,
                             commandID: String? = nil) -> [Record] {
        facts.enumerated().map { offset, fact in
            Record(position: position + Int64(offset) + 1, fact: fact, recordedAt: recordedAt, commandID: commandID,
                   batchRemainder: facts.count - offset - 1)
        }
    }
}
