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
        let seconds = rest / 1_000_000
        let fraction = rest % 1_000_000
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(Int(seconds / 3600), 2) + ":" + pad(Int(seconds / 60 % 60), 2) + ":" + pad(Int(seconds % 60), 2)
        if fraction != 0 { text += "." + pad(Int(fraction), 6) }
        return text + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
