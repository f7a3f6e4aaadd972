import Testing
import Foundation
@testable import TimelineCore

/// The durable log on disk: what the bytes hold, the writer's lock, healing a torn
/// tail on open, refusing a corrupt line, catch-up reading.
@Suite struct FileEventLogTests {
    @Test func positionsRunOnAcrossBatchesAndReopening() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let log = try FileEventLog(path: path)
            #expect(log.position == 0)
            #expect(log.tornTail == nil)
            let first = try log.append(Array(facts[0..<3]), options: AppendOptions())
            #expect(first.records.map(\.position) == [1, 2, 3])
            #expect(first.records.map(\.batchRemainder) == [2, 1, 0])
            #expect(!first.wasDuplicate)
            let second = try log.append([facts[3]], options: AppendOptions())
            #expect(second.records.map(\.position) == [4])
            #expect(log.position == 4)
            log.close()

            let reopened = try FileEventLog(path: path)
            defer { reopened.close() }
            #expect(reopened.position == 4)
            #expect(reopened.tornTail == nil)
            let third = try reopened.append(Array(facts[4..<6]), options: AppendOptions(expectedPosition: 4))
            #expect(third.records.map(\.position) == [5, 6])
            #expect(try reopened.records(after: 0) == first.records + second.records + third.records)
        }
    }

    /// A log whose file is still empty is removed when closed so (a command that created
    /// it failed); one holding a record is only closed, and so is one whose path names
    /// another file by then.
    @Test func closingRemovesAnEmptyFileOnly() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let empty = try FileEventLog(path: path)
            let alsoOpen = try FileEventLog(path: path)
            #expect(SystemFile.exists(path))
            #expect(empty.closeRemovingIfEmpty())
            #expect(!SystemFile.exists(path))
            #expect(throws: EventLogError.closed(path: path)) { try empty.append(try storyFacts(), options: AppendOptions()) }
            // Another log open on the removed file appends nothing to it: its append fails
            // naming the missing file (an append to the removed file would be lost).
            #expect(throws: EventLogError.io(path: path, operation: "open", code: ENOENT)) {
                try alsoOpen.append([.timelineCreated(timeline: "t", name: "T")], options: AppendOptions())
            }
            alsoOpen.close()
            #expect(!SystemFile.exists(path))

            let written = try FileEventLog(path: path)
            _ = try written.append([.timelineCreated(timeline: "t", name: "T")], options: AppendOptions())
            #expect(!written.closeRemovingIfEmpty())
            #expect(try FileEventLog.read(path: path).records.count == 1)

            let other = directory + "/other.jsonl"
            let replaced = try FileEventLog(path: other)
            #expect(rename(path, other) == 0)  // the file with a record, over the empty one's path
            #expect(!replaced.closeRemovingIfEmpty())
            #expect(try FileEventLog.read(path: other).records.count == 1)
        }
    }

    /// A batch as big as an import's, whose lines are encoded in parts at the same time
    /// and written a group of parts at a time: the file holds each record's line in order,
    /// with nothing between the parts or the groups, and the log finds every record by its
    /// line (reading after any position, reopened or not).
    @Test func aBigBatchIsWrittenLineByLineInOrder() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let count = FileEventLog.recordsPerWrittenGroup + FileEventLog.recordsPerEncodedPart + 17
            var facts: [Fact] = [.timelineCreated(timeline: "t", name: "T")]
            for number in 1..<count {
                facts.append(.eventAdded(event: EventID("e\(number)"), timeline: "t",
                                         title: String(repeating: "é", count: number % 40), date: try day("2020-01-02")))
            }
            let log = try FileEventLog(path: path)
            let before = try log.append([.timelineCreated(timeline: "before", name: "B")], options: AppendOptions()).records
            let at = try recordedAt()
            let records = try log.append(facts, options: AppendOptions(commandID: "import", recordedAt: at)).records
            #expect(records == Record.batch(of: facts, after: 1, options: AppendOptions(commandID: "import", recordedAt: at)))
            var expected: [UInt8] = []
            for record in try log.records(after: 0) { RecordEncoder().encode(record, into: &expected) }
            #expect(fileBytes(path) == expected)
            for position in [2, Int64(FileEventLog.recordsPerWrittenGroup) + 1, Int64(count - 1)] {
                #expect(try log.records(after: position) == Array((before + records).drop { $0.position <= position }))
            }
            log.close()
            let reopened = try FileEventLog(path: path)
            defer { reopened.close() }
            #expect(reopened.position == Int64(count + 1))
            #expect(try reopened.records(after: Int64(FileEventLog.recordsPerEncodedPart + 1))
                == Array(records.dropFirst(FileEventLog.recordsPerEncodedPart)))
            #expect(try reopened.records(after: Int64(FileEventLog.recordsPerWrittenGroup + 1))
                == Array(records.dropFirst(FileEventLog.recordsPerWrittenGroup)))
        }
    }

    @Test func theBytesOnDiskAreTheStoresLinesAndDecodeToTheSameRecords() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let at = try recordedAt()
            let log = try FileEventLog(path: path)
            defer { log.close() }
            var written: [Record] = []
            written += try log.append(Array(facts[0..<4]), options: AppendOptions(commandID: "c1", recordedAt: at)).records
            written += try log.append([facts[4]], options: AppendOptions()).records
            written += try log.append(Array(facts[5...]), options: AppendOptions(commandID: "c3")).records
            let bytes = fileBytes(path)
            #expect(bytes == storeBytes(written))
            #expect(try LogReader().read(bytes).records == written)
            #expect(try FileEventLog.read(path: path).records == written)
            #expect(try LogValidator.validate(LogReader().read(bytes)).events.count == 3)
        }
    }

    @Test func aConflictAppendsNothing() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let log = try FileEventLog(path: path)
            defer { log.close() }
            _ = try log.append(Array(facts[0..<2]), options: AppendOptions())
            let before = fileBytes(path)
            for expected: Int64 in [0, 1, 3, 100] {
                #expect(throws: EventLogError.conflict(expected: expected, actual: 2)) {
                    try log.append([facts[2]], options: AppendOptions(expectedPosition: expected))
                }
            }
            #expect(fileBytes(path) == before)
            #expect(log.position == 2)
            #expect(try log.append([facts[2]], options: AppendOptions(expectedPosition: 2)).records[0].position == 3)
            #expect("\(EventLogError.conflict(expected: 1, actual: 2))".contains("expected the log at position 1"))
        }
    }

    @Test func aResentCommandAppendsNothingAlsoAfterReopening() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let at = try recordedAt()
            let log = try FileEventLog(path: path)
            _ = try log.append([facts[0]], options: AppendOptions(commandID: "create"))
            let original = try log.append(Array(facts[1..<4]), options: AppendOptions(commandID: "add", recordedAt: at))
            let before = fileBytes(path)
            let resent = try log.append(Array(facts[1..<4]), options: AppendOptions(commandID: "add", recordedAt: at))
            #expect(resent.wasDuplicate)
            #expect(resent.records == original.records)
            // The id decides, not the facts or the expected position.
            let stale = try log.append([facts[9]], options: AppendOptions(expectedPosition: 0, commandID: "add"))
            #expect(stale == AppendResult(records: original.records, wasDuplicate: true))
            #expect(try log.records(forCommandID: "add") == original.records)
            #expect(try log.records(forCommandID: "nobody") == nil)
            #expect(fileBytes(path) == before)
            log.close()

            let reopened = try FileEventLog(path: path)
            defer { reopened.close() }
            let again = try reopened.append(Array(facts[1..<4]), options: AppendOptions(commandID: "add"))
            #expect(again == AppendResult(records: original.records, wasDuplicate: true))
            #expect(try reopened.records(forCommandID: "create")?.map(\.position) == [1])
            #expect(fileBytes(path) == before)
            #expect(reopened.position == 4)
        }
    }

    @Test func anEmptyBatchIsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let log = try FileEventLog(path: path)
            defer { log.close() }
            #expect(throws: EventLogError.emptyBatch) { try log.append([], options: AppendOptions()) }
            #expect(throws: EventLogError.emptyBatch) { try log.append([], options: AppendOptions(commandID: "new")) }
            #expect(fileBytes(path).isEmpty)
            #expect(log.position == 0)
        }
    }

    // MARK: The writer's lock

    @Test func twoWritersAppendInTurnEachAfterTheOthersRecords() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let first = try FileEventLog(path: path)
            _ = try first.append([facts[0]], options: AppendOptions())
            let second = try FileEventLog(path: path)
            #expect(second.position == 1)
            _ = try second.append([facts[1]], options: AppendOptions(commandID: "from-second"))
            // The first writer catches up under the lock: it is handed the second's record
            // before it decides, and appends after it.
            var caughtUp: [Int64] = []
            let result = try first.append(after: 1, options: AppendOptions(), catchingUp: { (records) throws(Never) in
                caughtUp += records.map(\.position)
            }, deciding: { () throws(Never) in [facts[2]] })
            #expect(caughtUp == [2])
            #expect(result.records.map(\.position) == [3])
            // Command ids and expected positions mean the same across writers.
            #expect(try first.append([facts[1]], options: AppendOptions(commandID: "from-second")).wasDuplicate)
            #expect(throws: EventLogError.conflict(expected: 2, actual: 3)) {
                try second.append([facts[3]], options: AppendOptions(expectedPosition: 2))
            }
            #expect(try second.records(after: 0).map(\.position) == [1, 2, 3])
            second.close()
            first.close()

            #expect(throws: EventLogError.closed(path: path)) { try first.append([facts[2]], options: AppendOptions()) }
            #expect(throws: EventLogError.closed(path: path)) { try first.records(after: 0) }
            #expect(throws: EventLogError.closed(path: path)) { try first.records(forCommandID: "x") }
            let third = try FileEventLog(path: path)
            defer { third.close() }
            #expect(third.position == 3)
            #expect(try third.append([facts[3]], options: AppendOptions()).records[0].position == 4)
        }
    }

    @Test func aWriterThatFailsToOpenReleasesTheLock() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let lines = singles(try storyFacts()).map { RecordEncoder().encode($0) }
            var bad = lines[1]
            bad[12] ^= 0x04
            try writeFile(path, lines[0] + bad + lines[2])
            #expect(openError(path) == .invalidLine(path: path, line: 2, reason: "checksum mismatch"))
            // Refused, not stuck: the file is not left locked.
            #expect(openError(path) == .invalidLine(path: path, line: 2, reason: "checksum mismatch"))
            _ = try FileEventLog.repair(path: path)
            #expect(openError(path) == nil)
        }
    }

    @Test func readingWorksWhileAWriterHoldsTheLock() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let log = try FileEventLog(path: path)
            defer { log.close() }
            let written = try log.append(Array(facts[0..<3]), options: AppendOptions()).records
            #expect(try FileEventLog.read(path: path).records == written)
            // A torn tail is reported by the reader, not cut: it takes no lock and writes nothing.
            try appendToFile(path, Array(RecordEncoder().encode(Record(position: 4, fact: facts[3])).prefix(30)))
            let contents = try FileEventLog.read(path: path)
            #expect(contents.records == written)
            #expect(contents.tornTail?.offset == storeBytes(written).count)
            #expect(fileBytes(path).count == storeBytes(written).count + 30)
        }
    }

    @Test func readingAMissingFileNamesIt() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/missing/log.jsonl"
            let error = #expect(throws: EventLogError.self) { try FileEventLog.read(path: path) }
            if case .io(let errorPath, let operation, _)? = error {
                #expect(errorPath == path)
                #expect(operation == "open")
            } else {
                Issue.record("expected an io error, got \(String(describing: error))")
            }
            #expect(error.map { "\($0)".hasPrefix(path + ": open failed") } == true)
        }
    }

    // MARK: Torn tails on open

    @Test(arguments: [1, 2, 17, 60, -2])
    func aTruncatedFinalRecordIsCutOnOpen(cut: Int) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let log = try FileEventLog(path: path)
            let written = try log.append(Array(facts[0..<3]), options: AppendOptions()).records
            log.close()
            let valid = fileBytes(path)
            let torn = RecordEncoder().encode(Record(position: 4, fact: facts[3]))
            let length = cut > 0 ? cut : torn.count + cut
            try appendToFile(path, Array(torn.prefix(length)))

            let reopened = try FileEventLog(path: path)
            defer { reopened.close() }
            #expect(reopened.tornTail?.line == 4)
            #expect(reopened.tornTail?.offset == valid.count)
            #expect(reopened.tornTail?.length == length)
            #expect(fileBytes(path) == valid)
            #expect(reopened.position == 3)
            #expect(try reopened.records(after: 0) == written)
            let next = try reopened.append([facts[3]], options: AppendOptions())
            #expect(next.records.map(\.position) == [4])
            #expect(fileBytes(path) == valid + torn)
        }
    }

    @Test func aBatchMissingItsLastRecordsIsCutWholeOnOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let log = try FileEventLog(path: path)
            let written = try log.append(Array(facts[0..<2]), options: AppendOptions(commandID: "first")).records
            log.close()
            let valid = fileBytes(path)
            // Two whole lines of a batch of four, then half of the third.
            let lost = batch(Array(facts[2..<6]), after: 2, commandID: "lost")
            let lines = lost.map { RecordEncoder().encode($0) }
            try appendToFile(path, lines[0] + lines[1] + lines[2].prefix(9))

            let reopened = try FileEventLog(path: path)
            #expect(reopened.tornTail?.line == 3)
            #expect(reopened.tornTail?.offset == valid.count)
            #expect(reopened.tornTail?.reason == "atomic batch of 4 records has only 2")
            #expect(fileBytes(path) == valid)
            #expect(reopened.position == 2)
            #expect(try reopened.records(forCommandID: "lost") == nil)
            // The lost command was never acknowledged: sending it again appends it, right after.
            let resent = try reopened.append(Array(facts[2..<6]), options: AppendOptions(commandID: "lost"))
            #expect(!resent.wasDuplicate)
            #expect(resent.records == lost)
            #expect(fileBytes(path) == valid + storeBytes(lost))
            reopened.close()

            let again = try FileEventLog(path: path)
            defer { again.close() }
            #expect(again.tornTail == nil)
            #expect(try again.records(after: 0) == written + lost)
        }
    }

    @Test func aBatchMissingOnlyItsLastWholeLinesIsCutOnOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let log = try FileEventLog(path: path)
            _ = try log.append([facts[0]], options: AppendOptions())
            log.close()
            let valid = fileBytes(path)
            try appendToFile(path, storeBytes(Array(batch(Array(facts[1..<4]), after: 1).prefix(2))))
            let reopened = try FileEventLog(path: path)
            defer { reopened.close() }
            #expect(reopened.tornTail?.reason == "atomic batch of 3 records has only 2")
            #expect(fileBytes(path) == valid)
            #expect(try reopened.append([facts[1]], options: AppendOptions()).records[0].position == 2)
        }
    }

    @Test func aCompleteFinalRecordWithoutNewlineGetsItsNewline() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let records = singles(Array(facts[0..<3]))
            var bytes = storeBytes(records)
            bytes.removeLast()
            try writeFile(path, bytes)

            let log = try FileEventLog(path: path)
            #expect(log.tornTail == nil)
            #expect(log.position == 3)
            #expect(fileBytes(path) == storeBytes(records))
            #expect(try log.records(after: 2) == [records[2]])
            let next = try log.append([facts[3]], options: AppendOptions())
            log.close()
            #expect(try FileEventLog.read(path: path).records == records + next.records)
            #expect(fileBytes(path) == storeBytes(records + next.records))
        }
    }

    /// A log of nothing but blanks whose last line has no newline: the first record
    /// appended must start a line of its own, or its checksum (which covers the line from
    /// its first byte) would no longer match and the log would refuse to open.
    @Test(arguments: [" ", "\t", "\r", "\n  ", "\r\n\t "])
    func aBlankLogWithoutFinalNewlineTakesAppendsCleanly(blank: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            try writeFile(path, utf8(blank))
            let log = try FileEventLog(path: path)
            #expect(log.tornTail == nil)
            #expect(log.position == 0)
            let written = try log.append(Array(try storyFacts().prefix(2)), options: AppendOptions())
            #expect(try log.records(after: 0) == written.records)
            log.close()
            #expect(openError(path) == nil)
            #expect(try FileEventLog.read(path: path).records == written.records)
            #expect(fileBytes(path) == utf8(blank + "\n") + storeBytes(written.records))
        }
    }

    @Test func aHandWrittenLogOpensAndReadsBack() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            // No seq, no checksum, blank lines, CRLF, members in any order, no final newline.
            let text = "\n" + #"{"type":"timelineCreated","data":{"timeline":"life","name":"My life"}}"# + "\r\n"
                + "\r\n  \n"
                + #" { "data" : {"event":"e1","timeline":"life","title":"Born","date":"1990-04-12"}, "type":"eventAdded" }"#
                + "\n\n"
                + #"{"seq":3,"type":"rangeSet","data":{"event":"e1","start":"1990-04-12","end":null}}"#
            try writeFile(path, utf8(text))
            let expected = singles([
                .timelineCreated(timeline: "life", name: "My life"),
                .eventAdded(event: "e1", timeline: "life", title: "Born", date: try day("1990-04-12")),
                .rangeSet(event: "e1", start: try day("1990-04-12"), end: nil),
            ])
            let log = try FileEventLog(path: path)
            #expect(log.tornTail == nil)
            #expect(try log.records(after: 0) == expected)
            for position in 0...3 {
                #expect(try log.records(after: Int64(position)) == Array(expected.dropFirst(position)))
            }
            let next = try log.append([.eventRemoved(event: "e1")], options: AppendOptions())
            #expect(next.records[0].position == 4)
            #expect(try log.records(after: 2) == Array(expected.dropFirst(2)) + next.records)
            log.close()
            #expect(try FileEventLog.read(path: path).records == expected + next.records)
            #expect(fileBytes(path) == utf8(text + "\n") + storeBytes(next.records))
        }
    }

    /// Blank lines between the store's own records (a log edited by hand, or joined from
    /// pieces): catch-up reading reads each record's bytes up to the next record.
    @Test func blankLinesBetweenStoreRecordsAreReadBack() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let records = batch(Array(try storyFacts().prefix(2)), after: 0, recordedAt: try recordedAt(), commandID: "c")
                + [Record(position: 3, fact: .eventRemoved(event: "born"))]
            let lines = records.map { storeLine($0) }
            let text = "\n" + lines[0] + "\n \t\n" + lines[1] + "\r\n" + lines[2] + "  \n\n"
            try writeFile(path, utf8(text))
            let log = try FileEventLog(path: path)
            defer { log.close() }
            #expect(try log.records(after: 0) == records)
            #expect(try log.records(after: 1) == Array(records[1...]))
            #expect(try log.records(forCommandID: "c") == Array(records[0..<2]))
            let next = try log.append([.timelineRemoved(timeline: "life")], options: AppendOptions())
            #expect(try log.records(after: 2) == [records[2]] + next.records)
        }
    }

    /// A record whose line would be longer than the reader accepts must not be appended:
    /// once acknowledged, it would make the log refuse to open. The decider lets such
    /// text through (an id has no limit; a title of one character may hold a million
    /// combining marks), so the log itself must refuse it, and write nothing.
    @Test func aRecordLongerThanALineMayBeIsRefusedAndNothingIsWritten() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let log = try FileEventLog(path: path)
            _ = try log.append([facts[0]], options: AppendOptions())
            let before = fileBytes(path)
            let title = "e" + String(repeating: "\u{301}", count: LogReader.maximumLineLength / 2)
            let longTitle = Fact.eventAdded(event: "e", timeline: "life", title: title, date: try day("2000"))
            let longID = Fact.eventRemoved(event: EventID(String(repeating: "x", count: LogReader.maximumLineLength)))
            #expect(throws: Never.self) { try Decider.check(longTitle, in: Decider.evolve(DomainState(), facts[0])) }
            for fact in [longTitle, longID] {
                let error = #expect(throws: EventLogError.self) {
                    try log.append([facts[4], fact], options: AppendOptions(commandID: "long"))
                }
                guard case .recordTooLong(let length, let limit)? = error else {
                    Issue.record("expected recordTooLong, got \(String(describing: error))")
                    continue
                }
                #expect(length > limit)
                #expect(limit == LogReader.maximumLineLength)
                #expect(error.map { "\($0)".contains("at most \(limit)") } == true)
                #expect(fileBytes(path) == before)
                #expect(log.position == 1)
                #expect(try log.records(forCommandID: "long") == nil)
            }
            log.close()
            #expect(openError(path) == nil)
        }
    }

    /// In a big batch (made and checked in parts at the same time), the refusal names the
    /// first record too long, not another: its line's length tells which.
    @Test func aBigBatchIsRefusedForItsFirstRecordTooLong() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let log = try FileEventLog(path: path)
            func removal(_ length: Int) -> Fact { .eventRemoved(event: EventID(String(repeating: "x", count: length))) }
            var facts = (0..<(FileEventLog.recordsPerEncodedPart * 3)).map { Fact.eventRemoved(event: EventID("e\($0)")) }
            // Three too long, in the first, second and last parts; the first is neither the
            // longest nor the shortest.
            let tooLong = [(100, 20), (20_000, 30), (FileEventLog.recordsPerEncodedPart * 3 - 5, 10)]
            for (index, extra) in tooLong { facts[index] = removal(LogReader.maximumLineLength + extra) }
            let options = AppendOptions(recordedAt: DateValue(utc: Instant(microsecondsSinceEpoch: 0)))
            let error = #expect(throws: EventLogError.self) { try log.append(facts, options: options) }
            let first = Record(position: 101, facts: [facts[100]], recordedAt: options.recordedAt, commandID: nil,
                               batchRemainder: facts.count - 101)
            #expect(error == .recordTooLong(length: RecordEncoder().encode(first).count - 1,
                                            limit: LogReader.maximumLineLength))
            #expect(fileBytes(path).isEmpty)
            log.close()
        }
    }

    /// A write that fails (here on a device that is always full) is an error naming the
    /// file and the call; nothing is acknowledged and the position stays where it was.
    @Test(.enabled(if: SystemFile.exists("/dev/full"), "needs a device that is always full"))
    func aFailedWriteAcknowledgesNothing() throws {
        let path = "/dev/full"
        let log = try FileEventLog(path: path)
        defer { log.close() }
        let facts = try storyFacts()
        for _ in 0..<2 {
            let error = #expect(throws: EventLogError.self) {
                try log.append(Array(facts[0..<3]), options: AppendOptions(commandID: "c"))
            }
            guard case .io(let errorPath, let operation, _)? = error else {
                Issue.record("expected an io error, got \(String(describing: error))")
                return
            }
            #expect(errorPath == path)
            #expect(operation == "write" || operation == "fsync")
            #expect(log.position == 0)
            #expect(try log.records(forCommandID: "c") == nil)
            #expect(try log.records(after: 0).isEmpty)
        }
    }

    // MARK: Corrupt lines refuse to open

    @Test func aCorruptLineInTheMiddleRefusesToOpenNamingTheLine() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let records = singles(try storyFacts())
            var lines = records.map { RecordEncoder().encode($0) }
            lines[6] = utf8(#"{"type":"rangeClosed","data":{"event":"school","end":"2008-7"}}"#) + [0x0A]
            let bytes = lines.reduce([], +)
            try writeFile(path, bytes)
            let error = openError(path)
            guard case .invalidLine(let errorPath, let line, let reason)? = error else {
                Issue.record("expected an invalid line, got \(String(describing: error))")
                return
            }
            #expect(errorPath == path)
            #expect(line == 7)
            #expect(reason.contains(#"date "2008-7""#))
            #expect("\(error!)".hasPrefix("\(path): line 7: "))
            #expect(fileBytes(path) == bytes)
            #expect(throws: EventLogError.invalidLine(path: path, line: 7, reason: reason)) {
                try FileEventLog.read(path: path)
            }
        }
    }

    /// A hand-written last line without newline that is whole but wrong is not cut off
    /// as if a write had been torn: the log refuses to open and the line stays on disk.
    @Test func aCompleteButInvalidLastLineWithoutNewlineRefusesToOpenAndStays() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let text = #"{"type":"timelineCreated","data":{"timeline":"life","name":"My life"}}"# + "\n"
                + #"{"type":"eventAdded","data":{"event":"w","timeline":"life","title":"Wedding","date":"2019-02-29"}}"#
            try writeFile(path, utf8(text))
            let error = openError(path)
            #expect(error?.description.hasPrefix("\(path): line 2: eventAdded: field \"date\": date \"2019-02-29\"") == true, "\(String(describing: error))")
            #expect(fileBytes(path) == utf8(text))
        }
    }

    @Test func aCorruptLastLineWithNewlineRefusesToOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            var lines = singles(Array(try storyFacts().prefix(3))).map { RecordEncoder().encode($0) }
            lines[2][5] ^= 0x02
            let bytes = lines.reduce([], +)
            try writeFile(path, bytes)
            #expect(openError(path)?.description.hasPrefix("\(path): line 3: ") == true)
            #expect(fileBytes(path) == bytes)
        }
    }
}
