import Foundation
import Testing
@testable import TimelineCore

/// The store's layout, byte for byte; the checksums were computed independently (a
/// bitwise CRC-32C outside this code base).
@Suite struct RecordEncoderTests {
    @Test func timelineCreatedWithATimestamp() throws {
        let record = Record(position: 1, fact: .timelineCreated(timeline: "life", name: "My life"),
                            recordedAt: try day("2026-11-29T12:00:00Z"))
        #expect(storeLine(record) == #"""
            {"seq":1,"type":"timelineCreated","data":{"timeline":"life","name":"My life"},"at":"2026-11-29T12:00:00Z","v":1,"crc":"1194676d"}

            """#)
    }

    /// A store's own stamp is written from its instant, byte for byte as the stamp's text
    /// would be, with and without a fraction of a second.
    @Test(arguments: [Int64(1_795_953_600_000_000), 1_795_953_600_500_000, -1, 0])
    func aStampIsWrittenAsItsText(_ micros: Int64) throws {
        let stamp = DateValue(utc: Instant(microsecondsSinceEpoch: micros))
        let written = try DateValue(parsing: stamp.text)
        let fact = Fact.timelineRemoved(timeline: "life")
        #expect(storeLine(Record(position: 9, fact: fact, recordedAt: stamp))
            == storeLine(Record(position: 9, fact: fact, recordedAt: written)))
        #expect(storeLine(Record(position: 9, fact: fact, recordedAt: stamp)).contains(#""at":"\#(stamp.text)","#))
    }

    @Test func commandAndBatchRemainder() throws {
        let record = Record(position: 2, fact: .eventAdded(event: "e1", timeline: "life", title: "Born",
                                                          date: try day("1990-04-12")),
                            commandID: "c-7", batchRemainder: 1)
        #expect(storeLine(record) == #"""
            {"seq":2,"type":"eventAdded","data":{"event":"e1","timeline":"life","title":"Born","date":"1990-04-12"},"v":1,"cmd":"c-7","more":1,"crc":"e8bfd98f"}

            """#)
    }

    @Test func openRangeEndsWithNull() throws {
        let record = Record(position: 3, fact: .rangeSet(event: "e1", start: try day("1990-04-12"), end: nil))
        #expect(storeLine(record) == #"""
            {"seq":3,"type":"rangeSet","data":{"event":"e1","start":"1990-04-12","end":null},"v":1,"crc":"66f9755c"}

            """#)
    }

    @Test func escapesQuotesBackslashesAndControlsOnly() {
        let record = Record(position: 4, fact: .eventRetitled(event: "e1", title: "Say \"hi\" \\ bye\n\t\u{1}\u{1F} é 😀"))
        #expect(storeLine(record) == #"""
            {"seq":4,"type":"eventRetitled","data":{"event":"e1","title":"Say \"hi\" \\ bye\n\t\u0001\u001f é 😀"},"v":1,"crc":"907b91f6"}

            """#)
    }

    @Test func everyControlCharacter() {
        let controls = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) })) + "\u{7F}"
        let line = storeLine(Record(position: 1, fact: .eventRetitled(event: "e", title: controls)))
        let expected = #""title":"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f"#
            + #"\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"#
            + "\u{7F}\"}"
        #expect(line.contains(expected))
    }

    /// Long strings that are all escapes: the worst case for the room the encoder sets aside.
    @Test func longStringsOfEscapes() throws {
        let controls = String(repeating: "\u{1}", count: 5_000)
        let quotes = String(repeating: "\"\\", count: 3_000)
        let record = Record(position: 1, fact: .eventAdded(event: EventID(controls), timeline: TimelineID(quotes),
                                                          title: controls + quotes, date: try day("2020")),
                            recordedAt: try day("2020"), commandID: controls, batchRemainder: Int.max)
        let line = RecordEncoder().encode(record)
        #expect(line.count == 6 * 5_000 * 3 + 2 * 6_000 * 2 + 160)
        #expect(try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: 1) == record)
    }

    /// `cmd` and `more` are part of the format: export keeps them and leaves out `crc` only.
    @Test func plainLayoutKeepsCommandAndBatchAndLeavesOutChecksum() throws {
        let record = Record(position: 12, fact: .rangeClosed(event: "e1", end: try day("2001")),
                            recordedAt: try day("2026-11-29T12:00:00+01:00"), commandID: "c", batchRemainder: 3)
        let line = String(decoding: RecordEncoder(layout: .plain).encode(record), as: UTF8.self)
        #expect(line == #"""
            {"seq":12,"type":"rangeClosed","data":{"event":"e1","end":"2001"},"at":"2026-11-29T12:00:00+01:00","v":1,"cmd":"c","more":3}

            """#)
        #expect(try RecordDecoder().decode(line: Array(line.utf8), lineNumber: 1, expectedPosition: 12) == record)
    }

    /// An upcast record of two facts becomes two lines of one batch, its `more` counting lines.
    @Test func renumberedLinesCountTheLinesLeftInTheirBatch() throws {
        let start = try day("2001")
        let records = [
            Record(position: 1, fact: .timelineCreated(timeline: "t", name: "T")),
            Record(position: 2, facts: [.eventAdded(event: "e", timeline: "t", title: "E", date: start),
                                        .rangeSet(event: "e", start: start, end: nil)],
                   commandID: "x", batchRemainder: 1),
            Record(position: 3, fact: .eventRetitled(event: "e", title: "F"), commandID: "x"),
            Record(position: 4, fact: .eventRemoved(event: "e")),
        ]
        var position: Int64 = 0
        var bytes: [UInt8] = []
        RecordEncoder(layout: .plain).encodeRenumbered(records, after: &position, into: &bytes)
        #expect(position == 5)
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 5)
        #expect(!lines[0].contains("more"))
        #expect(lines[1].hasSuffix(#""cmd":"x","more":2}"#))
        #expect(lines[2].hasSuffix(#""cmd":"x","more":1}"#))
        #expect(lines[3].hasSuffix(#""cmd":"x"}"#))
        #expect(!lines[4].contains("more"))
    }

    @Test func appendsToABuffer() {
        var buffer: [UInt8] = Array("previous\n".utf8)
        let encoder = RecordEncoder()
        encoder.encode(Record(position: 9_223_372_036_854_775_807, fact: .eventRemoved(event: "a")), into: &buffer)
        encoder.encode(.timelineRemoved(timeline: "t"), position: 10, batchRemainder: 0, into: &buffer)
        let text = String(decoding: buffer, as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0] == "previous")
        #expect(lines[1].hasPrefix(#"{"seq":9223372036854775807,"type":"eventRemoved","data":{"event":"a"},"v":1,"crc":""#))
        #expect(lines[2].hasPrefix(#"{"seq":10,"type":"timelineRemoved","data":{"timeline":"t"},"v":1,"crc":""#))
        #expect(text.hasSuffix("\"}\n"))
    }

    @Test func checksumCoversEveryByteBeforeTheCRCMember() throws {
        let line = RecordEncoder().encode(Record(position: 5, fact: .eventMoved(event: "é", timeline: "😀"),
                                                 commandID: "x", batchRemainder: 2))
        let text = String(decoding: line, as: UTF8.self)
        let range = try #require(text.range(of: #","crc":""#))
        let covered = Array(text[..<range.lowerBound].utf8)
        let hex = String(text[range.upperBound...].prefix(8))
        #expect(hex == String(CRC32C.checksum(covered), radix: 16).leftPadded(to: 8))
        #expect(text.hasSuffix("\(hex)\"}\n"))
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
