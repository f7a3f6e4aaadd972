import TimelineCore

/// A date of a timeline's summary (the key of a ``CountedDate``), in two words.
///
/// A year, month or day keeps its instant and precision alone, since its text follows
/// from them (``DateValue/hasCanonicalText``); a timestamp keeps its value in a box,
/// shared by the entries of one text where they are built together (a rebuild, a
/// checkpoint). Two words, not a `DateValue` (a text, an instant and a precision): the
/// summaries keep every distinct date of every timeline, a large part of a store's memory.
struct DatedEntry: OrderedIndexElement, Sendable, Comparable {
    /// A date whose text does not follow from its instant.
    final class Box: Sendable {
        let date: DateValue
        init(_ date: DateValue) { self.date = date }
    }

    /// The precision of a canonical date, or the boxed value of any other.
    enum Detail: Sendable {
        case canonical(DateValue.Precision)
        case other(Box)
    }

    /// The date's instant in microseconds.
    let instant: Int64
    let detail: Detail

    var isMarked: Bool { false }

    /// The entry of `date`, in `box` if it is a timestamp (a new box when none is given).
    init(_ date: DateValue, box: Box? = nil) {
        instant = date.instant.microsecondsSinceEpoch
        detail = date.hasCanonicalText ? .canonical(date.precision) : .other(box ?? Box(date))
    }

    /// A canonical date (a year, month or day) from its instant and precision.
    init(canonical instant: Int64, precision: DateValue.Precision) {
        precondition(precision <= .day, "only years, months and days are canonical")
        self.instant = instant
        detail = .canonical(precision)
    }

    /// The date.
    var date: DateValue {
        switch detail {
        case .canonical(let precision): DateValue(canonical: Instant(microsecondsSinceEpoch: instant), precision: precision)
        case .other(let box): box.date
        }
    }

    /// The order of `DateValue`: by instant, then by text. Canonical texts of one instant
    /// are prefixes of each other (`2019`, `2019-01`, `2019-01-01`), so they order by
    /// precision without being made; a timestamp's text is compared whole.
    static func < (a: DatedEntry, b: DatedEntry) -> Bool {
        if a.instant != b.instant { return a.instant < b.instant }
        if case .canonical(let x) = a.detail, case .canonical(let y) = b.detail { return x < y }
        return a.date < b.date
    }

    static func == (a: DatedEntry, b: DatedEntry) -> Bool {
        guard a.instant == b.instant else { return false }
        switch (a.detail, b.detail) {
        case (.canonical(let x), .canonical(let y)): return x == y
        case (.other(let x), .other(let y)): return x === y || x.date == y.date
        default: return false
        }
    }
}
