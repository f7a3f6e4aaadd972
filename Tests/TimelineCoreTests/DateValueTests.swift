import Testing
import TimelineTestSupport
@testable import TimelineCore

@Suite("Date values")
struct DateValueTests {
    /// Valid texts and their UTC instants, as `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`.
    static let valid: [(String, String, DateValue.Precision)] = [
        ("2019", "2019-01-01T00:00:00Z", .year),
        ("0001", "0001-01-01T00:00:00Z", .year),
        ("9999", "9999-01-01T00:00:00Z", .year),
        ("1970", "1970-01-01T00:00:00Z", .year),
        ("2019-03", "2019-03-01T00:00:00Z", .month),
        ("2019-12", "2019-12-01T00:00:00Z", .month),
        ("2024-02-29", "2024-02-29T00:00:00Z", .day),
        ("2000-02-29", "2000-02-29T00:00:00Z", .day),
        ("2023-01-31", "2023-01-31T00:00:00Z", .day),
        ("2023-02-28", "2023-02-28T00:00:00Z", .day),
        ("2023-03-31", "2023-03-31T00:00:00Z", .day),
        ("2023-04-30", "2023-04-30T00:00:00Z", .day),
        ("2023-05-31", "2023-05-31T00:00:00Z", .day),
        ("2023-06-30", "2023-06-30T00:00:00Z", .day),
        ("2023-07-31", "2023-07-31T00:00:00Z", .day),
        ("2023-08-31", "2023-08-31T00:00:00Z", .day),
        ("2023-09-30", "2023-09-30T00:00:00Z", .day),
        ("2023-10-31", "2023-10-31T00:00:00Z", .day),
        ("2023-11-30", "2023-11-30T00:00:00Z", .day),
        ("2023-12-31", "2023-12-31T00:00:00Z", .day),
        ("0001-01-01", "0001-01-01T00:00:00Z", .day),
        ("9999-12-31", "9999-12-31T00:00:00Z", .day),
        ("1969-12-31", "1969-12-31T00:00:00Z", .day),
        ("2019-03-01T10:30Z", "2019-03-01T10:30:00Z", .minute),
        ("2019-03-01T10:30:15Z", "2019-03-01T10:30:15Z", .second),
        ("2019-03-01T10:30:15.5Z", "2019-03-01T10:30:15.500000Z", .fraction),
        ("2019-03-01T10:30:15.123456Z", "2019-03-01T10:30:15.123456Z", .fraction),
        ("2019-03-01T10:30:15.123456789Z", "2019-03-01T10:30:15.123456789Z", .fraction),
        ("2019-03-01T10:30:15.0000001Z", "2019-03-01T10:30:15.000000100Z", .fraction),
        ("2019-03-01T10:30:15.1234567+01:00", "2019-03-01T09:30:15.123456700Z", .fraction),
        ("1969-12-31T23:59:59.999999999Z", "1969-12-31T23:59:59.999999999Z", .fraction),
        ("0001-01-01T00:00:00.000000001+14:00", "0000-12-31T10:00:00.000000001Z", .fraction),
        ("2019-03-01T10:30+05:30", "2019-03-01T05:00:00Z", .minute),
        ("2019-03-01T10:30-00:00", "2019-03-01T10:30:00Z", .minute),
        ("2019-03-01T00:30+01:00", "2019-02-28T23:30:00Z", .minute),
        ("2019-12-31T23:59:59-01:00", "2020-01-01T00:59:59Z", .second),
        ("2024-02-29T23:59:59.999999Z", "2024-02-29T23:59:59.999999Z", .fraction),
        ("0001-01-01T00:00Z", "0001-01-01T00:00:00Z", .minute),
        ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z", .second),
    ]

    @Test(arguments: valid)
    func parsesValidText(_ text: String, _ utc: String, _ precision: DateValue.Precision) throws {
        let value = try DateValue(parsing: text)
        #expect(value.text == text)
        #expect(value.instant.description == utc)
        #expect(value.precision == precision)
    }

