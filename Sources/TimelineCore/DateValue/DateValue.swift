/// A date as the user wrote it: a year, a month, a day, or a timestamp with an offset.
///
/// A date value keeps its text (and so its precision) for display, and has an
/// ``instant`` for ordering: a partial or calendar date is the start of its period at
/// UTC midnight (`2019` is 2019-01-01T00:00:00Z); a timestamp is its UTC instant. A
/// store's own stamp (a record's `at`) keeps only its instant, and writes its text, the
/// instant's UTC text, when it is read.
///
/// Accepted forms: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, and
/// `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or `±HH:MM`, years 0001–9999.
/// Create one with ``init(parsing:)``.
public struct DateValue: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// How much of a date the text gives.
    public enum Precision: Int, Hashable, Sendable, Comparable {
        /// `YYYY`.
        case year
        /// `YYYY-MM`.
        case month
        /// `YYYY-MM-DD`.
        case day
        /// `YYYY-MM-DDTHH:MM` with an offset.
        case minute
        /// `YYYY-MM-DDTHH:MM:SS` with an offset.
        case second
        /// `YYYY-MM-DDTHH:MM:SS.fraction` with an offset.
        case fraction

        /// Orders precisions from the coarsest (year) to the finest (fraction).
        public static func < (lhs: Precision, rhs: Precision) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The text as written; `nil` for a value made by ``init(utc:)``, whose text is
    /// its instant's UTC text, written out when it is read.
    ///
    /// The store stamps every record with one such value, and a log kept in memory
    /// never reads its text: formatting it (a string of 20 or 27 bytes, too long to be
    /// stored inline, so an allocation) would be a large part of appending a command to
    /// an in-memory log, and copying a record would retain the string.
    private let writtenText: String?
    /// The UTC instant the value stands for (the start of its period for partial dates).
    public let instant: Instant
    /// How much of a date the text gives.
    public let precision: Precision

    /// The text exactly as written, such as `"2019-03"`.
    ///
    /// - Complexity: O(1), except for the store's own stamp (a record's `at`): its text is
    ///   formatted on each read.
    public var text: String { writtenText ?? InstantFormatter.iso8601(instant) }

    /// Creates a value from parts already validated by the parser, or kept apart from a
    /// value made by parsing or by ``init(utc:)``.
    package init(text: String, instant: Instant, precision: Precision) {
        self.writtenText = text
        self.instant = instant
        self.precision = precision
    }

    /// The instant whose UTC text is this value's text, when the value was made by
    /// ``init(utc:)``: a writer can then write the text's bytes without making a string.
    package var utcInstant: Instant? { writtenText == nil ? instant : nil }

    /// Whether two values have the same text (and so the same instant and precision).
    public static func == (lhs: DateValue, rhs: DateValue) -> Bool {
        guard lhs.instant == rhs.instant, lhs.precision == rhs.precision else { return false }
        // The same instant has one UTC text.
        if lhs.writtenText == nil && rhs.writtenText == nil { return true }
        return lhs.text == rhs.text
    }

    /// Hashes the instant and the precision: equal values have the same text, and so
    /// the same instant and precision.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(instant)
        hasher.combine(precision)
    }

    /// Orders values by instant, then by text, so that the order agrees with `==`.
    public static func < (lhs: DateValue, rhs: DateValue) -> Bool {
        if lhs.instant != rhs.instant { return lhs.instant < rhs.instant }
        if lhs.writtenText == nil && rhs.writtenText == nil { return false }
        return lhs.text < rhs.text
    }

    /// The text as written.
    public var description: String { text }
}

extension DateValue {
    /// The value of an instant written as UTC text, `YYYY-MM-DDTHH:MM:SSZ` (with a
    /// fraction when the instant has one): how the store writes a record's `at`.
    ///
    /// - Complexity: O(1): the text is written out when it is read (see ``text``).
    package init(utc instant: Instant) {
        self.writtenText = nil
        self.instant = instant
        self.precision = instant.microsecondsSinceEpoch % 1_000_000 == 0 && instant.nanosecondsPastMicrosecond == 0
            ? .second : .fraction
    }

    /// The value of `bytes`, which the parser read as `instant` at `precision`; without a
    /// copy of the text when it is byte for byte the instant's UTC text, as ``init(utc:)``
    /// makes (every `at` of a store's log, a timestamp in `Z`), which ``text`` writes out
    /// again. Such a text is 20 or 27 bytes, too long to be stored inline: one allocation
    /// for each record read, and one free, spared.
    package init(parsed bytes: UnsafeBufferPointer<UInt8>, instant: Instant, precision: Precision) {
        if precision >= .second, bytes.last == UInt8(ascii: "Z"), bytes.count <= InstantFormatter.maximumLength {
            let stamp = DateValue(utc: instant)
            let same = stamp.precision == precision
                && withUnsafeTemporaryAllocation(of: UInt8.self, capacity: InstantFormatter.maximumLength) { scratch in
                    let count = InstantFormatter.write(instant, to: scratch.baseAddress!)
                    return count == bytes.count && scratch.prefix(count).elementsEqual(bytes)
                }
            if same {
                self = stamp
                return
            }
        }
        self.init(text: JSONStringScanner.copyString(bytes.baseAddress!, count: bytes.count),
                  instant: instant, precision: precision)
    }
}
