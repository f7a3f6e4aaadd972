import Foundation
import Testing
import TimelineKit

/// An instant is made exactly: from microseconds and nanoseconds, and from a `Date` to the
/// nanosecond, with no rounding through a `Double` product.
@Suite("Instants, made exactly")
struct InstantTests {
    @Test func fromMicrosecondsAndNanoseconds() {
        let instant = Instant(microsecondsSinceEpoch: 1_000_001, nanosecondsPastMicrosecond: 250)
        #expect(instant.microsecondsSinceEpoch == 1_000_001 && instant.nanosecondsPastMicrosecond == 250)
        #expect(Instant(microsecondsSinceEpoch: 1_000_001) < instant)
        #expect(instant.description == "1970-01-01T00:00:01.000001250Z")
        #expect(Instant(microsecondsSinceEpoch: -1).description == "1969-12-31T23:59:59.999999Z")
    }

    /// A `Date`'s own value (seconds since 2001) is read exactly, and rounded down to the
    /// nanosecond: 5 ns after 2001 is not truncated to the microsecond, and a date a
    /// fraction of a nanosecond before 2001 is the nanosecond before.
    @Test func fromADateToTheNanosecond() {
        let reference = Int64(978_307_200_000_000)  // 2001-01-01T00:00:00Z
        #expect(Instant(Date(timeIntervalSinceReferenceDate: 0)) == Instant(microsecondsSinceEpoch: reference))
        #expect(Instant(Date(timeIntervalSinceReferenceDate: 0.000_000_005))
            == Instant(microsecondsSinceEpoch: reference, nanosecondsPastMicrosecond: 5))
        #expect(Instant(Date(timeIntervalSinceReferenceDate: -0.000_000_000_5))
            == Instant(microsecondsSinceEpoch: reference - 1, nanosecondsPastMicrosecond: 999))
        #expect(Instant(Date(timeIntervalSince1970: -1.5)) == Instant(microsecondsSinceEpoch: -1_500_000))
        #expect(Instant(Date(timeIntervalSince1970: 0.25)) == Instant(microsecondsSinceEpoch: 250_000))
        // 2^-20 s is 953.674316… ns: 953 ns past the microsecond, which microseconds alone lost.
        #expect(Instant(Date(timeIntervalSinceReferenceDate: 0x1p-20))
            == Instant(microsecondsSinceEpoch: reference, nanosecondsPastMicrosecond: 953))
    }

    /// A date value's instant (of this century or so, where a `Double`'s seconds hold
    /// microseconds) comes back from the `Date` nearest it within a microsecond.
    @Test func aDateValueRoundTripsWithinItsMicrosecond() throws {
        for text in ["1990-04-12", "2019-03-01T12:30:15.123456Z", "1969-12-31T23:59:59.5Z", "2070-07-04T00:00:00.000001Z"] {
            let instant = try DateValue(parsing: text).instant
            let seconds = Double(instant.microsecondsSinceEpoch - 978_307_200_000_000) / 1_000_000
            let back = Instant(Date(timeIntervalSinceReferenceDate: seconds))
            #expect(abs(back.microsecondsSinceEpoch - instant.microsecondsSinceEpoch) <= 1, "\(text)")
        }
    }
}