    /// Invalid texts and the exact reason given.
    static let invalid: [(String, String)] = [
        ("", "empty; " + DateValueParser.formsHint),
        ("2019-3-1", "month must be two digits, 01–12"),
        ("2019-13", "month must be 01–12"),
        ("2019-00", "month must be 01–12"),
        ("0000", "year must be 0001–9999"),
        ("10000", "year must be four digits (0001–9999)"),
        ("19", "year must be four digits; " + DateValueParser.formsHint),
        ("abcd", "year must be four digits; " + DateValueParser.formsHint),
        ("2019/03", "expected \"-\" after the year; " + DateValueParser.formsHint),
        ("2023-02-29", "day must be 01–28: 2023 is not a leap year"),
        ("1900-02-29", "day must be 01–28: 1900 is not a leap year"),
        ("2024-02-30", "day must be 01–29 in month 02"),
        ("2019-04-31", "day must be 01–30 in month 04"),
        ("2019-01-32", "day must be 01–31 in month 01"),
        ("2019-01-00", "day must be 01–31 in month 01"),
        ("2019-01-1", "day must be two digits"),
        ("2019-01-01T10:30", "a time needs an offset: Z or ±HH:MM"),
        ("2019-01-01T24:00Z", "hour must be 00–23"),
        ("2019-01-01T10:60Z", "minute must be 00–59"),
        ("2019-01-01T10:30:60Z", "second must be 00–59"),
        ("2019-01-01T10Z", "time must be HH:MM"),
        ("2019-01-01T10:30:15.Z", "fraction of a second must have at least one digit"),
        ("2019-01-01T10:30:15.1234567890Z", "fraction of a second must have at most 9 digits (nanoseconds), not 10"),
        ("2019-01-01T10:30:15.123456789012Z", "fraction of a second must have at most 9 digits (nanoseconds), not 12"),
        ("2019-01-01T10:30+5:30", "offset must be Z or ±HH:MM"),
        ("2019-01-01T10:30+24:00", "offset must be within ±23:59"),
        ("2019-01-01T10:30z", "a time needs an offset: Z or ±HH:MM"),
        ("2019-01-01t10:30Z", "expected \"T\" and a time after the day; " + DateValueParser.formsHint),
        ("2019-01-01 10:30Z", "expected \"T\" and a time after the day; " + DateValueParser.formsHint),
        ("2019-01-01T10:30ZZ", "unexpected text after the offset"),
        (" 2019", "year must be four digits; " + DateValueParser.formsHint),
        ("2019 ", "expected \"-\" after the year; " + DateValueParser.formsHint),
        ("-2019", "year must be four digits; " + DateValueParser.formsHint),
        ("２０１９", "year must be four digits; " + DateValueParser.formsHint),
    ]

    @Test(arguments: invalid)
    func rejectsInvalidText(_ text: String, _ reason: String) {
        #expect(throws: DateValueError(value: text, reason: reason)) { try DateValue(parsing: text) }
    }

    @Test func errorMessageQuotesTheValue() {
        let error = DateValueError(value: "2019-13", reason: "month must be 01–12")
        #expect(error.description == "date \"2019-13\": month must be 01–12")
    }

    @Test func ordersByInstantThenText() throws {
        let year = try DateValue(parsing: "2019")
        let day = try DateValue(parsing: "2019-01-01")
        let later = try DateValue(parsing: "2019-01-01T00:00:01Z")
        #expect(year.instant == day.instant)
        #expect(year != day)
        #expect(year < day)  // same instant: text decides, so < agrees with ==
        #expect(day < later)
        #expect(try DateValue(parsing: "2019-03-01T10:30+05:30").instant == DateValue(parsing: "2019-03-01T05:00Z").instant)
    }

