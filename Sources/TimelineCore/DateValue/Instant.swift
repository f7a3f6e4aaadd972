import Foundation

/// A point in time, counted in microseconds since 1970-01-01T00:00:00Z (UTC).
///
/// Every ``DateValue`` has an instant; ongoing rows sort at "now", which is also an instant.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z; negative before it.
    public var microsecondsSinceEpoch: Int64

    /// Creates an instant from microseconds since 1970-01-01T00:00:00Z.
    @inlinable
    public init(microsecondsSinceEpoch: Int64) { self.microsecondsSinceEpoch = microsecondsSinceEpoch }

    /// Creates an instant from a Foundation date, truncated to the microsecond below.
    public init(_ date: Date) {
        self.microsecondsSinceEpoch = Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
    }

    /// The instant of the system clock now.
    public static var now: Instant { Instant(Date()) }

    /// Compares two instants chronologically.
    @inlinable
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch
    }

    /// The earliest instant a date value can have (0001-01-01T00:00:00Z less the largest offset).
    public static let distantPast = Instant(microsecondsSinceEpoch: -62_135_596_800_000_000 - 86_400_000_000)

    /// The latest instant a date value can have.
    public static let distantFuture = Instant(microsecondsSinceEpoch: 253_402_300_800_000_000 + 86_400_000_000)

    /// The instant as UTC text, `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
    public var description: String { InstantFormatter.iso8601(self) }
}
