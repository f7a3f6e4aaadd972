import TimelineTestSupport
import Testing
@testable import TimelineCore

/// The line the encoder writes for a decoded line: equal bytes mean equal strings,
/// byte for byte (Swift's `==` on strings would also accept canonically equivalent ones).
private func reencoded(_ decoded: DecodedLine, position: Int64) -> [UInt8] {
    RecordEncoder().encode(Record(position: position, facts: decoded.facts, recordedAt: decoded.recordedAt,
                                  commandID: decoded.commandID, batchRemainder: decoded.batchRemainder,
                                  submission: decoded.submission, undoes: decoded.undoes))
}

@Suite struct RecordCodingTests {
    static let everyFact: [Fact] = {
        let date = try! DateValue(parsing: "1990-04-12")
        let end = try! DateValue(parsing: "2001-09-11T08:46:40-04:00")
        return [
            .timelineCreated(timeline: "life", name: "My life"),
            .timelineRenamed(timeline: "life", name: "Ma vie 🌍"),
            .timelineRemoved(timeline: "work"),
            .eventAdded(event: "e1", timeline: "life", title: "Born \"here\"", date: date),
            .eventRetitled(event: "e1", title: "Line\nbreak\\"),
            .dateSet(event: "e1", date: date),
            .rangeSet(event: "e1", start: date, end: nil),
            .rangeSet(event: "e1", start: date, end: end),
            .rangeClosed(event: "e1", end: end),
            .rangeReopened(event: "e1"),
            .eventMoved(event: "e1", timeline: "other"),
            .eventRemoved(event: "e1"),
            .commandRejected(command: "0192d1b2-0000-7000-8000-000000000001:3", rule: "unknownEvent",
                             message: "unknown event \"e1\""),
        ]
    }()

    /// The outcome of a rejected submission, in the store's layout (section 10's contract):
    /// `data` holds `command`, `rule`, `message`; `cmd` and `sub` follow `v`.
    @Test func aRejectionIsWrittenAsTheContractSays() throws {
        let record = Record(position: 7, fact: .commandRejected(command: "d:2", rule: "unknownEvent", message: "gone"),
                            commandID: "d:2", submission: "n1")
        let line = String(decoding: RecordEncoder().encode(record), as: UTF8.self)
        #expect(line.hasPrefix(#"{"seq":7,"type":"commandRejected","data":{"command":"d:2","rule":"unknownEvent","message":"gone"},"v":1,"cmd":"d:2","sub":"n1","crc":""#))
        #expect(try RecordDecoder().decode(line: Array(line.utf8), lineNumber: 7, expectedPosition: 7) == record)
        let handWritten = #"{"type":"commandRejected","cmd":"d:2","sub":"n1","data":{"message":"gone","rule":"unknownEvent","command":"d:2"}}"#
        #expect(try RecordDecoder().decode(line: Array(handWritten.utf8), lineNumber: 1, expectedPosition: 7) == record)
    }

