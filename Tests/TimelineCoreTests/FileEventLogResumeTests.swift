import Testing
@testable import TimelineCore

@Suite("Opening a file log from a resume point")
struct FileEventLogResumeTests {
    /// A log of the story's facts: batches of one and two, some with command ids, a blank
    /// line in the middle; returns every record written.
    static func writeLog(_ path: String) throws -> [Record] {
        let facts = try storyFacts()
        // Three batches, then a blank line written by hand, then the rest in a new session.
        let first = try appendBatches(path, facts: facts, firstBatch: 0, batches: 3)
        try appendToFile(path, utf8("\n"))
        let rest = try appendBatches(path, facts: Array(facts[first.facts...]), firstBatch: 3, batches: .max)
        return first.records + rest.records
    }

    /// Appends `facts` in batches of one or two (every other one with a command id), at
    /// most `batches` of them, in one session of the log; returns the records and how
    /// many facts they hold.
    private static func appendBatches(_ path: String, facts: [Fact], firstBatch: Int,
                                      batches: Int) throws -> (records: [Record], facts: Int) {
        let log = try FileEventLog(path: path)
        defer { log.close() }
        var records: [Record] = []
        var index = 0, batch = firstBatch
        while index < facts.count, batch - firstBatch < batches {
            let size = min(batch % 3 == 2 ? 2 : 1, facts.count - index)
            let id: String? = batch % 2 == 0 ? "cmd-\(batch)" : nil
            records += try log.append(Array(facts[index..<(index + size)]), options: AppendOptions(commandID: id)).records
            index += size
            batch += 1
        }
        return (records, index)
    }

    /// Every resume point the log offers, by position.
    static func resumePoints(_ path: String, count: Int) throws -> [Int64: FileEventLog.ResumePoint] {
        let log = try FileEventLog(path: path)
        defer { log.close() }
        var points: [Int64: FileEventLog.ResumePoint] = [:]
        for position in 0...Int64(count) {
            if let point = try log.fileResumePoint(at: position) { points[position] = point }
        }
        return points
    }

