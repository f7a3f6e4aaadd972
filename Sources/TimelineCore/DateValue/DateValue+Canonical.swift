extension DateValue {
    /// Whether the text follows from the instant and the precision alone: a year, a month
    /// or a day has one written form (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`) and starts at UTC
    /// midnight, so a store may keep its instant and precision and drop the text
    /// (see ``init(canonical:precision:)``).
    package var hasCanonicalText: Bool { precision <= .day }

    /// The year, month or day that starts at `instant`, written in its one form: the value
    /// parsing that text gives.
    ///
    /// `instant` must be the start of a year, month or day (per `precision`) in years
    /// 0001–9999, as the instant of a parsed value of that precision is.
    /// - Complexity: O(1), without allocating: the text fits a small string.
    package init(canonical instant: Instant, precision: Precision) {
        precondition(precision <= .day, "only years, months and days have a canonical text")
        var days = instant.microsecondsSinceEpoch / CivilCalendar.microsecondsPerDay
        if instant.microsecondsSinceEpoch % CivilCalendar.microsecondsPerDay < 0 { days -= 1 }
        let (year, month, day) = CivilCalendar.civilFromDays(days)
        let count = precision == .year ? 4 : precision == .month ? 7 : 10
        let text = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { bytes in
            _ = DecimalDigits.write(year, width: 4, into: bytes, at: 0)
            bytes[4] = UInt8(ascii: "-")
            _ = DecimalDigits.write(month, width: 2, into: bytes, at: 5)
            bytes[7] = UInt8(ascii: "-")
            _ = DecimalDigits.write(day, width: 2, into: bytes, at: 8)
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<count]), as: UTF8.self)
        }
        self.init(text: text, instant: instant, precision: precision)
    }
}