    /// An undo a replica sent carries the batch it undoes (`undo`, after `sub`), read back
    /// by every path; a value that is no position is refused, not ignored.
    @Test func anUndosMarkerRoundTrips() throws {
        let record = Record(position: 9, fact: .eventRetitled(event: "e1", title: "Born"), commandID: "d:3",
                            batchRemainder: 1, submission: "n3", undoes: 4)
        let line = String(decoding: RecordEncoder().encode(record), as: UTF8.self)
        #expect(line.hasPrefix(#"{"seq":9,"type":"eventRetitled","data":{"event":"e1","title":"Born"},"v":1,"cmd":"d:3","more":1,"sub":"n3","undo":4,"crc":""#))
        #expect(try RecordDecoder().decode(line: Array(line.utf8), lineNumber: 9, expectedPosition: 9) == record)
        #expect(decodeFast(Array(line.utf8))?.undoes == 4)
        #expect(try decodeGeneral(Array(line.utf8)).undoes == 4)
        let exported = String(decoding: RecordEncoder(layout: .plain).encode(record), as: UTF8.self)
        #expect(exported.hasSuffix(#""sub":"n3","undo":4}"# + "\n"))
        let handWritten = #"{ "undo": 4, "type":"eventRetitled","cmd":"d:3","more":1,"sub":"n3","data":{"title":"Born","event":"e1"}}"#
        #expect(try RecordDecoder().decode(line: Array(handWritten.utf8), lineNumber: 1, expectedPosition: 9) == record)
        #expect(record.undoneBatch == 4)
        for bad in [#""undo":0"#, #""undo":"4""#, #""undo":-1"#, #""undo":1.5"#] {
            let text = #"{"type":"eventRemoved","data":{"event":"e1"},"# + bad + "}"
            #expect(performing: {
                try RecordDecoder().decode(line: Array(text.utf8), lineNumber: 1, expectedPosition: 9)
            }, throws: { error in
                "\(error)".contains(#"member "undo" must be the position of a record, 1 or more"#)
            })
        }
        // An undo undoes an earlier batch: one naming its own record or a later one is refused.
        for undone in [9, 10] {
            let text = #"{"type":"eventRemoved","data":{"event":"e1"},"undo":\#(undone)}"#
            #expect(throws: RecordError(line: 1, reason: .undoNotBefore(Int64(undone), position: 9))) {
                try RecordDecoder().decode(line: Array(text.utf8), lineNumber: 1, expectedPosition: 9)
            }
        }
        // A rejection undoes nothing, whatever it carries; a plain log's marker is its command id.
        let rejection = Record(position: 9, fact: .commandRejected(command: "d:3", rule: "changedSince", message: "m"),
                               commandID: "d:3", undoes: 4)
        #expect(rejection.undoneBatch == nil)
        #expect(Record(position: 9, fact: .eventRemoved(event: "e1"), commandID: "undo:4").undoneBatch == 4)
        // A command id naming its own record or a later one was not written by an undo.
        for own in ["undo:9", "undo:10"] {
            #expect(Record(position: 9, fact: .eventRemoved(event: "e1"), commandID: own).undoneBatch == nil)
        }
    }

    @Test(arguments: everyFact)
    func everyFactRoundTrips(fact: Fact) throws {
        let record = Record(position: 42, fact: fact, recordedAt: try day("2026-11-29T12:00:00.123456Z"),
                            commandID: "cmd-1", batchRemainder: 2)
        let line = RecordEncoder().encode(record)
        #expect(try RecordDecoder().decode(line: line, lineNumber: 42, expectedPosition: 42) == record)
        #expect(decodeFast(line) == DecodedLine(seq: 42, facts: [fact], recordedAt: record.recordedAt,
                                                commandID: "cmd-1", batchRemainder: 2))
        #expect(try decodeGeneral(line) == decodeFast(line))
    }

    @Test(arguments: everyFact)
    func everyFactRoundTripsWithoutMetadata(fact: Fact) throws {
        let record = Record(position: 1, fact: fact)
        let line = RecordEncoder().encode(record)
        #expect(try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: 1) == record)
        #expect(decodeFast(line) != nil)
        let plain = RecordEncoder(layout: .plain).encode(record)
        #expect(try RecordDecoder().decode(line: plain, lineNumber: 1, expectedPosition: 1) == record)
        #expect(decodeFast(plain) != nil)
    }

    @Test func lineEndingsAreOptional() throws {
        let record = Record(position: 7, fact: .eventRemoved(event: "e"))
        let line = RecordEncoder().encode(record)
        #expect(line.last == 0x0A)
        let bare = Array(line.dropLast())
        let crlf = bare + [0x0D, 0x0A]
        for variant in [line, bare, crlf] {
            #expect(decodeFast(variant) != nil)
            #expect(try RecordDecoder().decode(line: variant, lineNumber: 7, expectedPosition: 7) == record)
        }
    }

    @Test func decodesFromASliceOfALargerBuffer() throws {
        var buffer: [UInt8] = []
        let encoder = RecordEncoder()
        let records = (1...3).map { Record(position: Int64($0), fact: .eventRemoved(event: EventID("e\($0)"))) }
        for record in records { encoder.encode(record, into: &buffer) }
        let lines = buffer.split(separator: 0x0A)
        for (index, line) in lines.enumerated() {
            #expect(try RecordDecoder().decode(line: line, lineNumber: index + 1, expectedPosition: Int64(index + 1))
                == records[index])
        }
    }

    /// Thousands of random records: the encoder's lines read the same on both paths, and
    /// give back exactly the record that was written.
    @Test(arguments: [UInt64(1), 2, 3, 0xDEAD_BEEF])
    func randomRecordsReadTheSameOnBothPaths(seed: UInt64) throws {
        var random = RandomRecords(seed: seed)
        for _ in 0..<1_500 {
            let record = try random.record()
            let line = RecordEncoder().encode(record)
            let fast = try #require(decodeFast(line), "fast path refused \(String(decoding: line, as: UTF8.self))")
            let general = try decodeGeneral(line)
            #expect(fast == general)
            #expect(reencoded(fast, position: record.position) == line)
            #expect(reencoded(general, position: record.position) == line)
            #expect(try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: record.position) == record)
        }
    }

    /// The same records written by hand — members shuffled, whitespace, `\u` escapes,
    /// surrogate pairs, unknown members, no checksum — read the same on the general path.
    @Test(arguments: [UInt64(11), 12, 13])
    func handWrittenLinesReadTheSame(seed: UInt64) throws {
        var random = RandomRecords(seed: seed)
        var writer = HandWriter(rng: SplitMix64(seed: ~seed))
        var fastPathTaken = 0
        for index in 0..<1_500 {
            let record = try random.record()
            let withSeq = index % 3 != 0
            let text = writer.line(record, withSeq: withSeq)
            let line = Array(text.utf8)
            let general: DecodedLine
            do {
                general = try decodeGeneral(line)
            } catch {
                Issue.record("\(error) reading \(text)")
                continue
            }
            #expect(general.seq == (withSeq ? record.position : nil), "\(text)")
            #expect(reencoded(general, position: record.position) == RecordEncoder().encode(record), "\(text)")
            #expect(try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: record.position) == record)
            if let fast = decodeFast(line) {
                fastPathTaken += 1
                #expect(fast == general, "\(text)")
            }
        }
        // Escaped names and unknown members send most lines down the general path.
        #expect(fastPathTaken < 1_000)
    }

    /// Hand-written lines of the known members only, names and dates without escapes,
    /// in any order with any whitespace, all take the fast path and read as on the general one.
    @Test(arguments: [UInt64(21), 22, 23])
    func plainHandWrittenLinesTakeTheFastPath(seed: UInt64) throws {
        var random = RandomRecords(seed: seed)
        var writer = HandWriter(rng: SplitMix64(seed: ~seed), plain: true)
        for index in 0..<1_500 {
            let record = try random.record()
            let text = writer.line(record, withSeq: index % 3 != 0)
            let line = Array(text.utf8)
            let fast = try #require(decodeFast(line), "fast path refused \(text)")
            #expect(try fast == decodeGeneral(line), "\(text)")
            #expect(try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: record.position) == record)
        }
    }

    /// Plain hand-written lines, damaged at random (a byte deleted, replaced or added, a
    /// member repeated, a part of another line spliced in): the fast path never takes a
    /// line the general path refuses, nor reads one otherwise.
    @Test(arguments: [UInt64(31), 32, 33, 34])
    func damagedHandWrittenLinesAreNeverReadOtherwiseOnTheFastPath(seed: UInt64) throws {
        var random = RandomRecords(seed: seed)
        var writer = HandWriter(rng: SplitMix64(seed: ~seed), plain: true)
        var rng = SplitMix64(seed: seed &* 7)
        let alphabet = Array(#"{}[],:" \-.0123456789eEnulatrfsvqdym"#.utf8) + [0x00, 0x01, 0x1F]
        var taken = 0
        var refused = 0
        for index in 0..<3_000 {
            let record = try random.record()
            var line = Array(writer.line(record, withSeq: index % 2 == 0).utf8)
            let other = Array(writer.line(try random.record(), withSeq: true).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0..<line.count, using: &rng)
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: line.remove(at: at)
                case 1: line[at] = alphabet.randomElement(using: &rng)!
                case 2: line.insert(alphabet.randomElement(using: &rng)!, at: at)
                case 3:
                    // A member repeated: the text from a quote to the next comma, again.
                    if let quote = line[at...].firstIndex(of: 0x22), let comma = line[quote...].firstIndex(of: 0x2C) {
                        line.insert(contentsOf: line[quote...comma], at: comma + 1)
                    }
                default:
                    let from = Int.random(in: 0..<other.count, using: &rng)
                    line.replaceSubrange(at..<min(line.count, at + 12), with: other[from..<min(other.count, from + 12)])
                }
                if line.isEmpty { line = [0x7B] }
            }
            let general = try? decodeGeneral(line)
            if let fast = decodeFast(line) {
                taken += 1
                #expect(general == fast, "\(String(decoding: line, as: UTF8.self))")
            } else if general == nil {
                refused += 1
            }
        }
        // Both kinds were tried: lines the damage left readable, and lines it broke.
        #expect(taken > 100)
        #expect(refused > 1_000)
    }
}
