import TimelineCore

/// A date row as a straightforward app keeps it: a struct with its sort key and every
/// field a cell shows (what a fetched object would hold).
struct BaselineRow: Equatable {
    enum Kind: UInt8 { case single, start, end, ongoing }

    /// The sort instant in microseconds (for an ongoing row, max(now, start)).
    var instant: Int64
    var event: String
    /// 0 for single and start rows, 1 for end and ongoing rows.
    var role: UInt8
    var kind: Kind
    var timeline: String
    var title: String
    /// The date shown, nil for an ongoing row.
    var date: String?

    /// The contract's order for views that place ongoing rows at now: instant, event id
    /// (these ids are ASCII, so String order is UTF-8 order), role.
    @inline(__always)
    static func precedes(_ a: BaselineRow, _ b: BaselineRow) -> Bool {
        if a.instant != b.instant { return a.instant < b.instant }
        if a.event != b.event { return a.event < b.event }
        return a.role < b.role
    }

    /// The year section the row belongs to.
    var year: Int { Instant(microsecondsSinceEpoch: instant).utcDate.year }
}