    @Test func everyResumePointReopensReadingOnlyTheTail() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let records = try Self.writeLog(path)
            let points = try Self.resumePoints(path, count: records.count)
            // A point inside a batch is refused; every batch's end has one.
            for record in records {
                #expect((points[record.position] != nil) == (record.batchRemainder == 0), "position \(record.position)")
            }
            for (position, point) in points {
                let opening = try FileEventLog.openCollecting(path: path) { point }
                defer { opening.log.close() }
                #expect(opening.resumeProblem == nil)
                #expect(opening.start == position)
                #expect(opening.records == Array(records.dropFirst(Int(position))))
                #expect(opening.log.position == Int64(records.count))
                // Every command id answers, from before the point as well as after it.
                for id in Set(records.compactMap(\.commandID)) {
                    #expect(try opening.log.records(forCommandID: id) == records.filter { $0.commandID == id }, "\(id)")
                }
                #expect(try opening.log.records(forCommandID: "never-sent") == nil)
                // A resume point taken again after resuming is the same point.
                #expect(try opening.log.fileResumePoint(at: position) == point)
                // Reading from before the point reads the prefix once, then everything works.
                #expect(try opening.log.records(after: 0) == records)
                #expect(try opening.log.records(after: position / 2) == Array(records.dropFirst(Int(position / 2))))
            }
        }
    }

    @Test func aCommandSentBeforeThePointIsNotAppendedAgain() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let records = try Self.writeLog(path)
            let point = try #require(try Self.resumePoints(path, count: records.count)[Int64(records.count)])
            let opening = try FileEventLog.openCollecting(path: path) { point }
            defer { opening.log.close() }
            let again = try opening.log.append([.timelineCreated(timeline: "x", name: "X")],
                                               options: AppendOptions(commandID: "cmd-0"))
            #expect(again.wasDuplicate)
            #expect(again.records == records.filter { $0.commandID == "cmd-0" })
            #expect(opening.log.position == Int64(records.count))
            // New records and ids after the point are found too, and a later point covers them.
            let appended = try opening.log.append([.timelineCreated(timeline: "x", name: "X")],
                                                  options: AppendOptions(commandID: "late"))
            #expect(!appended.wasDuplicate)
            let later = try #require(try opening.log.fileResumePoint(at: Int64(records.count + 1)))
            #expect(later.commands.entries.count == point.commands.entries.count + 1)
            #expect(try opening.log.records(forCommandID: "late") == appended.records)
        }
    }

    @Test func aHashCollisionIsHarmless() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let records = try Self.writeLog(path)
            let real = try #require(try Self.resumePoints(path, count: records.count)[Int64(records.count)])
            // An entry for "ghost" that points at the records of another command.
            let first = try #require(real.commands.entries.first)
            let ghost = FileEventLog.CommandTable.Entry(hash: FileEventLog.CommandTable.hash("ghost"),
                                                        firstPosition: first.firstPosition, count: first.count,
                                                        offset: first.offset)
            var point = real
            point.commands = FileEventLog.CommandTable(unsorted: real.commands.entries + [ghost])
            let opening = try FileEventLog.openCollecting(path: path) { point }
            defer { opening.log.close() }
            #expect(opening.resumeProblem == nil)
            #expect(try opening.log.records(forCommandID: "ghost") == nil)
            let sent = try opening.log.append([.timelineCreated(timeline: "g", name: "G")],
                                              options: AppendOptions(commandID: "ghost"))
            #expect(!sent.wasDuplicate)
        }
    }

    /// A log opened from a resume point replays from its start a chunk at a time, as a
    /// log read whole does, blank lines and line numbers included.
    @Test func aLogOpenedFromAPointReplaysFromItsStartInChunks() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let records = try Self.writeLog(path)
            let point = try #require(try Self.resumePoints(path, count: records.count)[5])
            let opening = try FileEventLog.openCollecting(path: path) { point }
            defer { opening.log.close() }
            #expect(opening.resumed)
            var replayed: [Record] = []
            try opening.log.forEachChunk(after: 0) { replayed += $0; return true }
            #expect(replayed == records)
            // A damaged record after the hand-written blank line is named by its line.
            let lastLine = lineCount(of: path)  // the file ends with a newline
            try damageLine(lastLine, of: path)
            let line = invalidLine { () throws(EventLogError) in try opening.log.forEachChunk(after: 0) { _ in true } }
            #expect(line == lastLine)
            #expect(line == records.count + 1, "one blank line before")
        }
    }

    @Test func thePointALogWasOpenedAtIsGivenWithoutReadingThePrefix() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let records = try Self.writeLog(path)
            let point = try #require(try Self.resumePoints(path, count: records.count)[5])
            let opening = try FileEventLog.openCollecting(path: path) { point }
            defer { opening.log.close() }
            #expect(opening.resumeProblem == nil)
            // The prefix is damaged behind the log's back: reading it would fail.
            var bytes = fileBytes(path)
            bytes[10] ^= 0x01
            try writeFile(path, bytes)
            #expect(try opening.log.fileResumePoint(at: point.position) == point)
        }
    }

    @Test func aLogChangedBehindThePointIsReadWhole() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let records = try Self.writeLog(path)
            let points = try Self.resumePoints(path, count: records.count)
            let original = fileBytes(path)
            let point = try #require(points[5])
            // Damage that leaves a log that still reads: the point must not fit it, the
            // log is read whole, and the reason says why.
            var cases: [(name: String, bytes: [UInt8], reason: String)] = []
            cases.append(("truncated before the point", Array(original.prefix(point.offset - 1)), "ahead of the log"))
            let otherPath = directory + "/other.jsonl"
            let other = try FileEventLog(path: otherPath)
            for i in 0..<40 {
                _ = try other.append([.timelineCreated(timeline: TimelineID("t\(i)"), name: "Another log \(i)")],
                                     options: AppendOptions())
            }
            other.close()
            cases.append(("another log in its place", fileBytes(otherPath), "is not the record 5"))
            for (name, bytes, reason) in cases {
                try writeFile(path, bytes)
                let opening = try FileEventLog.openCollecting(path: path) { point }
                defer { opening.log.close() }
                #expect(!opening.resumed, "\(name)")
                #expect(opening.start == 0, "\(name)")
                #expect(opening.resumeProblem?.contains(reason) == true, "\(name): \(opening.resumeProblem ?? "nil")")
                #expect(opening.records.count == Int(opening.log.position) && !opening.records.isEmpty, "\(name)")
            }
            // A flipped bit in the point's own line: the point does not fit, and reading the
            // log whole refuses the bad line; it is never resumed past the damage.
            var flipped = original
            flipped[point.offset - 3] ^= 0x01
            try writeFile(path, flipped)
            #expect(throws: EventLogError.self) { _ = try FileEventLog.openCollecting(path: path) { point } }
            // A flipped bit before the point's line: as documented, the prefix is not read
            // again, so the log resumes; a whole read (`timeline verify`) finds the damage.
            flipped = original
            flipped[point.offset - point.lastLineLength - 3] ^= 0x01
            try writeFile(path, flipped)
            do {
                let resumed = try FileEventLog.openCollecting(path: path) { point }
                #expect(resumed.resumed && resumed.resumeProblem == nil)
                resumed.log.close()
            }
            #expect(throws: EventLogError.self) { _ = try FileEventLog.read(path: path) }
            // A point that cannot describe any log is refused before the file is read.
            try writeFile(path, original)
            var nonsense = point
            nonsense.lineCount = 1
            let opening = try FileEventLog.openCollecting(path: path) { nonsense }
            defer { opening.log.close() }
            #expect(opening.resumeProblem?.contains("resume point") == true)
            #expect(opening.records == records)
        }
    }

    @Test func aTornTailAfterThePointIsCutAndReported() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let records = try Self.writeLog(path)
            let point = try #require(try Self.resumePoints(path, count: records.count)[4])
            let valid = fileBytes(path).count
            try appendToFile(path, utf8(#"{"seq":12,"type":"timelineCrea"#))
            let opening = try FileEventLog.openCollecting(path: path) { point }
            defer { opening.log.close() }
            #expect(opening.resumeProblem == nil)
            #expect(opening.records == Array(records.dropFirst(4)))
            let torn = try #require(opening.log.tornTail)
            #expect(torn.offset == valid)
            #expect(torn.line == records.count + 2)  // one blank line before
            #expect(fileBytes(path).count == valid)
        }
    }

    @Test func aBadLineAfterThePointRefusesToOpenNamingItsLine() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let records = try Self.writeLog(path)
            let point = try #require(try Self.resumePoints(path, count: records.count)[4])
            try appendToFile(path, utf8("{\"type\":\"noSuchFact\",\"data\":{}}\n"))
            #expect {
                try FileEventLog.openCollecting(path: path) { point }
            } throws: { error in
                guard case EventLogError.invalidLine(_, let line, _) = error else { return false }
                return line == records.count + 2
            }
        }
    }
}

/// An opening with the records it read, collected from the chunks handed over.
struct CollectedOpening {
    let log: FileEventLog
    let start: Int64
    let resumed: Bool
    let resumeProblem: String?
    let records: [Record]
}

extension FileEventLog {
    /// Opens like ``open(path:resumingAt:consume:)``, collecting the records read, and
    /// checks that every chunk said what the opening says: the tail, or the whole log.
    static func openCollecting(path: String, resumingAt point: () -> ResumePoint?) throws(EventLogError) -> CollectedOpening {
        var records: [Record] = []
        var kinds: Set<Bool> = []
        let opening = try open(path: path, resumingAt: {
            point().map { encode($0, identity: SystemFile.identity(of: path) ?? FileIdentity(device: 0, inode: 0)) }
        }) { resumed, chunk in
            kinds.insert(resumed)
            records += chunk
        }
        #expect(kinds.isSubset(of: [opening.resumed]))
        return CollectedOpening(log: opening.log, start: opening.start, resumed: opening.resumed,
                                resumeProblem: opening.resumeProblem,
                                records: records)
    }
}
