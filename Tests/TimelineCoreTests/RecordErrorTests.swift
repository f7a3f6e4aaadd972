import Testing
@testable import TimelineCore

/// Every way a line can be wrong, with the exact message a user sees.
@Suite struct RecordErrorTests {
    @Test(arguments: [
        // Dates: the message names where the date is, quotes the value and names the rule.
        (12, #"{"type":"eventAdded","data":{"event":"e1","timeline":"life","title":"Born","date":"2019-13"}}"#,
         #"line 12: eventAdded: field "date": date "2019-13": month must be 01–12"#),
        (2, #"{"type":"dateSet","data":{"event":"e1","date":"2019-02-29"}}"#,
         #"line 2: dateSet: field "date": date "2019-02-29": day must be 01–28: 2019 is not a leap year"#),
        (2, #"{"type":"rangeClosed","data":{"event":"e1","end":"2019-01-01T25:00Z"}}"#,
         #"line 2: rangeClosed: field "end": date "2019-01-01T25:00Z": hour must be 00–23"#),
        (2, #"{"type":"rangeSet","data":{"event":"e1","start":"2019","end":""}}"#,
         #"line 2: rangeSet: field "end": date "": empty; expected YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS[.fraction]] with Z or ±HH:MM"#),
        (2, #"{"type":"eventRemoved","data":{"event":"e1"},"at":"2026-11-29T12:00:00"}"#,
         #"line 2: member "at": date "2026-11-29T12:00:00": a time needs an offset: Z or ±HH:MM"#),
        // Types and fields.
        (3, #"{"type":"eventAdd","data":{}}"#, #"line 3: unknown type "eventAdd""#),
        (3, #"{"type":"EventAdded","data":{}}"#, #"line 3: unknown type "EventAdded""#),
        (3, #"{"type":"a\"b\n","data":{}}"#, #"line 3: unknown type "a\"b\n""#),
        (5, #"{"type":"eventAdded","data":{"event":"e1","timeline":"life","date":"1990"}}"#,
         #"line 5: eventAdded: missing field "title""#),
        (5, #"{"type":"rangeClosed","data":{"event":"e1"}}"#, #"line 5: rangeClosed: missing field "end""#),
        (5, #"{"type":"timelineRemoved","data":{"name":"x"}}"#, #"line 5: timelineRemoved: missing field "timeline""#),
        (6, #"{"type":"eventAdded","data":{"event":"e1","timeline":"life","title":42,"date":"1990"}}"#,
         #"line 6: eventAdded: field "title" must be a string, not 42"#),
        (6, #"{"type":"eventRetitled","data":{"event":"e1","title":null}}"#,
         #"line 6: eventRetitled: field "title" must be a string, not null"#),
        (6, #"{"type":"eventMoved","data":{"event":["e1"],"timeline":"t"}}"#,
         #"line 6: eventMoved: field "event" must be a string, not an array"#),
        (6, #"{"type":"dateSet","data":{"event":"e1","date":1990}}"#,
         #"line 6: dateSet: field "date" must be a date string, not 1990"#),
        (6, #"{"type":"rangeSet","data":{"event":"e1","start":"1990","end":false}}"#,
         #"line 6: rangeSet: field "end" must be a date string or null, not a boolean"#),
        (6, #"{"type":"dateSet","data":{"event":"e1","date":"1990","date":"1991"}}"#,
         #"line 6: dateSet: duplicate field "date""#),
        // Top-level members.
        (7, #"{"data":{"event":"e1"}}"#, #"line 7: missing member "type""#),
        (7, #"{"type":"eventRemoved"}"#, #"line 7: missing member "data""#),
        (7, #"{"type":"eventRemoved","data":"e1"}"#, #"line 7: member "data" must be an object, not a string"#),
        (7, #"{"type":"eventRemoved","data":null}"#, #"line 7: member "data" must be an object, not null"#),
        (7, #"{"type":7,"data":{}}"#, #"line 7: member "type" must be a string, not 7"#),
        (7, #"{"seq":-1,"type":"eventRemoved","data":{"event":"e"}}"#,
         #"line 7: member "seq" must be a non-negative integer, not -1"#),
        (7, #"{"seq":1.0,"type":"eventRemoved","data":{"event":"e"}}"#,
         #"line 7: member "seq" must be a non-negative integer, not 1.0"#),
        (7, #"{"seq":1e0,"type":"eventRemoved","data":{"event":"e"}}"#,
         #"line 7: member "seq" must be a non-negative integer, not 1e0"#),
        (7, #"{"seq":"1","type":"eventRemoved","data":{"event":"e"}}"#,
         #"line 7: member "seq" must be a non-negative integer, not a string"#),
        (7, #"{"seq":99999999999999999999,"type":"eventRemoved","data":{"event":"e"}}"#,
         #"line 7: member "seq" must be a non-negative integer, not 99999999999999999999"#),
        (7, #"{"v":1.5,"type":"eventRemoved","data":{"event":"e"}}"#,
         #"line 7: member "v" must be a non-negative integer, not 1.5"#),
        (7, #"{"more":-2,"type":"eventRemoved","data":{"event":"e"}}"#,
         #"line 7: member "more" must be a non-negative integer, not -2"#),
        (7, #"{"cmd":17,"type":"eventRemoved","data":{"event":"e"}}"#,
         #"line 7: member "cmd" must be a string, not 17"#),
        (7, #"{"at":20261129,"type":"eventRemoved","data":{"event":"e"}}"#,
         #"line 7: member "at" must be a date string, not 20261129"#),
        (7, #"{"type":"eventRemoved","data":{"event":"e"},"type":"eventRemoved"}"#,
         #"line 7: duplicate member "type""#),
        (7, #"[{"type":"eventRemoved","data":{"event":"e"}}]"#, "line 7: a record must be a JSON object"),
        (7, #""record""#, "line 7: a record must be a JSON object"),
        // Versions.
        (8, #"{"v":2,"type":"eventRemoved","data":{"event":"e"}}"#, "line 8: unsupported schema version 2"),
        // Syntax.
        (9, "", "line 9: not valid JSON: unexpected end of input at column 1"),
        (9, #"{"type":"eventRemoved","data":{"event":"e"}"#,
         #"line 9: not valid JSON: unexpected end of input; expected "," or "}" in an object at column 44"#),
        (9, #"{"type":"eventRemoved","data":{"event":"e"}}x"#,
         "line 9: not valid JSON: unexpected text after the JSON value at column 45"),
        (9, #"{"type":"eventRemoved","data":{"event":"e"}}{"type":"eventRemoved","data":{"event":"e"}}"#,
         "line 9: not valid JSON: unexpected text after the JSON value at column 45"),
        (9, #"{"type":"eventRemoved","data":{"event":"\ud800"}}"#,
         #"line 9: not valid JSON: lone surrogate \uD800 (a high surrogate needs a low one after it) at column 41"#),
        // Positions.
        (10, #"{"seq":11,"type":"eventRemoved","data":{"event":"e"}}"#,
         "line 10: seq 11 is out of order: expected 10 (positions run 1, 2, 3, … with no gaps)"),
        (10, #"{"seq":0,"type":"eventRemoved","data":{"event":"e"}}"#,
         "line 10: seq 0 is out of order: expected 10 (positions run 1, 2, 3, … with no gaps)"),
        // Checksums.
        (11, #"{"type":"eventRemoved","data":{"event":"e"},"crc":"00000000"}"#, "line 11: checksum mismatch"),
        (11, #"{"type":"eventRemoved","data":{"event":"e"},"crc":"ABCDEF01"}"#,
         #"line 11: member "crc" must be written plainly, as "crc":"xxxxxxxx" with 8 lowercase hexadecimal digits"#),
        (11, #"{"type":"eventRemoved","data":{"event":"e"},"crc":"abc"}"#,
         #"line 11: member "crc" must be written plainly, as "crc":"xxxxxxxx" with 8 lowercase hexadecimal digits"#),
        (11, #"{"type":"eventRemoved","data":{"event":"e"},"crc":12345678}"#,
         #"line 11: member "crc" must be written plainly, as "crc":"xxxxxxxx" with 8 lowercase hexadecimal digits"#),
        (11, #"{"type":"eventRemoved","data":{"event":"e"},"crc":"\u00300000000"}"#,
         #"line 11: member "crc" must be written plainly, as "crc":"xxxxxxxx" with 8 lowercase hexadecimal digits"#),
        (11, #"{"type":"eventRemoved","data":{"event":"e"},"\u0063rc":"00000000"}"#,
         #"line 11: member "crc" must be written plainly, as "crc":"xxxxxxxx" with 8 lowercase hexadecimal digits"#),
        (11, #"{"crc":"00000000","type":"eventRemoved","data":{"event":"e"}}"#,
         #"line 11: member "crc" must be the last member, after at least one other"#),
        (11, #"{"type":"eventRemoved","data":{"event":"e"},"crb":"00000000"}"#, "line 11: checksum mismatch"),
        (11, #"{"type":"eventRemoved","data":{"event":"e"},"cRc":"0123abcd"}"#, "line 11: checksum mismatch"),
    ] as [(Int, String, String)])
    func messages(lineNumber: Int, line: String, message: String) {
        #expect(decodingError(line, lineNumber: lineNumber, expectedPosition: Int64(lineNumber))?.description == message)
    }

    @Test func invalidUTF8() {
        var line = Array(#"{"type":"eventRetitled","data":{"event":"e","title":"caf"#.utf8)
        line += [0xE9] // Latin-1 "é", not UTF-8
        line += Array(#""}}"#.utf8)
        let error = decodingError(line, lineNumber: 4, expectedPosition: 4)
        #expect(error?.description == "line 4: invalid UTF-8")
        #expect(error?.reason == .invalidUTF8(column: 57))
        // Outside a string too, and an encoded surrogate.
        #expect(decodingError(Array(#"{"type":"eventRemoved","data":{"event":"e"}}"#.utf8) + [0xFF])?.reason
            == .invalidUTF8(column: 45))
        #expect(decodingError(Array(#"{"type":"eventRemoved","data":{"event":""#.utf8) + [0xED, 0xB0, 0x80]
            + Array(#""}}"#.utf8))?.reason == .invalidUTF8(column: 41))
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let line = #"{"type":"dateSet","data":{"event":"e","date":"2020","x":"#
            + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}}"
        #expect(decodingError(line)?.description == "line 1: not valid JSON: nesting deeper than 64 levels at column 119")
        let objects = String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        #expect(decodingError(objects)?.description
            == "line 1: not valid JSON: nesting deeper than 64 levels at column 321")
    }

    /// Every prefix of a line is an error: a torn write never reads as a record.
    @Test func truncatedLines() throws {
        var random = RandomRecords(seed: 5)
        for layout in [RecordEncoder.Layout.store, .plain] {
            for _ in 0..<5 {
                let record = try random.record()
                let line = Array(RecordEncoder(layout: layout).encode(record).dropLast())
                #expect(decodingError(line, expectedPosition: record.position) == nil)
                for length in 0..<line.count {
                    let reason = decodingError(Array(line[..<length]), expectedPosition: record.position)?.reason
                    switch reason {
                    case .invalidJSON?, .invalidUTF8?: break
                    default: Issue.record("prefix of \(length) bytes: \(String(describing: reason))")
                    }
                }
            }
        }
        let line = storeLine(Record(position: 1, fact: .eventRemoved(event: "e")))
        #expect(decodingError(String(line.dropLast(3)))?.description
            == #"line 1: not valid JSON: unterminated string at column 65"#)
    }

    /// Flip any one bit of any byte of a stored line, and reading it fails. Where the
    /// damaged line is still JSON, the message is the checksum's.
    @Test func everySingleBitFlipIsDetected() throws {
        var random = RandomRecords(seed: 77)
        var records = [
            Record(position: 3, fact: .rangeSet(event: "e1", start: try day("1990-04-12"), end: nil),
                   recordedAt: try day("2026-11-29T12:00:00Z"), commandID: "c-1", batchRemainder: 1),
            Record(position: 1, fact: .eventRetitled(event: "é", title: "\"😀\"\n\\")),
        ]
        for _ in 0..<8 { records.append(try random.record()) }
        var stillJSON = 0
        for record in records {
            let line = RecordEncoder().encode(record)
            #expect(decodingError(line, expectedPosition: record.position) == nil)
            let text = String(decoding: line, as: UTF8.self)
            let crcStart = try #require(text.utf8.firstRange(of: Array(#","crc":""#.utf8))).lowerBound
            let covered = text.utf8.distance(from: text.utf8.startIndex, to: crcStart)
            for index in line.indices {
                for bit in 0..<8 {
                    var damaged = line
                    damaged[index] ^= 1 << bit
                    let error = decodingError(damaged, expectedPosition: record.position)
                    #expect(error != nil, "byte \(index) bit \(bit) of \(text)")
                    guard let error, index < covered, (try? JSONParser.parse(damaged)) != nil else { continue }
                    stillJSON += 1
                    #expect(error.reason == .checksumMismatch, "byte \(index) bit \(bit) of \(text)")
                }
            }
        }
        #expect(stillJSON > 1_000)
    }
}
