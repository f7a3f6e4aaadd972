import Foundation

/// A point in time, exact to the nanosecond: microseconds since 1970-01-01T00:00:00Z
/// (UTC), and the nanoseconds past that microsecond.
///
/// Nanoseconds since 1970 do not fit in 64 bits for years 0001–9999 (±292 years do), so
/// an instant keeps its microseconds and a sub-microsecond part (0–999) apart, and
/// orders by both. Every ``DateValue`` has an instant; ongoing rows sort at "now", which
/// is also an instant.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z; negative before it. Setting it moves the
    /// instant by whole microseconds (its sub-microsecond part stays).
    public var microsecondsSinceEpoch: Int64
    /// The nanoseconds past ``microsecondsSinceEpoch``, 0–999 (a fraction of a second of
    /// seven to nine digits).
    public let nanosecondsPastMicrosecond: UInt16

    /// Creates an instant from microseconds since 1970-01-01T00:00:00Z and the nanoseconds
    /// past them, exactly.
    ///
    /// - Precondition: `nanosecondsPastMicrosecond` is 0–999 (a whole microsecond more is
    ///   one more in `microsecondsSinceEpoch`).
    @inlinable
    public init(microsecondsSinceEpoch: Int64, nanosecondsPastMicrosecond: Int = 0) {
        precondition((0..<1000).contains(nanosecondsPastMicrosecond), "nanoseconds past a microsecond are 0–999")
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
        self.nanosecondsPastMicrosecond = UInt16(nanosecondsPastMicrosecond)
    }

    /// Creates the instant of a Foundation date, exactly to the nanosecond: the latest
    /// nanosecond at or before the date (a `Date` holds binary fractions of a second, which
    /// nanoseconds cannot always express).
    ///
    /// The date's own value is read (seconds since 2001 as a binary fraction) and converted
    /// with integer arithmetic: no rounding through a `Double` product or sum.
    /// - Precondition: the date is finite and within about ±292,000 years of 1970 (what
    ///   64-bit microseconds hold); every ``DateValue``'s instant is.
    public init(_ date: Date) {
        self = Instant.exact(secondsSince2001: date.timeIntervalSinceReferenceDate)
    }

    /// The instant of the system clock now.
    @usableFromInline package static var now: Instant { Instant(Date()) }

    /// Compares two instants chronologically, to the nanosecond.
    @inlinable
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        if lhs.microsecondsSinceEpoch != rhs.microsecondsSinceEpoch {
            return lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch
        }
        return lhs.nanosecondsPastMicrosecond < rhs.nanosecondsPastMicrosecond
    }

    /// The instant `seconds` after 2001-01-01T00:00:00Z, rounded down to the nanosecond.
    ///
    /// A finite `Double` is `significand × 2^exponent` exactly; the whole nanoseconds in it
    /// are that product times 10⁹, divided by a power of two and rounded toward −∞, which
    /// 128-bit integers compute without any rounding on the way.
    static func exact(secondsSince2001 seconds: Double) -> Instant {
        precondition(seconds.isFinite, "a date with a finite time interval")
        let magnitude = seconds.magnitude
        // magnitude = significand × 2^shift, significand < 2^53.
        let significand = UInt128(magnitude.significandBitPattern)
            | (magnitude.isNormal ? UInt128(1) << Double.significandBitCount : 0)
        let shift = magnitude.isNormal ? Int(magnitude.exponent) - Double.significandBitCount
            : Int(Double.leastNormalMagnitude.exponent) - Double.significandBitCount
        // Whole nanoseconds (rounded toward zero) and whether a fraction of one was dropped.
        var nanoseconds: UInt128
        var dropped = false
        if shift >= 0 {
            precondition(shift < 40, "a date within about ±292,000 years of 1970")
            nanoseconds = (significand << shift) * 1_000_000_000
        } else {
            let product = significand * 1_000_000_000  // < 2^83
            if -shift >= 128 {
                nanoseconds = 0
                dropped = product != 0
            } else {
                nanoseconds = product >> (-shift)
                dropped = nanoseconds << (-shift) != product
            }
        }
        // Rounded toward −∞: a negative interval with a dropped fraction is one nanosecond earlier.
        let limit = UInt128(Int64.max / 2) * 1000
        precondition(nanoseconds < limit, "a date within about ±292,000 years of 1970")
        var signed = Int128(nanoseconds)
        if seconds < 0 { signed = -signed - (dropped ? 1 : 0) }
        // 2001-01-01T00:00:00Z is 978,307,200 s after 1970.
        signed += 978_307_200 * 1_000_000_000
        let (micro, nano) = signed.quotientAndRemainder(dividingBy: 1000)
        // quotientAndRemainder truncates toward zero: borrow a microsecond for a negative remainder.
        let floorMicro = nano < 0 ? micro - 1 : micro
        let floorNano = nano < 0 ? nano + 1000 : nano
        precondition(floorMicro >= Int128(Int64.min) && floorMicro <= Int128(Int64.max),
                     "a date within about ±292,000 years of 1970")
        return Instant(microsecondsSinceEpoch: Int64(floorMicro), nanosecondsPastMicrosecond: Int(floorNano))
    }

    /// The earliest instant a date value can have (0001-01-01T00:00:00Z less the largest offset).
    package static let distantPast = Instant(microsecondsSinceEpoch: -62_135_596_800_000_000 - 86_400_000_000)

    /// The latest instant a date value can have.
    package static let distantFuture = Instant(microsecondsSinceEpoch: 253_402_300_800_000_000 + 86_400_000_000)

    /// The instant as UTC text, `YYYY-MM-DDTHH:MM:SSZ` with `.ffffff` (or `.fffffffff`
    /// for a sub-microsecond part) when it has a fraction of a second.
    public var description: String { InstantFormatter.iso8601(self) }
}
