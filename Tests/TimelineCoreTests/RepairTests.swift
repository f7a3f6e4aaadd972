import Testing
@testable import TimelineCore

/// Repair moves every bad line, byte for byte, to the side file and keeps every good
/// record, renumbered with fresh checksums; nothing is deleted.
@Suite struct RepairTests {
    /// A damaged log: the lines as they are on disk, which of them are bad, and the
    /// facts (with metadata) a repair must keep, in order.
    struct DamagedLog {
        var lines: [[UInt8]] = []
        var bad: [(line: Int, reason: String)] = []
        var kept: [Record] = []

        var bytes: [UInt8] { lines.reduce([], +) }

        mutating func good(_ record: Record) {
            lines.append(RecordEncoder().encode(record))
            kept.append(record)
        }

        mutating func bad(_ line: [UInt8], _ reason: String) {
            lines.append(line)
            bad.append((lines.count, reason))
        }

        /// The side file's bytes: each bad line with a newline.
        var rejected: [UInt8] {
            bad.flatMap { entry in
                var line = lines[entry.line - 1]
                if line.last == 0x0A { line.removeLast() }
                return line + [0x0A]
            }
        }
    }

    static func damagedLog() throws -> DamagedLog {
        let at = try recordedAt()
        var log = DamagedLog()
        log.good(Record(position: 1, fact: .timelineCreated(timeline: "life", name: "My life"), recordedAt: at,
                        commandID: "c1"))
        log.good(Record(position: 2, fact: .eventAdded(event: "born", timeline: "life", title: "Born",
                                                       date: try day("1990-04-12")), commandID: "c2"))
        // A flipped bit in a title.
        var flipped = RecordEncoder().encode(Record(position: 3, fact: .eventAdded(
            event: "school", timeline: "life", title: "School", date: try day("1996"))))
        flipped[flipped.firstIndex(of: UInt8(ascii: "S"))!] ^= 0x01
        log.bad(flipped, "checksum mismatch")
        log.bad(utf8("garbage, not a record\n"), "not valid JSON")
        log.good(Record(position: 5, fact: .eventAdded(event: "party", timeline: "life", title: "Party 🎉",
                                                       date: try day("2000-01-01T00:00Z")), recordedAt: at))
        let dateSet = Record(position: 6, fact: .dateSet(event: "born", date: try day("1990-04-13")))
        log.good(dateSet)
        // The same line twice: the decider would take its fact again, but its position repeats.
        log.bad(RecordEncoder().encode(dateSet), "seq 6")
        // A fact the decider refuses: "party" has a single date, not an open range.
        log.bad(RecordEncoder().encode(Record(position: 8, fact: .rangeClosed(event: "party", end: try day("2001")))),
                #"rangeClosed: event "party" is not an open range"#)
        log.lines.append(utf8(" \n"))
        log.good(Record(position: 10, fact: .eventRetitled(event: "born", title: "Born in Berlin"), commandID: "c10"))
        // A line that is not UTF-8.
        var invalid = RecordEncoder().encode(Record(position: 11, fact: .eventRetitled(event: "born", title: "Bxrn")))
        invalid[invalid.firstIndex(of: UInt8(ascii: "x"))!] = 0xFE
        log.bad(invalid, "invalid UTF-8")
        // Another timelineCreated of the same id: refused by the decider.
        log.bad(RecordEncoder().encode(Record(position: 12, fact: .timelineCreated(timeline: "life", name: "Again"))),
                #"timelineCreated: timeline "life" already exists"#)
        // The last line is good and has no newline.
        var last = RecordEncoder().encode(Record(position: 13, fact: .rangeSet(event: "party", start: try day("2000"),
                                                                              end: nil)))
        last.removeLast()
        log.lines.append(last)
        log.kept.append(Record(position: 13, fact: .rangeSet(event: "party", start: try day("2000"), end: nil)))
        return log
    }

    @Test func keepsEveryGoodRecordAndMovesEveryBadLineByteForByte() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let damaged = try Self.damagedLog()
            try writeFile(path, damaged.bytes)
            #expect(openError(path) != nil)

            let report = try FileEventLog.repair(path: path)
            let side = FileEventLog.sideFilePath(for: path)
            #expect(report.sideFile == side)
            #expect(report.kept == damaged.kept.count)
            #expect(report.moved.map(\.line) == damaged.bad.map(\.line))
            for (moved, expected) in zip(report.moved, damaged.bad) {
                #expect(moved.reason.contains(expected.reason), "line \(moved.line): \(moved.reason)")
                #expect(moved.description == "line \(moved.line): \(moved.reason)")
            }
            #expect(fileBytes(side) == damaged.rejected)

            // Every good record, in order, renumbered 1…n, with its metadata.
            let renumbered = damaged.kept.enumerated().map { index, record in
                var record = record
                record.position = Int64(index + 1)
                return record
            }
            #expect(fileBytes(path) == storeBytes(renumbered))
            let log = try FileEventLog(path: path)
            defer { log.close() }
            #expect(log.tornTail == nil)
            #expect(try log.records(after: 0) == renumbered)
            #expect(try log.records(forCommandID: "c10")?.map(\.position) == [5])
            #expect(try LogValidator.validate(FileEventLog.read(path: path)).events.count == 2)
        }
    }

