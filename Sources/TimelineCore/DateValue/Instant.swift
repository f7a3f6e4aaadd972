import Foundation

/// A point in time, exact to the nanosecond: microseconds since 1970-01-01T00:00:00Z
/// (UTC), and the nanoseconds past that microsecond.
///
/// Nanoseconds since 1970 do not fit in 64 bits for years 0001–9999 (±292 years do), so
/// an instant keeps its microseconds and a sub-microsecond part (0–999) apart, and
/// orders by both. Every ``DateValue`` has an instant; ongoing rows sort at "now", which
/// is also an instant.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z; negative before it.
    public var microsecondsSinceEpoch: Int64
    /// The nanoseconds past ``microsecondsSinceEpoch``, 0–999 (a fraction of a second of
    /// seven to nine digits).
    @usableFromInline package let nanosecondsPastMicrosecond: UInt16

    /// Creates an instant from microseconds since 1970-01-01T00:00:00Z.
    @inlinable
    package init(microsecondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
        self.nanosecondsPastMicrosecond = 0
    }

    /// Creates an instant from microseconds since 1970-01-01T00:00:00Z and the
    /// nanoseconds past them, which must be 0–999.
    @inlinable
    package init(microsecondsSinceEpoch: Int64, nanosecondsPastMicrosecond: Int) {
        precondition((0..<1000).contains(nanosecondsPastMicrosecond), "nanoseconds past a microsecond are 0–999")
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
        self.nanosecondsPastMicrosecond = UInt16(nanosecondsPastMicrosecond)
    }

    /// Creates an instant from a Foundation date, truncated to the microsecond below.
    public init(_ date: Date) {
        self.init(microsecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down)))
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

    /// The earliest instant a date value can have (0001-01-01T00:00:00Z less the largest offset).
    package static let distantPast = Instant(microsecondsSinceEpoch: -62_135_596_800_000_000 - 86_400_000_000)

    /// The latest instant a date value can have.
    package static let distantFuture = Instant(microsecondsSinceEpoch: 253_402_300_800_000_000 + 86_400_000_000)

    /// The instant as UTC text, `YYYY-MM-DDTHH:MM:SSZ` with `.ffffff` (or `.fffffffff`
    /// for a sub-microsecond part) when it has a fraction of a second.
    public var description: String { InstantFormatter.iso8601(self) }
}
