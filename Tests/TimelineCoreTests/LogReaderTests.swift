import Testing
@testable import TimelineCore

/// Splitting a whole log into records: line numbers, positions, atomic batches, and
/// telling a torn tail (a crash mid-write) from a bad line.
@Suite struct LogReaderTests {
    // MARK: Lines

    @Test func emptyLogHoldsNothing() throws {
        let contents = try LogReader().read([UInt8]())
        #expect(contents.records.isEmpty)
        #expect(contents.tornTail == nil)
        #expect(contents.validLength == 0)
    }

    @Test func readsEveryRecordWithItsOffsetAndLine() throws {
        let records = singles(try storyFacts())
        let bytes = storeBytes(records)
        let contents = try LogReader().read(bytes)
        #expect(contents.records == records)
        #expect(contents.lineNumbers == Array(1...records.count))
        var offset = 0
        var offsets: [Int] = []
        for record in records {
            offsets.append(offset)
            offset += RecordEncoder().encode(record).count
        }
        #expect(contents.offsets == offsets)
        #expect(contents.tornTail == nil)
        #expect(contents.validLength == bytes.count)
    }

    @Test func blankLinesAreSkippedButCounted() throws {
        let records = singles(Array(try storyFacts().prefix(3)))
        let lines = records.map { storeLine($0) }
        let text = "\n" + lines[0] + "   \n\t\r\n" + lines[1] + "\n" + lines[2] + " \t\n"
        let contents = try LogReader().read(utf8(text))
        #expect(contents.records == records)
        #expect(contents.lineNumbers == [2, 5, 7])
        #expect(contents.validLength == text.utf8.count)
        #expect(contents.tornTail == nil)

        // A bad line after blank lines is named by its line number in the file.
        let bad = "\n\n" + lines[0] + "\n" + #"{"type":"eventAdd","data":{}}"# + "\n"
        #expect(readFailure(utf8(bad)) == LogReader.Failure(line: 5, offset: 2 + lines[0].utf8.count + 1,
                                                               reason: #"unknown type "eventAdd""#))
    }