    /// Undo links name the first position of the batch undone: renumbered with the records
    /// (`undo:N` command ids and `undo` members), so that what was undone stays undone; a
    /// link to a record moved aside names nothing afterwards.
    @Test(arguments: [2, 4])
    func undoLinksAreRenumberedWithTheRecords(garbled: Int) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let date = try DateValue(parsing: "2001")
            let records = [
                Record(position: 1, fact: .timelineCreated(timeline: "life", name: "Life")),
                Record(position: 2, fact: .eventAdded(event: "e0", timeline: "life", title: "Other", date: date)),
                Record(position: 3, fact: .eventAdded(event: "e1", timeline: "life", title: "X", date: date)),
                Record(position: 4, fact: .eventRetitled(event: "e1", title: "Y")),
                Record(position: 5, fact: .eventRetitled(event: "e1", title: "X"), commandID: "undo:4"),
                Record(position: 6, fact: .eventRetitled(event: "e1", title: "Y"), commandID: "d:1", submission: "n",
                       undoes: 5),
            ]
            var lines = records.map { RecordEncoder().encode($0) }
            lines[garbled - 1] = utf8("garbled\n")
            try writeFile(path, lines.reduce([], +))
            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [garbled])
            let kept = try FileEventLog.read(path: path).records
            #expect(kept.count == 5)
            if garbled == 2 {
                #expect(kept[3].commandID == "undo:3" && kept[3].undoneBatch == 3)
                #expect(kept[4].undoes == 4)
                let later = Array(kept.dropFirst(3))
                #expect(Compensation.undoInForce(of: 3...3, amongLater: later) == nil, "undone, then redone")
                #expect(Compensation.undos(of: 3...3, amongLater: Compensation.batches(later)).refusal
                        == .redone(undo: 4, redo: 5))
            } else {
                // The undone batch was moved aside: its undo names nothing now.
                #expect(kept[3].commandID == "undo:4 (moved aside)" && kept[3].undoneBatch == nil)
                #expect(kept[4].undoes == 4)
            }
        }
    }

    /// A line refused by the rules alone that ends its batch (it read as a record) is not the
    /// first of the batch after it: that batch stays one atomic batch (it was split, and an
    /// import could no longer be undone whole).
    @Test func aBatchAfterALineRefusedByTheRulesStaysWhole() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let date = try DateValue(parsing: "2001")
            let records = [
                Record(position: 1, fact: .timelineCreated(timeline: "life", name: "Life")),
                Record(position: 2, fact: .eventAdded(event: "e1", timeline: "life", title: "X", date: date)),
                Record(position: 3, fact: .eventRetitled(event: "e1", title: "Y")),
                Record(position: 4, fact: .timelineCreated(timeline: "work", name: "Work"), commandID: "imp", batchRemainder: 1),
                Record(position: 5, fact: .eventAdded(event: "w1", timeline: "work", title: "W", date: date), commandID: "imp"),
            ]
            var lines = records.map { RecordEncoder().encode($0) }
            lines[1] = utf8("garbled\n")  // e1 is gone: the retitle after it is refused by the rules
            try writeFile(path, lines.reduce([], +))
            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [2, 3])
            let kept = try FileEventLog.read(path: path).records
            #expect(kept.map(\.batchRemainder) == [0, 1, 0], "the import is one batch still")
            #expect(kept.map(\.commandID) == [nil, "imp", "imp"])
        }
    }

    /// A record whose `undo` names itself or a later record breaks the reading rules: repair
    /// moves it aside, so that the log it writes opens.
    @Test func anUndoNamingALaterRecordIsMovedAside() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let text = #"{"seq":1,"type":"timelineCreated","data":{"timeline":"t","name":"T"}}"# + "\n"
                + #"{"seq":2,"type":"timelineRenamed","data":{"timeline":"t","name":"U"},"undo":2}"# + "\n"
                + #"{"seq":3,"type":"timelineRenamed","data":{"timeline":"t","name":"V"},"undo":1}"# + "\n"
            try writeFile(path, utf8(text))
            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [2])
            #expect(report.moved.first?.reason.contains("names record 2, which is not before this record (2)") == true)
            let kept = try FileEventLog.read(path: path).records
            #expect(kept.map(\.position) == [1, 2] && kept[1].undoes == 1)
        }
    }

    @Test func aCleanLogIsLeftAloneAndNoSideFileIsWritten() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let log = try FileEventLog(path: path)
            _ = try log.append(Array(facts[0..<4]), options: AppendOptions(commandID: "a", recordedAt: try recordedAt()))
            _ = try log.append(Array(facts[4...]), options: AppendOptions(commandID: "b"))
            log.close()
            let before = fileBytes(path)

            let report = try FileEventLog.repair(path: path)
            #expect(report == FileEventLog.RepairReport(kept: facts.count, moved: [], sideFile: nil,
                                                        rewritten: false, dryRun: false))
            #expect(fileBytes(path) == before)
            #expect(!SystemFile.exists(FileEventLog.sideFilePath(for: path)))
        }
    }

    @Test func aCleanHandWrittenLogIsLeftAloneToo() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let text = #"{"type":"timelineCreated","data":{"timeline":"t","name":"T"}}"# + "\n\n"
                + #"{"type":"timelineRenamed","data":{"timeline":"t","name":"U"}}"# + "\r\n"
                + #"{"type":"timelineRemoved","data":{"timeline":"t"}}"#
            try writeFile(path, utf8(text))
            let report = try FileEventLog.repair(path: path)
            #expect(report.kept == 3)
            #expect(report.moved.isEmpty)
            #expect(fileBytes(path) == utf8(text))
            #expect(!SystemFile.exists(FileEventLog.sideFilePath(for: path)))
        }
    }

    /// A log that a process has open is repaired under its lock; that process's next
    /// append notices the new file (and says so), and the one after appends to it.
    @Test func aWriterWithTheLogOpenAppendsToTheRepairedLog() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let log = try FileEventLog(path: path)
            defer { log.close() }
            _ = try log.append(try storyFacts(), options: AppendOptions())
            try appendBytes(path, utf8("not a record\n"))
            let report = try FileEventLog.repair(path: path)
            #expect(report.kept == 10 && report.moved.map(\.line) == [11])
            #expect(throws: EventLogError.replaced(path: path)) {
                try log.append([.eventRemoved(event: "job")], options: AppendOptions())
            }
            #expect(try log.append([.eventRemoved(event: "job")], options: AppendOptions()).records[0].position == 11)
            let reread = try FileEventLog.read(path: path)
            #expect(reread.records.count == 11 && reread.tornTail == nil)
        }
    }

    @Test func aSecondRepairAppendsToTheSideFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let side = FileEventLog.sideFilePath(for: path)
            let good = storeBytes(singles([.timelineCreated(timeline: "t", name: "T")]))
            try writeFile(path, good + utf8("first bad\n"))
            _ = try FileEventLog.repair(path: path)
            #expect(fileBytes(side) == utf8("first bad\n"))
            #expect(fileBytes(path) == good)

            try appendToFile(path, utf8("{\"second\":\"bad\"}\n"))
            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [2])
            #expect(report.moved.first?.reason == #"missing member "type""#)
            #expect(fileBytes(side) == utf8("first bad\n{\"second\":\"bad\"}\n"))
            #expect(fileBytes(path) == good)
        }
    }

    /// A repair killed after moving lines aside, before the log was replaced: the rerun
    /// does not move them aside a second time, and removes the new log's temporary file
    /// the killed one left (as large as the log).
    @Test func aRepairKilledBeforeReplacingTheLogIsFinishedOnce() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let side = FileEventLog.sideFilePath(for: path)
            let good = storeBytes(singles([.timelineCreated(timeline: "t", name: "T")]))
            try writeFile(path, good + utf8("bad\n"))
            // What the killed repair left: the side file written, the new log not renamed.
            try writeFile(side, utf8("bad\n"))
            let stale = path + ".tmp-4194000-1"
            try writeFile(stale, good)
            _ = try FileEventLog.repair(path: path)
            #expect(fileBytes(side) == utf8("bad\n"))
            #expect(fileBytes(path) == good)
            #expect(!SystemFile.exists(stale))
        }
    }

    @Test func aLineLongerThanTheLimitIsMovedWhole() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let records = singles(Array(try storyFacts().prefix(2)))
            let long = [UInt8](repeating: UInt8(ascii: "x"), count: LogReader.maximumLineLength + 1)
            try writeFile(path, storeBytes([records[0]]) + long + [0x0A] + storeBytes([records[1]]))
            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [2])
            #expect(report.moved.first?.reason.contains("at most \(LogReader.maximumLineLength)") == true)
            #expect(fileBytes(FileEventLog.sideFilePath(for: path)) == long + [0x0A])
            #expect(fileBytes(path) == storeBytes(records))
        }
    }

    /// Lines without `seq` are placed where they are; only a position that repeats or
    /// goes back marks a line as a copy.
    @Test func handWrittenLinesWithoutPositionsAreNotTakenForCopies() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let text = #"{"type":"timelineCreated","data":{"timeline":"t","name":"T"}}"# + "\n"
                + #"{"type":"timelineRenamed","data":{"timeline":"t","name":"U"}}"# + "\n"
                + "oops\n"
                + #"{"type":"timelineRenamed","data":{"timeline":"t","name":"U"}}"# + "\n"
            try writeFile(path, utf8(text))
            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [3])
            #expect(report.kept == 3)
            #expect(try FileEventLog.read(path: path).records.map(\.facts) == [
                [.timelineCreated(timeline: "t", name: "T")],
                [.timelineRenamed(timeline: "t", name: "U")],
                [.timelineRenamed(timeline: "t", name: "U")],
            ])
        }
    }

    /// A corrupt record inside a batch: the batch's other records were acknowledged
    /// together with it, so they stay; the repaired log reads as single records.
    @Test func theRestOfABatchWithACorruptRecordStays() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let records = batch(Array(facts[0..<4]), after: 0, commandID: "b")
            var lines = records.map { RecordEncoder().encode($0) }
            lines[1][lines[1].count - 4] ^= 0x01  // inside the checksum
            try writeFile(path, lines.reduce([], +))
            #expect(openError(path)?.description.contains("line 2") == true)

            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [2])
            #expect(fileBytes(FileEventLog.sideFilePath(for: path)) == lines[1])
            let log = try FileEventLog(path: path)
            defer { log.close() }
            // facts[1] ("born") is gone; facts[2] adds "school", facts[3] sets its range: still valid.
            #expect(try log.records(after: 0).map(\.facts) == [[facts[0]], [facts[2]], [facts[3]]])
            #expect(try log.records(after: 0).map(\.position) == [1, 2, 3])
            #expect(try log.records(forCommandID: "b")?.count == 3)
        }
    }

    /// A last line announcing as many more records as an `Int` holds is a batch cut short.
    @Test func aLastLineAnnouncingTheLargestBatchIsMoved() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let first = RecordEncoder().encode(singles([try storyFacts()[0]])[0])
            let line = Array(#"{"type":"timelineCreated","data":{"timeline":"t","name":"T"},"more":9223372036854775807}"#.utf8)
            try writeFile(path, first + line + [0x0A])
            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [2])
            #expect(report.moved.first?.reason == "atomic batch of 9223372036854775808 records has only 1: a write cut short")
            #expect(report.kept == 1)
        }
    }

    /// A batch whose write was cut short at the end of the log was never acknowledged:
    /// opening the log would drop it whole, so repair must not keep half of it. It goes
    /// to the side file, and a resend of its command appends all of it.
    @Test func anUnfinishedBatchAtTheEndIsMovedWholeNotHalfKept() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            var lines = singles(Array(facts[0..<3])).map { RecordEncoder().encode($0) }
            lines[1][lines[1].count - 5] ^= 0x01  // a flipped bit in line 2's checksum
            let lost = batch(Array(facts[3..<6]), after: 3, commandID: "lost")
            let lostLines = lost.map { RecordEncoder().encode($0) }
            let tail = lostLines[0] + lostLines[1] + lostLines[2].prefix(25)
            try writeFile(path, lines.reduce([], +) + tail)

            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [2, 4, 5, 6])
            #expect(report.moved[1].reason.contains("atomic batch of 3 records"), "\(report.moved[1].reason)")
            #expect(report.kept == 2)
            #expect(fileBytes(FileEventLog.sideFilePath(for: path)) == lines[1] + tail + [0x0A])

            // The repaired log holds what opening it would have kept, and nothing of the lost command.
            let log = try FileEventLog(path: path)
            defer { log.close() }
            #expect(log.tornTail == nil)
            #expect(try log.records(after: 0).map(\.facts) == [[facts[0]], [facts[2]]])
            #expect(try log.records(forCommandID: "lost") == nil)
            let resent = try log.append(Array(facts[3..<6]), options: AppendOptions(commandID: "lost"))
            #expect(!resent.wasDuplicate)
            #expect(resent.records.map(\.position) == [3, 4, 5])
        }
    }

    /// A batch that finished stays whole, however it was split by bad lines inside it.
    @Test func aFinishedBatchAtTheEndStays() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let records = batch(Array(facts[0..<4]), after: 0, commandID: "all")
            var lines = records.map { RecordEncoder().encode($0) }
            lines.insert(utf8("noise\n"), at: 2)
            try writeFile(path, lines.reduce([], +))
            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [3])
            #expect(try FileEventLog.read(path: path).records.map(\.facts) == facts[0..<4].map { [$0] })
        }
    }

    /// A repair elsewhere in the log keeps each whole atomic batch a batch (with its
    /// markers, so that `--upto` never shows half of it); a batch that lost a record to
    /// the repair is kept record by record.
    @Test func wholeBatchesStayBatchesThroughARepair() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let first = batch(Array(facts[0..<3]), after: 0, commandID: "first")
            let second = batch(Array(facts[3..<6]), after: 3, commandID: "second")
            var secondLines = second.map { RecordEncoder().encode($0) }
            secondLines[0][secondLines[0].count - 5] ^= 0x01  // a flipped bit in its first record
            let lines = first.map { RecordEncoder().encode($0) } + [utf8("noise\n")] + secondLines
            try writeFile(path, lines.reduce([], +) + utf8("{\"seq\":7,\"type\""))
            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [4, 5, 8])
            let records = try FileEventLog.read(path: path).records
            #expect(records.map(\.facts) == [[facts[0]], [facts[1]], [facts[2]], [facts[4]], [facts[5]]])
            #expect(records.map(\.batchRemainder) == [2, 1, 0, 0, 0])
            #expect(records.map(\.commandID) == ["first", "first", "first", "second", "second"])
        }
    }

    /// An old record that upcasts to several facts stays or goes whole; one refused after
    /// its first fact leaves no trace of that fact in what the later lines are checked against.
    @Test func anUpcastRecordOfSeveralFactsIsKeptOrMovedWhole() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let refused = #"{"seq":2,"v":0,"type":"eventAdded","data":{"event":"x","timeline":"t","title":"X","start":"2000","end":"1999"}}"#
            let text = #"{"seq":1,"type":"timelineCreated","data":{"timeline":"t","name":"T"}}"# + "\n"
                + refused + "\n"
                + #"{"seq":3,"v":0,"type":"eventAdded","data":{"event":"x","timeline":"t","title":"X2","start":"2001","end":null}}"# + "\n"
                + #"{"seq":4,"type":"rangeClosed","data":{"event":"x","end":"2002"}}"# + "\n"
            try writeFile(path, utf8(text))
            let report = try FileEventLog.repair(path: path)
            #expect(report.moved.map(\.line) == [2])
            #expect(report.moved.first?.reason == #"rangeSet: event "x": end "1999" is before start "2000""#)
            #expect(fileBytes(FileEventLog.sideFilePath(for: path)) == utf8(refused + "\n"))
            #expect(try FileEventLog.read(path: path).records.map(\.facts) == [
                [.timelineCreated(timeline: "t", name: "T")],
                [.eventAdded(event: "x", timeline: "t", title: "X2", date: try day("2001"))],
                [.rangeSet(event: "x", start: try day("2001"), end: nil)],
                [.rangeClosed(event: "x", end: try day("2002"))],
            ])
            #expect(report.kept == 4)
        }
    }

    /// Repair must stay linear in the size of the log: it once copied the whole domain
    /// state for every line (quadratic). Judged as a ratio against a log ten times smaller
    /// repaired beside it (the fastest of three each), never as a time: linear gives about
    /// 10×, quadratic about 100×.
    @Test func repairIsLinearInTheSizeOfTheLog() throws {
        try withTemporaryDirectory { directory in
            func fastestRepair(of count: Int) throws -> Duration {
                let path = directory + "/log-\(count).jsonl"
                var facts: [Fact] = [.timelineCreated(timeline: "t", name: "T")]
                let date = try day("2000")
                for index in 0..<count {
                    facts.append(.eventAdded(event: EventID("e\(index)"), timeline: "t", title: "Event", date: date))
                }
                let lines = storeBytes(singles(facts))
                let middle = lines[(lines.count / 2)...].firstIndex(of: 0x0A)! + 1
                var fastest = Duration.seconds(3_600)
                for _ in 0..<3 {
                    try writeFile(path, Array(lines[..<middle]) + utf8("not a record\n") + lines[middle...])
                    let elapsed = try ContinuousClock().measure {
                        let report = try FileEventLog.repair(path: path)
                        #expect(report.kept == facts.count)
                        #expect(report.moved.count == 1)
                    }
                    fastest = min(fastest, elapsed)
                }
                return fastest
            }
            let small = try fastestRepair(of: 2_000), large = try fastestRepair(of: 20_000)
            let ratio = large / small
            #expect(ratio < 40, "repair of 20,000 records took \(large), of 2,000 \(small): \(ratio)×, not linear")
        }
    }

    @Test func repairingAMissingLogNamesTheFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let error = #expect(throws: EventLogError.self) { try FileEventLog.repair(path: path) }
            #expect(error.map { "\($0)".hasPrefix(path) } == true)
            // Nothing is created.
            #expect(!SystemFile.exists(path))
            #expect(!SystemFile.exists(FileEventLog.sideFilePath(for: path)))
        }
    }
}
