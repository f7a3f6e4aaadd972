/// The dates of a timeline event: one date, or a range whose end may still be open.
public enum EventDates: Hashable, Sendable {
    /// An event with one date ("Born, 1990-04-12").
    case single(DateValue)
    /// A date range; a `nil` end means the range is still open ("since 2019-03").
    case range(start: DateValue, end: DateValue?)

    /// The first date: the single date, or the range's start.
    /// - Complexity: O(1).
    public var start: DateValue {
        switch self {
        case .single(let date): date
        case .range(let start, _): start
        }
    }

    /// Whether this is a range without an end (an ongoing event).
    public var isOpenRange: Bool {
        if case .range(_, nil) = self { return true }
        return false
    }

    /// Whether this is a range with an end.
    public var isClosedRange: Bool {
        if case .range(_, .some) = self { return true }
        return false
    }
}