    /// A stamp (``DateValue/init(utc:)``) keeps no text and writes it out when read: it
    /// must equal, hash and order as the value parsed from that text does.
    @Test func aStampIsTheValueOfItsText() throws {
        var rng = SplitMix64(seed: 0x57A3)
        var stamps = Set<DateValue>()
        for _ in 0..<2_000 {
            var micros = Int64(rng.next() % 250_000_000_000_000)
            if rng.chance(50) { micros -= micros % 1_000_000 }
            let stamp = DateValue(utc: Instant(microsecondsSinceEpoch: micros))
            let parsed = try DateValue(parsing: stamp.text)
            #expect(stamp.utcInstant == stamp.instant && parsed.utcInstant == nil)
            #expect(stamp == parsed && parsed == stamp, "\(stamp)")
            #expect(stamp.hashValue == parsed.hashValue)
            #expect(!(stamp < parsed) && !(parsed < stamp))
            #expect(stamp.precision == parsed.precision && stamp.description == parsed.text)
            stamps.insert(stamp)
            stamps.insert(parsed)
        }
        #expect(stamps.count <= 2_000)
        // The same instant written another way is another value, ordered by its text.
        let stamp = DateValue(utc: try DateValue(parsing: "2019-03-01T05:00:00Z").instant)
        let offset = try DateValue(parsing: "2019-03-01T10:30:00+05:30")
        #expect(stamp.instant == offset.instant && stamp != offset)
        #expect(stamp < offset && !(offset < stamp))  // the same instant: the text decides
        #expect(DateValue(utc: Instant(microsecondsSinceEpoch: 0)) != DateValue(utc: Instant(microsecondsSinceEpoch: 1)))
    }

    /// The record reader keeps no text for a date written as its instant's own UTC text
    /// (every `at` of a store's log): that value is the stamp of its instant, which writes
    /// the same text out. Any other text is kept as written.
    @Test func aDateReadAsItsInstantsUTCTextIsAStamp() throws {
        func read(_ text: String) throws -> DateValue {
            var copy = text
            return try copy.withUTF8 { bytes in
                let parsed = try DateValueParser.parse(bytes).get()
                return DateValue(parsed: bytes, instant: parsed.instant, precision: parsed.precision)
            }
        }
        for text in ["2026-12-01T06:47:31Z", "2019-03-01T10:30:00.500000Z", "2019-03-01T10:30:00.000000200Z",
                     "0001-01-01T00:00:00Z"] {
            let value = try read(text)
            let parsed = try DateValue(parsing: text)
            #expect(value.utcInstant == parsed.instant, "\(text)")
            #expect(value.text == text && value == parsed && value.hashValue == parsed.hashValue)
            #expect(value.precision == parsed.precision)
        }
        for text in ["2019-03-01T10:30:00.5Z", "2019-03-01T10:30Z", "2019-03-01T10:30:00+00:00",
                     "2019-03-01T10:30:00.000000Z", "2019-03-01T10:30:00.000000000Z", "2019", "2019-03-01"] {
            let value = try read(text)
            #expect(value.utcInstant == nil, "\(text)")
            let parsed = try DateValue(parsing: text)
            #expect(value.text == text && value == parsed)
        }
        // Through the reader: a store's line keeps its stamp as a stamp, a hand-written
        // `at` in another form keeps its text.
        let stamp = DateValue(utc: try DateValue(parsing: "2026-12-01T06:47:31Z").instant)
        let line = RecordEncoder().encode(Record(position: 1, fact: .timelineRemoved(timeline: TimelineID("life")),
                                                 recordedAt: stamp, commandID: nil, batchRemainder: 0))
        let stored = try LogReader().read(line).records[0].recordedAt
        #expect(stored?.utcInstant == stamp.instant && stored == stamp)
        let hand = #"{"seq":1,"type":"timelineRemoved","data":{"timeline":"life"},"at":"2026-12-01T07:47:31+01:00"}"#
        let written = try LogReader().read(Array((hand + "\n").utf8)).records[0].recordedAt
        #expect(written?.utcInstant == nil && written?.text == "2026-12-01T07:47:31+01:00")
    }

    @Test func civilCalendarRoundTripsEveryDayOfFourCenturies() {
        var days = CivilCalendar.daysFromCivil(year: 1800, month: 1, day: 1)
        for year in 1800..<2200 {
            for month in 1...12 {
                for day in 1...CivilCalendar.daysInMonth(month, year: year) {
                    #expect(CivilCalendar.daysFromCivil(year: year, month: month, day: day) == days)
                    let back = CivilCalendar.civilFromDays(days)
                    if back != (year, month, day) { Issue.record("\(year)-\(month)-\(day) came back as \(back)") }
                    days += 1
                }
            }
        }
    }

