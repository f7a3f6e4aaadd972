extension DateValue {
    /// Parses one of the accepted forms, or throws an error that quotes the text and names the rule.
    ///
    /// Accepted: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, and `YYYY-MM-DDTHH:MM[:SS[.fraction]]`
    /// followed by `Z` or `±HH:MM`; years 0001–9999, real calendar days, hours 00–23,
    /// minutes and seconds 00–59, offsets up to ±23:59, fractions of 1–9 digits (the
    /// instant is exact to the nanosecond).
    /// - Complexity: O(*n*) in the length of the text.
    public init(parsing text: String) throws(DateValueError) {
        var copy = text
        let result = copy.withUTF8 { bytes in DateValueParser.parse(bytes) }
        switch result {
        case .success(let parsed):
            self.init(text: text, instant: parsed.instant, precision: parsed.precision)
        case .failure(let failure):
            throw DateValueError(value: text, reason: failure.reason)
        }
    }
}

/// The byte-level parser behind ``DateValue/init(parsing:)``; also used directly by the record reader.
enum DateValueParser {
    struct Parsed {
        var instant: Instant
        var precision: DateValue.Precision
    }

    struct Failure: Error {
        var reason: String
    }

    static let formsHint = "expected YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS[.fraction]] with Z or ±HH:MM"

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    static func parse(_ s: UnsafeBufferPointer<UInt8>) -> Result<Parsed, Failure> {
        func fail(_ reason: String) -> Result<Parsed, Failure> { .failure(Failure(reason: reason)) }
        let n = s.count
        if n == 0 { return fail("empty; " + formsHint) }
        @inline(__always) func digit(_ i: Int) -> Int? {
            guard i < n else { return nil }
            let c = s[i]
            return c >= 48 && c <= 57 ? Int(c - 48) : nil
        }
        @inline(__always) func twoDigits(_ i: Int) -> Int? {
            guard let a = digit(i), let b = digit(i + 1) else { return nil }
            return a * 10 + b
        }
        // Year.
        guard let y1 = digit(0), let y2 = digit(1), let y3 = digit(2), let y4 = digit(3) else {
            return fail("year must be four digits; " + formsHint)
        }
        if n > 4, digit(4) != nil { return fail("year must be four digits (0001–9999)") }
        let year = y1 * 1000 + y2 * 100 + y3 * 10 + y4
        if year == 0 { return fail("year must be 0001–9999") }
        if n == 4 { return .success(Parsed(instant: dayInstant(year, 1, 1), precision: .year)) }
        guard s[4] == 0x2D else { return fail("expected \"-\" after the year; " + formsHint) }
        // Month.
        guard let month = twoDigits(5), n == 7 || (n > 7 && digit(7) == nil) else {
            return fail("month must be two digits, 01–12")
        }
        guard (1...12).contains(month) else { return fail("month must be 01–12") }
        if n == 7 { return .success(Parsed(instant: dayInstant(year, month, 1), precision: .month)) }
        guard s[7] == 0x2D else { return fail("expected \"-\" after the month; " + formsHint) }
        // Day.
        guard let day = twoDigits(8), n == 10 || (n > 10 && digit(10) == nil) else {
            return fail("day must be two digits")
        }
        let monthDays = CivilCalendar.daysInMonth(month, year: year)
        guard day >= 1, day <= monthDays else {
            if month == 2, day == 29 { return fail("day must be 01–28: \(pad4(year)) is not a leap year") }
            return fail("day must be 01–\(monthDays) in month \(pad2(month))")
        }
        if n == 10 { return .success(Parsed(instant: dayInstant(year, month, day), precision: .day)) }
        guard s[10] == 0x54 else { return fail("expected \"T\" and a time after the day; " + formsHint) }
        // Time.
        guard let hour = twoDigits(11), n > 13, s[13] == 0x3A else { return fail("time must be HH:MM") }
        guard hour <= 23 else { return fail("hour must be 00–23") }
        guard let minute = twoDigits(14), n == 16 || (n > 16 && digit(16) == nil) else {
            return fail("minute must be two digits")
        }
        guard minute <= 59 else { return fail("minute must be 00–59") }
        var i = 16
        var second = 0
        var nanos: Int64 = 0
        var precision = DateValue.Precision.minute
        if i < n, s[i] == 0x3A {
            guard let sec = twoDigits(i + 1), i + 3 == n || digit(i + 3) == nil else {
                return fail("second must be two digits")
            }
            guard sec <= 59 else { return fail("second must be 00–59") }
            second = sec
            precision = .second
            i += 3
            if i < n, s[i] == 0x2E {
                i += 1
                var digits = 0
                while let d = digit(i) {
                    if digits < 9 { nanos = nanos * 10 + Int64(d) }
                    digits += 1
                    i += 1
                }
                guard digits > 0 else { return fail("fraction of a second must have at least one digit") }
                guard digits <= 9 else {
                    return fail("fraction of a second must have at most 9 digits (nanoseconds), not \(digits)")
                }
                for _ in digits..<9 { nanos *= 10 }
                precision = .fraction
            }
        }
        // Offset.
        guard i < n else { return fail("a time needs an offset: Z or ±HH:MM") }
        var offsetMinutes = 0
        switch s[i] {
        case 0x5A:
            i += 1
        case 0x2B, 0x2D:
            let sign = s[i] == 0x2D ? -1 : 1
            guard let oh = twoDigits(i + 1), i + 3 < n, s[i + 3] == 0x3A, let om = twoDigits(i + 4) else {
                return fail("offset must be Z or ±HH:MM")
            }
            guard oh <= 23, om <= 59 else { return fail("offset must be within ±23:59") }
            offsetMinutes = sign * (oh * 60 + om)
            i += 6
        default:
            return fail("a time needs an offset: Z or ±HH:MM")
        }
        guard i == n else { return fail("unexpected text after the offset") }
        let local = dayInstant(year, month, day).microsecondsSinceEpoch
            + Int64(hour * 3600 + minute * 60 + second) * 1_000_000 + nanos / 1000
        return .success(Parsed(
            instant: Instant(microsecondsSinceEpoch: local - Int64(offsetMinutes) * 60_000_000,
                             nanosecondsPastMicrosecond: Int(nanos % 1000)),
            precision: precision))
    }

    @inline(__always)
    static func dayInstant(_ year: Int, _ month: Int, _ day: Int) -> Instant {
        Instant(microsecondsSinceEpoch: CivilCalendar.daysFromCivil(year: year, month: month, day: day)
            * CivilCalendar.microsecondsPerDay)
    }

    private static func pad2(_ v: Int) -> String { DecimalDigits.padded(v, width: 2) }
    private static func pad4(_ v: Int) -> String { DecimalDigits.padded(v, width: 4) }
}
