import TimelineCore

/// What a date row stands for.
public enum RowKind: String, Hashable, Sendable, CaseIterable {
    /// An event with one date; shows that date.
    case single
    /// The start of a range, open or closed; shows the start date.
    case start
    /// The end of a closed range; shows the end date.
    case end
    /// The end of an open range; has no date and sorts as "now" (or first, or last).
    case ongoing

    /// The row's role in the row order and in its identity: `.start` for `single` and
    /// `start`, `.end` for `end` and `ongoing`.
    package var role: RowRole {
        switch self {
        case .single, .start: .start
        case .end, .ongoing: .end
        }
    }
}

/// Which of an event's (at most two) rows a row is; part of a row's stable identity.
public enum RowRole: UInt8, Hashable, Sendable, Comparable {
    /// The row of a single date or of a range's start (role 0 in the row order).
    case start = 0
    /// The row of a range's end, closed or ongoing (role 1 in the row order).
    case end = 1

    /// Orders `start` before `end`.
    public static func < (lhs: RowRole, rhs: RowRole) -> Bool { lhs.rawValue < rhs.rawValue }
}