    @Test func aCompleteLastLineWithoutNewlineIsRead() throws {
        let records = singles(Array(try storyFacts().prefix(4)))
        var bytes = storeBytes(records)
        bytes.removeLast()
        let contents = try LogReader().read(bytes)
        #expect(contents.records == records)
        #expect(contents.tornTail == nil)
        #expect(contents.validLength == bytes.count)

        // Hand-written, without seq or checksum, and without the final newline.
        let hand = #"{"type":"timelineCreated","data":{"timeline":"t","name":"T"}}"# + "\n"
            + #"{"type":"timelineRenamed","data":{"timeline":"t","name":"U"}}"#
        let handContents = try LogReader().read(utf8(hand))
        #expect(handContents.records == singles([.timelineCreated(timeline: "t", name: "T"),
                                                 .timelineRenamed(timeline: "t", name: "U")]))
        #expect(handContents.tornTail == nil)
    }

    @Test func aBlankLastLineWithoutNewlineIsPartOfTheValidLog() throws {
        let records = singles(Array(try storyFacts().prefix(2)))
        let bytes = storeBytes(records) + utf8("  \t")
        let contents = try LogReader().read(bytes)
        #expect(contents.records == records)
        #expect(contents.tornTail == nil)
        #expect(contents.validLength == bytes.count)
    }

    // MARK: Torn tails

    /// Every way a crash can cut the last record short: all of its proper prefixes.
    @Test func everyTruncationOfTheLastRecordIsATornTail() throws {
        let facts = try storyFacts()
        let at = try recordedAt()
        let records = singles(facts).map { record in
            var record = record
            record.recordedAt = at
            record.commandID = "cmd-\(record.position)"
            return record
        }
        let head = storeBytes(Array(records.dropLast()))
        let last = RecordEncoder().encode(records.last!)
        for cut in 1..<(last.count - 1) {
            let bytes = head + last[..<cut]
            let contents = try LogReader().read(bytes)
            #expect(contents.records == Array(records.dropLast()), "cut at \(cut)")
            #expect(contents.validLength == head.count, "cut at \(cut)")
            let torn = try #require(contents.tornTail, "cut at \(cut)")
            #expect(torn.line == records.count)
            #expect(torn.offset == head.count)
            #expect(torn.length == cut)
            #expect(!torn.reason.isEmpty)
            #expect(torn.description.hasPrefix("line \(records.count): incomplete last record (\(cut) bytes): "))
        }
        // Only the newline missing: the record is complete and counts.
        let whole = try LogReader().read(head + last.dropLast())
        #expect(whole.records == records)
        #expect(whole.tornTail == nil)
        // Nothing of it written: nothing is torn.
        let none = try LogReader().read(head)
        #expect(none.records == Array(records.dropLast()))
        #expect(none.tornTail == nil)
    }

    /// The same for a last record full of multi-byte characters, so that cuts fall
    /// inside UTF-8 sequences and escapes.
    @Test func everyTruncationOfANonASCIIRecordIsATornTail() throws {
        let first = Record(position: 1, fact: .timelineCreated(timeline: "t", name: "T"))
        let second = Record(position: 2, fact: .eventAdded(event: "é😀", timeline: "t",
                                                           title: "Tab\there \"quoted\" \\ 中文 𝄞\u{1}",
                                                           date: try day("2019-03-01T10:15:30.123+05:30")))
        let head = storeBytes([first])
        let last = RecordEncoder().encode(second)
        for cut in 1..<(last.count - 1) {
            let contents = try LogReader().read(head + last[..<cut])
            #expect(contents.records == [first], "cut at \(cut)")
            #expect(contents.tornTail?.offset == head.count, "cut at \(cut)")
            #expect(contents.validLength == head.count, "cut at \(cut)")
        }
    }

    @Test func aTornTailAfterBlankLinesStartsAtItsOwnLine() throws {
        let records = singles(Array(try storyFacts().prefix(2)))
        let head = storeBytes([records[0]]) + utf8("\n  \n")
        let bytes = head + RecordEncoder().encode(records[1]).prefix(20)
        let contents = try LogReader().read(bytes)
        #expect(contents.records == [records[0]])
        #expect(contents.tornTail?.line == 4)
        #expect(contents.tornTail?.offset == head.count)
        #expect(contents.validLength == head.count)
    }

    @Test func aLastLineLongerThanTheLimitWithoutNewlineIsTorn() throws {
        let first = storeBytes(singles([.timelineCreated(timeline: "t", name: "T")]))
        let long = [UInt8](repeating: 0x7B, count: LogReader.maximumLineLength + 1)
        let contents = try LogReader().read(first + long)
        #expect(contents.records.count == 1)
        #expect(contents.tornTail?.offset == first.count)
        #expect(contents.tornTail?.length == long.count)
        #expect(contents.validLength == first.count)
    }

    /// A batch whose last records never reached the file is dropped whole, at every cut.
    @Test func everyTruncationOfABatchDropsAllOfIt() throws {
        let facts = try storyFacts()
        let before = batch(Array(facts.prefix(2)), after: 0, commandID: "a")
        let last = batch(Array(facts[2..<6]), after: 2, recordedAt: try recordedAt(), commandID: "b")
        let head = storeBytes(before)
        let tail = storeBytes(last)
        var lineStarts: Set<Int> = [0]
        var offset = 0
        for record in last.dropLast() {
            offset += RecordEncoder().encode(record).count
            lineStarts.insert(offset)
        }
        for cut in 1..<(tail.count - 1) {
            let contents = try LogReader().read(head + tail[..<cut])
            #expect(contents.records == before, "cut at \(cut)")
            #expect(contents.offsets.count == before.count)
            #expect(contents.lineNumbers == [1, 2])
            #expect(contents.validLength == head.count, "cut at \(cut)")
            let torn = try #require(contents.tornTail, "cut at \(cut)")
            #expect(torn.line == 3)
            #expect(torn.offset == head.count)
            #expect(torn.length == cut)
            if lineStarts.contains(cut) {
                // Whole lines, but not the whole batch.
                #expect(torn.reason.contains("atomic batch of 4 records"), "cut at \(cut): \(torn.reason)")
            }
        }
        let whole = try LogReader().read(head + tail.dropLast())
        #expect(whole.records == before + last)
        #expect(whole.tornTail == nil)
    }

    @Test func anIncompleteBatchAtTheEndWithNewlinesIsTorn() throws {
        let facts = try storyFacts()
        let first = singles([facts[0]])
        let partial = Array(batch(Array(facts[1...3]), after: 1).prefix(2))
        let head = storeBytes(first)
        let bytes = head + storeBytes(partial) + utf8("\n")
        let contents = try LogReader().read(bytes)
        #expect(contents.records == first)
        #expect(contents.tornTail == LogReader.TornTail(line: 2, offset: head.count, length: bytes.count - head.count,
                                                       reason: "atomic batch of 3 records has only 2", isBatch: true,
                                                       presentRecords: 2, missingRecords: 1))
        // A reader in chunks reads the whole batch at once: its records so far, and as much
        // again per missing record, with a tenth more.
        let length = bytes.count - head.count
        #expect(contents.tornTail?.estimatedWholeBatchLength == length + Int(Double(length) / 2 * 1.1))
        // Named as the batch it is, not as a record cut short.
        #expect(contents.tornTail?.description
            == "line 2: incomplete last batch (\(bytes.count - head.count) bytes): atomic batch of 3 records has only 2")
        #expect(contents.validLength == head.count)
    }

    /// A last line that announces as many more records as an `Int` holds is a batch cut
    /// short, named by its size, not an overflow.
    @Test func aLastLineAnnouncingTheLargestBatchIsTorn() throws {
        let first = singles([try storyFacts()[0]])
        let head = storeBytes(first)
        let line = #"{"type":"timelineCreated","data":{"timeline":"t","name":"T"},"more":9223372036854775807}"#
        let bytes = head + utf8(line + "\n")
        let contents = try LogReader().read(bytes)
        #expect(contents.records == first)
        #expect(contents.tornTail?.reason == "atomic batch of 9223372036854775808 records has only 1")
        // Its whole length is estimated without overflowing.
        let estimate = try #require(contents.tornTail?.estimatedWholeBatchLength)
        #expect(estimate > Int.max / 8)
    }

    // MARK: Bad lines

    @Test func aFlippedBitInTheMiddleIsAChecksumMismatch() throws {
        let records = singles(try storyFacts())
        let lines = records.map { RecordEncoder().encode($0) }
        let head = lines[0..<4].reduce([], +)
        var bad = lines[4]
        let title = bad.firstIndex(of: UInt8(ascii: "W"))!  // "Work"
        bad[title] ^= 0x20
        let bytes = head + bad + lines[5...].reduce([], +)
        #expect(readFailure(bytes) == LogReader.Failure(line: 5, offset: head.count, reason: "checksum mismatch"))
        // Every single-bit flip of that line is refused, never read as a record.
        for index in lines[4].indices.dropLast() {
            for bit in 0..<8 {
                var flipped = lines[4]
                flipped[index] ^= 1 << bit
                // (A flip to a newline splits the line: its first half is still line 5.)
                #expect(readFailure(head + flipped + lines[5...].reduce([], +))?.line == 5, "byte \(index) bit \(bit)")
            }
        }
    }

    @Test(arguments: [
        (#"{"type":"eventAdded","data":{"event":"e2","timeline":"life","title":"T","date":"2019-13"}}"#,
         #"date "2019-13": month must be 01–12"#),
        (#"{"type":"dateSet","data":{"event":"born","date":"2019-3-1"}}"#, #"date "2019-3-1""#),
        (#"{"type":"eventRemoved","data":{"event":"born"},"at":"yesterday"}"#, #"date "yesterday""#),
        (#"{"type":"eventAdd","data":{}}"#, #"unknown type "eventAdd""#),
        (#"{"seq":3,"type":"eventRemoved","data":{"event":"born"}}"#,
         "seq 3 is out of order: expected 2 (positions run 1, 2, 3, … with no gaps)"),
        (#"{"seq":1,"type":"eventRemoved","data":{"event":"born"}}"#,
         "seq 1 is out of order: expected 2 (positions run 1, 2, 3, … with no gaps)"),
        (#"{"type":"eventRemoved"}"#, #"missing member "data""#),
        (#"["type","eventRemoved"]"#, "a record must be a JSON object"),
        (#"{"type":"eventRemoved","data":{"event":"born"}"#, "not valid JSON"),
        ("garbage", "not valid JSON"),
        (#"{"type":"eventRemoved","data":{"event":"born"},"v":2}"#, "unsupported schema version 2"),
    ])
    func aBadLineInTheMiddleIsNamedWithItsReason(line: String, reason: String) throws {
        let head = storeBytes(singles([.timelineCreated(timeline: "life", name: "My life")]))
        let tail = RecordEncoder().encode(Record(position: 2, fact: .timelineRemoved(timeline: "life")))
        let failure = try #require(readFailure(head + utf8(line + "\n") + tail))
        #expect(failure.line == 2)
        #expect(failure.offset == head.count)
        #expect(failure.reason.contains(reason), "\(failure.reason)")
        #expect(failure.description == "line 2: \(failure.reason)")
    }

    @Test func invalidUTF8IsABadLine() throws {
        let head = storeBytes(singles([.timelineCreated(timeline: "life", name: "My life")]))
        var line = utf8(#"{"type":"timelineRenamed","data":{"timeline":"life","name":"Mi vida"}}"#)
        line[line.count - 5] = 0xFF
        let failure = readFailure(head + line + [0x0A] + utf8("\n"))
        #expect(failure == LogReader.Failure(line: 2, offset: head.count, reason: "invalid UTF-8"))
        // An overlong encoding and a lone surrogate, too.
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80]] {
            let line = utf8(#"{"type":"timelineRenamed","data":{"timeline":"life","name":""#) + bad + utf8(#""}}"#)
            #expect(readFailure(head + line + [0x0A] + head)?.reason == "invalid UTF-8", "\(bad)")
        }
    }

    @Test func aLineLongerThanTheLimitInTheMiddleIsRefused() throws {
        let first = storeBytes(singles([.timelineCreated(timeline: "t", name: "T")]))
        var second = RecordEncoder().encode(Record(position: 2, fact: .timelineRenamed(timeline: "t", name: "U")))
        second.removeLast()
        let third = RecordEncoder().encode(Record(position: 3, fact: .timelineRemoved(timeline: "t")))
        // Padded with spaces after the object: still valid JSON with a valid checksum.
        let atLimit = second + [UInt8](repeating: 0x20, count: LogReader.maximumLineLength - second.count)
        let accepted = try LogReader().read(first + atLimit + [0x0A] + third)
        #expect(accepted.records.map(\.position) == [1, 2, 3])

        let overLimit = atLimit + [0x20]
        let failure = readFailure(first + overLimit + [0x0A] + third)
        #expect(failure == LogReader.Failure(
            line: 2, offset: first.count,
            reason: "line is \(LogReader.maximumLineLength + 1) bytes long; at most \(LogReader.maximumLineLength) are allowed"))
    }

    @Test(arguments: ["{\"a\":", "[", "{\"data\":"])
    func deeplyNestedJSONIsAnErrorNotACrash(opening: String) throws {
        let depth = 100_000
        let closing = opening.hasPrefix("[") ? "]" : "}"
        var line = [UInt8]()
        line.reserveCapacity(depth * (opening.utf8.count + 1) + 2)
        for _ in 0..<depth { line += opening.utf8 }
        line += utf8("1")
        for _ in 0..<depth { line += closing.utf8 }
        let head = storeBytes(singles([.timelineCreated(timeline: "t", name: "T")]))
        let failure = try #require(readFailure(head + line + [0x0A] + head))
        #expect(failure.line == 2)
        #expect(!failure.reason.isEmpty)
        // Unclosed, as the last line: torn, and still no crash.
        let torn = try LogReader().read(head + line.prefix(line.count / 2))
        #expect(torn.records.count == 1)
        #expect(torn.tornTail?.line == 2)
    }

    @Test func aBadLastLineWithNewlineIsABadLineNotATornTail() throws {
        let head = storeBytes(singles([.timelineCreated(timeline: "t", name: "T")]))
        var last = RecordEncoder().encode(Record(position: 2, fact: .timelineRemoved(timeline: "t")))
        last[10] ^= 0x01
        #expect(readFailure(head + last)?.line == 2)
        // Half a record followed by a newline is not a crash mid-write either.
        let half = RecordEncoder().encode(Record(position: 2, fact: .timelineRemoved(timeline: "t"))).prefix(20)
        #expect(readFailure(head + half + [0x0A])?.line == 2)
    }

    /// A write cut short leaves a proper prefix of the store's line, which is never a
    /// whole JSON value. A last line that is one, but breaks another rule, is not torn:
    /// it is a bad line (a hand-written line with a mistake, a flipped bit), and cutting
    /// it off would destroy it.
    @Test(arguments: [
        (#"{"type":"eventAdded","data":{"event":"e9","timeline":"t","title":"Wedding","date":"2019-02-29"}}"#,
         #"date "2019-02-29""#),
        (#"{"type":"eventWed","data":{"event":"e9"}}"#, #"unknown type "eventWed""#),
        (#"{"seq":1,"type":"timelineRenamed","data":{"timeline":"t","name":"U"}}"#, "seq 1 is out of order"),
        (#"{"type":"timelineRenamed","data":{"timeline":"t"}}"#, #"missing field "name""#),
        (#"["type","timelineRenamed"]"#, "a record must be a JSON object"),
    ])
    func aCompleteButInvalidLastLineWithoutNewlineIsABadLine(line: String, reason: String) throws {
        let head = storeBytes(singles([.timelineCreated(timeline: "t", name: "T")]))
        let failure = try #require(readFailure(head + utf8(line)))
        #expect(failure.line == 2)
        #expect(failure.offset == head.count)
        #expect(failure.reason.contains(reason), "\(failure.reason)")
    }

    @Test func aFlippedBitInACompleteLastRecordWithoutNewlineIsABadLine() throws {
        let head = storeBytes(singles([.timelineCreated(timeline: "t", name: "T")]))
        var last = RecordEncoder().encode(Record(position: 2, fact: .timelineRenamed(timeline: "t", name: "Ulm")))
        last.removeLast()
        last[last.firstIndex(of: UInt8(ascii: "U"))!] ^= 0x08
        #expect(readFailure(head + last) == LogReader.Failure(line: 2, offset: head.count, reason: "checksum mismatch"))
    }

    // MARK: Batches in the middle

    @Test func aBatchCutShortInTheMiddleIsRefused() throws {
        let facts = try storyFacts()
        let first = singles([facts[0]])
        // A batch of three whose third record is missing: the next line starts a batch of its own.
        let cut = Array(batch(Array(facts[1...3]), after: 1).prefix(2))
        let next = batch(Array(facts[4...6]), after: 3)
        let head = storeBytes(first + cut)
        #expect(readFailure(head + storeBytes(next))
            == LogReader.Failure(line: 4, offset: head.count,
                                 reason: #"batch incomplete: expected a record with "more":0, found 2"#))
    }

    @Test func aBatchWhoseCountsSkipIsRefused() throws {
        let facts = try storyFacts()
        let records = [
            Record(position: 1, fact: facts[0], batchRemainder: 3),
            Record(position: 2, fact: facts[1], batchRemainder: 1),
            Record(position: 3, fact: facts[2]),
            Record(position: 4, fact: facts[3]),
        ]
        let failure = readFailure(storeBytes(records))
        #expect(failure?.line == 2)
        #expect(failure?.reason == #"batch incomplete: expected a record with "more":2, found 1"#)
    }

    @Test func completeBatchesAndBlankLinesBetweenTheirRecords() throws {
        let facts = try storyFacts()
        let first = batch(Array(facts[0..<3]), after: 0, commandID: "x")
        let second = batch(Array(facts[3..<5]), after: 3)
        let lines = (first + second).map { storeLine($0) }
        let text = lines[0] + lines[1] + "\n" + lines[2] + lines[3] + "\n \n" + lines[4]
        let contents = try LogReader().read(utf8(text))
        #expect(contents.records == first + second)
        #expect(contents.lineNumbers == [1, 2, 4, 5, 8])
        #expect(contents.validLength == text.utf8.count)
    }

    @Test func positionsMayBeLeftOutByHand() throws {
        let text = #"{"type":"timelineCreated","data":{"timeline":"t","name":"T"}}"# + "\n"
            + #"{"seq":2,"type":"timelineRenamed","data":{"timeline":"t","name":"U"}}"# + "\r\n"
            + #"{"type":"timelineRemoved","data":{"timeline":"t"}}"# + "\n"
        let contents = try LogReader().read(utf8(text))
        #expect(contents.records.map(\.position) == [1, 2, 3])
    }
}

/// The domain rules over a log's records, as replay applies them.
@Suite struct LogValidatorTests {
    @Test func aValidLogFoldsIntoItsState() throws {
        let contents = try LogReader().read(storeBytes(singles(try storyFacts())))
        let state = try LogValidator.validate(contents)
        #expect(Set(state.timelines.keys) == ["life", "work"])
        #expect(state.events["born"]?.title == "Born in Berlin")
        #expect(state.events["job"]?.timeline == "life")
        #expect(state.events["school"]?.dates == .range(start: try day("1996-09"), end: nil))
    }

    @Test func aFactTheDeciderRefusesNamesItsLine() throws {
        let facts = try storyFacts()
        let head = storeLine(Record(position: 1, fact: facts[0])) + "\n  \n"
            + storeLine(Record(position: 2, fact: facts[1]))
        let refused = storeLine(Record(position: 3, fact: .rangeClosed(event: "born", end: try day("2000"))))
        let text = head + refused + storeLine(Record(position: 4, fact: .eventRemoved(event: "nobody")))
        let contents = try LogReader().read(utf8(text))
        #expect(throws: LogReader.Failure(line: 5, offset: head.utf8.count,
                                          reason: #"rangeClosed: event "born" is not an open range"#)) {
            try LogValidator.validate(contents)
        }
        // Up to the record before it, the log is valid.
        #expect(try Set(LogValidator.validate(contents, upTo: 2).events.keys) == ["born"])
    }

    @Test(arguments: [
        (Fact.eventRemoved(event: "nobody"), #"eventRemoved: unknown event "nobody""#),
        (Fact.eventAdded(event: "born", timeline: "life", title: "Again", date: DateValue(utc: Instant(microsecondsSinceEpoch: 0))),
         #"eventAdded: event "born" already exists"#),
        (Fact.timelineRenamed(timeline: "life", name: "  "), "timelineRenamed: timeline name must not be empty"),
        (Fact.rangeReopened(event: "born"), #"rangeReopened: event "born" is not a closed range"#),
        (Fact.eventMoved(event: "born", timeline: "elsewhere"), #"eventMoved: unknown timeline "elsewhere""#),
    ])
    func everyKindOfRefusalIsAnInvalidLog(fact: Fact, reason: String) throws {
        let facts = try storyFacts()
        let records = singles([facts[0], facts[1], fact])
        let contents = try LogReader().read(storeBytes(records))
        let failure = #expect(throws: LogReader.Failure.self) { try LogValidator.validate(contents) }
        #expect(failure?.line == 3)
        #expect(failure?.reason == reason)
    }
}
