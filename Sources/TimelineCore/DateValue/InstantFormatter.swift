/// Formats instants as UTC text.
enum InstantFormatter {
    /// The longest UTC text of an instant: a sign, a year of up to 19 digits, the rest of
    /// `-MM-DDTHH:MM:SS.fffffffffZ`.
    static let maximumLength = 1 + 19 + 26

    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.ffffff` when the instant has a fraction of a second,
    /// `.fffffffff` when it has a sub-microsecond part.
    static func iso8601(_ instant: Instant) -> String {
        // Written as bytes straight into the string's storage: no string interpolation,
        // and no array of bytes (an allocation more) first.
        let parts = Parts(instant)
        return String(unsafeUninitializedCapacity: parts.count) { buffer in
            parts.write(to: buffer.baseAddress!)
        }
    }

    /// Writes ``iso8601(_:)``'s text of `instant` to `bytes`, which must have room for
    /// ``maximumLength`` bytes; returns how many it wrote.
    static func write(_ instant: Instant, to bytes: UnsafeMutablePointer<UInt8>) -> Int {
        Parts(instant).write(to: bytes)
    }

    /// An instant's calendar fields, and the length of its text.
    private struct Parts {
        let year: Int, month: Int, day: Int, seconds: Int, fraction: Int, nanoseconds: Int
        let count: Int

        init(_ instant: Instant) {
            let micros = instant.microsecondsSinceEpoch
            var days = micros / CivilCalendar.microsecondsPerDay
            var rest = micros % CivilCalendar.microsecondsPerDay
            if rest < 0 {
                rest += CivilCalendar.microsecondsPerDay
                days -= 1
            }
            (year, month, day) = CivilCalendar.civilFromDays(days)
            seconds = Int(rest / 1_000_000)
            fraction = Int(rest % 1_000_000)
            nanoseconds = Int(instant.nanosecondsPastMicrosecond)
            count = DecimalDigits.count(of: year, width: 4) + (year < 0 ? 1 : 0) + 16
                + (nanoseconds != 0 ? 10 : fraction != 0 ? 7 : 0)
        }

        func write(to bytes: UnsafeMutablePointer<UInt8>) -> Int {
            let buffer = UnsafeMutableBufferPointer(start: bytes, count: count)
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
            if nanoseconds != 0 {
                put(".")
                put(fraction * 1000 + nanoseconds, width: 9)
            } else if fraction != 0 {
                put(".")
                put(fraction, width: 6)
            }
            put("Z")
            return at
        }
    }
}