    /// A year, month or day has one text, so a store may keep its instant and precision
    /// alone: rebuilding the text gives the parsed value back, for every day of the years
    /// at both ends of the range and around the epoch.
    @Test(arguments: [1, 2, 1899, 1900, 1969, 1970, 2000, 2024, 9998, 9999])
    func aCanonicalTextComesBackFromItsInstant(year: Int) throws {
        func pad(_ value: Int, _ width: Int) -> String { DecimalDigits.padded(value, width: width) }
        var texts = [pad(year, 4)]
        for month in 1...12 {
            texts.append(pad(year, 4) + "-" + pad(month, 2))
            for day in 1...CivilCalendar.daysInMonth(month, year: year) {
                texts.append(pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2))
            }
        }
        for text in texts {
            let parsed = try DateValue(parsing: text)
            #expect(parsed.hasCanonicalText)
            let rebuilt = DateValue(canonical: parsed.instant, precision: parsed.precision)
            #expect(rebuilt == parsed, "\(text) came back as \(rebuilt.text)")
        }
    }

    /// Timestamps keep their own text: an offset or a fraction does not follow from the instant.
    @Test(arguments: ["2019-03-01T10:30+05:30", "2019-03-01T05:00Z", "2019-03-01T05:00:00.5Z"])
    func aTimestampHasNoCanonicalText(text: String) throws {
        #expect(try !DateValue(parsing: text).hasCanonicalText)
        #expect(!DateValue(utc: Instant(microsecondsSinceEpoch: 0)).hasCanonicalText)
    }

    // MARK: Fractions exact to the nanosecond

    @Test func fractionsOrderToTheNanosecond() throws {
        let earlier = try DateValue(parsing: "2019-03-01T10:30:00.0000001Z")
        let later = try DateValue(parsing: "2019-03-01T10:30:00.0000002Z")
        #expect(earlier.instant < later.instant)
        #expect(earlier.instant != later.instant)
        #expect(earlier < later)
        #expect(earlier.instant.microsecondsSinceEpoch == later.instant.microsecondsSinceEpoch)
        #expect(earlier.instant.nanosecondsPastMicrosecond == 100)
        #expect(later.instant.nanosecondsPastMicrosecond == 200)
        // The same instant written with other digits or another offset.
        #expect(try DateValue(parsing: "2019-03-01T11:30:00.000000200+01:00").instant == later.instant)
        #expect(try DateValue(parsing: "2019-03-01T10:30:00.000001Z").instant
            > DateValue(parsing: "2019-03-01T10:30:00.000000999Z").instant)
    }

    @Test func aTimestampKeepsItsTextExactly() throws {
        for text in ["2019-03-01T10:30:00.0000001Z", "2019-03-01T10:30:00.100000000+05:30", "2019-03-01T10:30:00.1234567-00:00"] {
            let value = try DateValue(parsing: text)
            #expect(value.text == text)
            #expect(value.description == text)
        }
    }

    @Test func aValueOfAnInstantWithNanosecondsWritesThemAndParsesBack() throws {
        let instant = try DateValue(parsing: "2019-03-01T10:30:00.0000002Z").instant
        let stamp = DateValue(utc: instant)
        #expect(stamp.text == "2019-03-01T10:30:00.000000200Z")
        #expect(stamp.precision == .fraction)
        #expect(try DateValue(parsing: stamp.text) == stamp)
        #expect(try DateValue(parsing: stamp.text).instant == instant)
    }

    @Test func aTenthDigitIsRefusedQuotingTheValue() {
        #expect(throws: DateValueError(value: "2019-03-01T10:30:00.0000000001Z",
                                       reason: "fraction of a second must have at most 9 digits (nanoseconds), not 10")) {
            try DateValue(parsing: "2019-03-01T10:30:00.0000000001Z")
        }
        let message = DateValueError(value: "2019-03-01T10:30:00.0000000001Z", reason: "r").description
        #expect(message.hasPrefix(#"date "2019-03-01T10:30:00.0000000001Z""#))
    }
}
