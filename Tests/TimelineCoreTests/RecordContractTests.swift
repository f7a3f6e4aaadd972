import Foundation
import Testing
@testable import TimelineCore

/// The log format as the contract states it: the example lines, optional and unknown
/// members, the three ways to write an open or closed range, upcasting of version 0.
@Suite struct RecordContractTests {
    @Test func theContractsExampleLines() throws {
        let lines = [
            #"{"seq":1,"type":"timelineCreated","data":{"timeline":"life","name":"My life"},"at":"2026-11-29T12:00:00Z"}"#,
            #"{"seq":2,"type":"eventAdded","data":{"event":"e1","timeline":"life","title":"Born","date":"1990-04-12"}}"#,
            #"{"seq":3,"type":"rangeSet","data":{"event":"e1","start":"1990-04-12","end":null}}"#,
        ]
        let records = try lines.enumerated().map { index, line in
            try RecordDecoder().decode(line: line, lineNumber: index + 1, expectedPosition: Int64(index + 1))
        }
        #expect(records == [
            Record(position: 1, fact: .timelineCreated(timeline: "life", name: "My life"),
                   recordedAt: try day("2026-11-29T12:00:00Z")),
            Record(position: 2, fact: .eventAdded(event: "e1", timeline: "life", title: "Born",
                                                  date: try day("1990-04-12"))),
            Record(position: 3, fact: .rangeSet(event: "e1", start: try day("1990-04-12"), end: nil)),
        ])
        #expect(records[0].recordedAt?.instant == Instant(microsecondsSinceEpoch: 1_795_953_600_000_000))
    }

    @Test func seqIsOptionalAndTheCallerAssignsThePosition() throws {
        let line = #"{"type":"eventRemoved","data":{"event":"e1"}}"#
        #expect(try RecordDecoder().decode(line: line, lineNumber: 8, expectedPosition: 8)
            == Record(position: 8, fact: .eventRemoved(event: "e1")))
        #expect(try decodeGeneral(line).seq == nil)
    }

    @Test func unknownMembersAreIgnoredAnywhereInAnyOrder() throws {
        let line = #"""
            {"zzz":{"deep":[1,2,{"type":"no"}]},"data":{"x":null,"title":"T","y":[true],"event":"e1"},
             "more":0,"type":"eventRetitled","extra":"ignored","v":1,"seq":4,"cmd":"c","n":-1.5e-3}
            """#
        #expect(try RecordDecoder().decode(line: line, lineNumber: 4, expectedPosition: 4)
            == Record(position: 4, fact: .eventRetitled(event: "e1", title: "T"), commandID: "c"))
    }

    /// Names one bit away from "crc" are only taken for a damaged checksum when the
    /// member looks exactly like one (last, 8 lowercase hex digits).
    @Test func membersNamedLikeTheChecksumAreOtherwiseUnknownMembers() throws {
        let lines = [
            #"{"type":"eventRemoved","data":{"event":"e"},"src":"notes.txt"}"#,
            #"{"type":"eventRemoved","src":"0123abcd","data":{"event":"e"}}"#,
            #"{"type":"eventRemoved","data":{"event":"e"},"crb":12345678}"#,
        ]
        for line in lines {
            #expect(try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: 1)
                == Record(position: 1, fact: .eventRemoved(event: "e")))
        }
    }

    @Test func rangeEndAbsentNullOrADate() throws {
        let start = try day("2020-01")
        let cases: [(String, DateValue?)] = [
            (#"{"type":"rangeSet","data":{"event":"e","start":"2020-01"}}"#, nil),
            (#"{"type":"rangeSet","data":{"event":"e","start":"2020-01","end":null}}"#, nil),
            (#"{"type":"rangeSet","data":{"event":"e","start":"2020-01","end":"2021"}}"#, try day("2021")),
        ]
        for (line, end) in cases {
            #expect(try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: 1).facts
                == [.rangeSet(event: "e", start: start, end: end)])
        }
    }

    @Test func stringsAreKeptExactlyAsGiven() throws {
        // Decomposed "é" (e + U+0301) must not become the precomposed one, nor the reverse.
        let line = "{\"type\":\"timelineCreated\",\"data\":{\"timeline\":\"e\u{301} \",\"name\":\" \u{E9}\\u0000\"}}"
        let record = try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: 1)
        guard case .timelineCreated(let timeline, let name) = record.facts[0] else {
            Issue.record("wrong fact \(record.facts)")
            return
        }
        #expect(Array(timeline.rawValue.utf8) == [0x65, 0xCC, 0x81, 0x20])
        #expect(Array(name.utf8) == [0x20, 0xC3, 0xA9, 0x00])
    }

    @Test func atIsAnyDateValue() throws {
        let line = #"{"type":"eventRemoved","data":{"event":"e"},"at":"2026-11-29T13:00:00.5+01:00"}"#
        let record = try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: 1)
        #expect(record.recordedAt?.text == "2026-11-29T13:00:00.5+01:00")
        #expect(record.recordedAt?.instant == Instant(microsecondsSinceEpoch: 1_795_953_600_500_000))
    }

    // MARK: - The two paths

    @Test func theEncodersLinesTakeTheFastPath() throws {
        var random = RandomRecords(seed: 99)
        for _ in 0..<200 {
            #expect(decodeFast(RecordEncoder().encode(try random.record())) != nil)
            #expect(decodeFast(RecordEncoder(layout: .plain).encode(try random.record())) != nil)
        }
    }

    /// Each of these is a surprise for the store layout's fast path; the first five are
    /// what the fast path for any order takes, the rest go to the general path.
    @Test(arguments: [
        #"{"seq":1,"type":"eventRemoved","data":{"event":"e"},"v":1}"#,               // the baseline: fast
        #"{"seq":1, "type":"eventRemoved","data":{"event":"e"},"v":1}"#,              // whitespace
        #" {"seq":1,"type":"eventRemoved","data":{"event":"e"},"v":1}"#,              // leading whitespace
        #"{"seq":1,"type":"eventRemoved","data":{"event":"e"},"v":1} "#,              // trailing whitespace
        #"{"type":"eventRemoved","seq":1,"data":{"event":"e"},"v":1}"#,               // another order
        #"{"seq":1,"type":"eventRemoved","data":{"event":"e","x":1},"v":1}"#,         // unknown field
        #"{"seq":1,"type":"eventRemoved","data":{"event":"e"},"v":1,"x":1}"#,         // unknown member
        #"{"seq":1,"type":"eventRemoved","data":{"event":"e"},"v":0}"#,               // another version
        #"{"seq":1,"type":"event\u0052emoved","data":{"event":"e"},"v":1}"#,          // escape in the type
        #"{"seq":1,"type":"dateSet","data":{"event":"e","date":"\u0032020"},"v":1}"#, // escape in a date
        #"{"seq":01,"type":"eventRemoved","data":{"event":"e"},"v":1}"#,              // not JSON at all
        #"{"seq":1,"type":"rangeSet","data":{"event":"e","start":"2020"},"v":1}"#,    // end left out
        #"{"seq":1,"type":"eventRemoved","data":{"event":"e"},"v":1,"crc":"00000000"}"#, // wrong checksum
        "{\"seq\":1, \"type\":\"eventRemoved\",\"data\":{\"event\":\"e\"},\"v\u{0}\u{0}\":1}", // NUL in a name
    ])
    func surprisesFallBackToTheGeneralPath(line: String) {
        let bytes = Array(line.utf8)
        let baseline = line == #"{"seq":1,"type":"eventRemoved","data":{"event":"e"},"v":1}"#
        let anyOrder = [
            #"{"seq":1, "type":"eventRemoved","data":{"event":"e"},"v":1}"#,
            #" {"seq":1,"type":"eventRemoved","data":{"event":"e"},"v":1}"#,
            #"{"seq":1,"type":"eventRemoved","data":{"event":"e"},"v":1} "#,
            #"{"type":"eventRemoved","seq":1,"data":{"event":"e"},"v":1}"#,
            #"{"seq":1,"type":"rangeSet","data":{"event":"e","start":"2020"},"v":1}"#,
        ].contains(line)
        let scanned = bytes.withUnsafeBytes { (FastRecordScanner.scan($0), FastRecordScanner.scanAnyOrder($0)) }
        #expect((scanned.0 != nil) == baseline)
        #expect((scanned.1 != nil) == (baseline || anyOrder))
        #expect((decodeFast(bytes) != nil) == (baseline || anyOrder))
        // The public entry point agrees with the general path: same record or same error.
        let general = Result { () throws(RecordError) in try decodeGeneral(bytes).record(expectedPosition: 1, lineNumber: 1) }
        let decoded = Result { () throws(RecordError) in
            try RecordDecoder().decode(line: bytes, lineNumber: 1, expectedPosition: 1)
        }
        #expect(decoded == general)
    }

    @Test func handWrittenLinesMayCarryAChecksum() throws {
        let body = #"{ "type" : "eventRemoved", "data" : {"event":"é"} "#
        let crc = String(CRC32C.checksum(Array(body.utf8)), radix: 16).leftPadded(to: 8)
        let line = body + #",  "crc" :"\#(crc)" } "#
        #expect(try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: 1)
            == Record(position: 1, fact: .eventRemoved(event: "é")))
        let damaged = line.replacingOccurrences(of: "é", with: "è")
        #expect(decodingError(damaged)?.description == "line 1: checksum mismatch")
    }

    // MARK: - Upcasting

    @Test func version0EventWithOneDate() throws {
        let line = #"{"seq":1,"type":"eventAdded","v":0,"data":{"event":"e1","timeline":"life","title":"Born","start":"1990-04-12"}}"#
        #expect(try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: 1) == Record(
            position: 1,
            facts: [.eventAdded(event: "e1", timeline: "life", title: "Born", date: try day("1990-04-12"))]))
    }

    @Test func version0EventWithAnOpenRange() throws {
        let line = #"{"seq":1,"type":"eventAdded","v":0,"data":{"event":"e1","timeline":"life","title":"Job","start":"2019-03","end":null}}"#
        let start = try day("2019-03")
        #expect(try RecordDecoder().decode(line: line, lineNumber: 1, expectedPosition: 1).facts == [
            .eventAdded(event: "e1", timeline: "life", title: "Job", date: start),
            .rangeSet(event: "e1", start: start, end: nil),
        ])
    }

    @Test func version0EventWithAClosedRange() throws {
        let line = #"{"v":0,"type":"eventAdded","data":{"end":"2021-06-30","event":"e1","timeline":"life","title":"Job","start":"2019-03"},"cmd":"c","more":1,"at":"2019"}"#
        let start = try day("2019-03")
        #expect(try RecordDecoder().decode(line: line, lineNumber: 3, expectedPosition: 3) == Record(
            position: 3,
            facts: [
                .eventAdded(event: "e1", timeline: "life", title: "Job", date: start),
                .rangeSet(event: "e1", start: start, end: try day("2021-06-30")),
            ],
            recordedAt: try day("2019"), commandID: "c", batchRemainder: 1))
    }

    @Test func otherVersion0RecordsReadAsVersion1() throws {
        let dateSet = #"{"v":0,"type":"dateSet","data":{"event":"e1","date":"2000"}}"#
        #expect(try RecordDecoder().decode(line: dateSet, lineNumber: 1, expectedPosition: 1).facts
            == [.dateSet(event: "e1", date: try day("2000"))])
        let added = #"{"v":0,"type":"eventAdded","data":{"event":"e1","timeline":"t","title":"x","date":"2000"}}"#
        #expect(try RecordDecoder().decode(line: added, lineNumber: 1, expectedPosition: 1).facts
            == [.eventAdded(event: "e1", timeline: "t", title: "x", date: try day("2000"))])
    }

    @Test(arguments: [
        (#"{"v":0,"type":"eventAdded","data":{"event":"e1","timeline":"t","start":"2000"}}"#,
         #"line 6: eventAdded: missing field "title""#),
        (#"{"v":0,"type":"eventAdded","data":{"event":"e1","timeline":"t","title":"x","start":"2000-02-30"}}"#,
         #"line 6: eventAdded: field "start": date "2000-02-30": day must be 01–29 in month 02"#),
        (#"{"v":0,"type":"eventAdded","data":{"event":"e1","timeline":"t","title":"x","start":"2000","end":2001}}"#,
         #"line 6: eventAdded: field "end" must be a date string or null, not 2001"#),
        (#"{"v":0,"type":"eventAdded","data":{"event":"e1","timeline":"t","title":"x","start":"2000","end":"20"}}"#,
         #"line 6: eventAdded: field "end": date "20": year must be four digits; expected YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS[.fraction]] with Z or ±HH:MM"#),
        (#"{"v":2,"type":"eventAdded","data":{"event":"e1","timeline":"t","title":"x","start":"2000"}}"#,
         "line 6: unsupported schema version 2"),
        (#"{"v":99,"type":"somethingNew","data":null}"#, "line 6: unsupported schema version 99"),
    ])
    func upcastingErrors(line: String, message: String) {
        #expect(decodingError(line, lineNumber: 6, expectedPosition: 6)?.description == message)
    }

    /// A date that is not one names where it is, in the store's layout (members in order,
    /// as the fast path reads it) and in any other: `at`, or the fact's field.
    @Test(arguments: [
        (#"{"seq":6,"type":"timelineCreated","data":{"timeline":"t","name":"T"},"at":"garbage","v":1}"#,
         #"member "at": date "garbage": year must be four digits; "#),
        (#"{"at":"2026-13","type":"timelineCreated","data":{"timeline":"t","name":"T"}}"#,
         #"member "at": date "2026-13": month must be 01–12"#),
        (#"{"seq":6,"type":"dateSet","data":{"event":"e","date":"2019-02-30"},"v":1}"#,
         #"dateSet: field "date": date "2019-02-30": day must be 01–28 in month 02"#),
        (#"{"type":"rangeSet","data":{"event":"e","start":"2019","end":"20x"}}"#,
         #"rangeSet: field "end": date "20x": year must be four digits; "#),
    ])
    func aBadDateNamesItsPlace(line: String, message: String) {
        let description = decodingError(line, lineNumber: 6, expectedPosition: 6)?.description ?? ""
        #expect(description.hasPrefix("line 6: " + message), "\(description)")
    }
}
