/// Formats instants as UTC text.
enum InstantFormatter {
    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.ffffff` when the instant has a fraction of a second.
    static func iso8601(_ instant: Instant) -> String {
        let micros = instant.microsecondsSinceEpoch
        var days = micros / CivilCalendar.microsecondsPerDay
        var rest = micros % CivilCalendar.microsecondsPerDay
        if rest < 0 {
            rest += CivilCalendar.microsecondsPerDay
            days -= 1
        }
        let (year, month, day) = CivilCalendar.civilFromDays(days)
        let seconds = Int(rest / 1_000_000)
        let fraction = Int(rest % 1_000_000)
        // Written as bytes straight into the string's storage: string interpolation cost
        // 6,800 instructions per instant (callgrind), an array of bytes first an allocation
        // more, and every recorded command formats one.
        let yearDigits = DecimalDigits.count(of: year, width: 4)
        let count = yearDigits + (year < 0 ? 1 : 0) + 16 + (fraction != 0 ? 7 : 0)
        return String(unsafeUninitializedCapacity: count) { buffer in
            var at = 0
            func put(_ value: Int, width: Int) {
                at = DecimalDigits.write(value, width: width, into: buffer, at: at)
            }
            func put(_ character: Unicode.Scalar) {
                buffer[at] = UInt8(ascii: character)
                at += 1
            }
            put(year, width: 4)
            put("-")
            put(month, width: 2)
            put("-")
            put(day, width: 2)
            put("T")
            put(seconds / 3600, width: 2)
            put(":")
            put(seconds / 60 % 60, width: 2)
            put(":")
            put(seconds % 60, width: 2)
            if fraction != 0 {
                put(".")
                put(fraction, width: 6)
            }
            put("Z")
            return at
        }
    }
}
