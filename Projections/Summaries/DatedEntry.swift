import TimelineCore

/// A date kept in a sorted multiset of a timeline's dates, in two words.
///
/// A year, month or day keeps its instant and precision alone, since its text follows
/// from them (``DateValue/hasCanonicalText``); a timestamp keeps its value in a box. A
/// `DateValue` (a text, an instant and a precision) took 32 bytes, and the summaries'
/// dates were about a sixth of a store's memory.
struct DatedEntry: OrderedIndexElement, Sendable, Comparable {
    /// A date whose text does not follow from its instant.
    final class Box: Sendable {
        let date: DateValue
        init(_ date: DateValue) { self.date = date }
    }

    /// The precision of a canonical date, or the boxed value of any other.
    enum Detail: Sendable {
        case year, month, day
        case other(Box)
    }

    /// The date's instant in microseconds.
    let instant: Int64
    let detail: Detail

    var isMarked: Bool { false }

    init(_ date: DateValue) {
        instant = date.instant.microsecondsSinceEpoch
        switch date.precision {
        case .year: detail = .year
        case .month: detail = .month
        case .day: detail = .day
        case .minute, .second, .fraction: detail = .other(Box(date))
        }
    }

    /// A canonical date (a year, month or day) from its instant and precision.
    init(canonical instant: Int64, precision: DateValue.Precision) {
        self.instant = instant
        switch precision {
        case .year: detail = .year
        case .month: detail = .month
        default:
            precondition(precision == .day, "only years, months and days are canonical")
            detail = .day
        }
    }

    /// The date.
    var date: DateValue {
        switch detail {
        case .year: DateValue(canonical: Instant(microsecondsSinceEpoch: instant), precision: .year)
        case .month: DateValue(canonical: Instant(microsecondsSinceEpoch: instant), precision: .month)
        case .day: DateValue(canonical: Instant(microsecondsSinceEpoch: instant), precision: .day)
        case .other(let box): box.date
        }
    }

    /// The order of `DateValue`: by instant, then by text. Canonical texts of one instant
    /// are prefixes of each other (`2019`, `2019-01`, `2019-01-01`), so they order by
    /// precision without being made; a timestamp's text is compared whole.
    static func < (a: DatedEntry, b: DatedEntry) -> Bool {
        if a.instant != b.instant { return a.instant < b.instant }
        switch (a.detail, b.detail) {
        case (.other, _), (_, .other): return a.date < b.date
        default: return a.rank < b.rank
        }
    }

    static func == (a: DatedEntry, b: DatedEntry) -> Bool {
        guard a.instant == b.instant else { return false }
        switch (a.detail, b.detail) {
        case (.other(let x), .other(let y)): return x === y || x.date == y.date
        case (.other, _), (_, .other): return false
        default: return a.rank == b.rank
        }
    }

    private var rank: Int {
        switch detail {
        case .year: 0
        case .month: 1
        case .day: 2
        case .other: 3
        }
    }
}
