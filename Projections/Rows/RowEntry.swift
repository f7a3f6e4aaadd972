import TimelineCore

/// A row as the ordered index stores it: its sort instant, its kind, its event's snapshot
/// and the first bytes of the event's id.
///
/// Three words: the instant, the kind and the mark packed in one, the snapshot, and the
/// id's first eight bytes; the public ``Row`` is made from it on demand.
///
/// The id's bytes are there for the search: rows tied on their instant are ordered by
/// their events' ids, and reading an id from its snapshot is a cache miss, so a
/// comparison reads the snapshot only when the prefixes tie too. It costs 8 bytes a row
/// (the rows of views that share them are kept once, see ``RowSet``).
struct RowEntry: OrderedIndexElement, Sendable {
    /// The instant's microseconds in the high 60 bits, then whether the instant has a
    /// sub-microsecond part, the kind in the next two bits, the mark in the lowest.
    /// A parsed date's instant (years 0001–9999) fits in 59 bits; one made from any
    /// `Instant` (``DateValue/init(utc:)``) beyond about ±18,000 years sorts as the
    /// nearest instant that fits, and a clock beyond them marks rows as if it were there.
    ///
    /// The sub-microsecond part itself stays in the snapshot (``nanoseconds``): the flag
    /// orders a row without one before a row with one at the same microsecond, and only
    /// two rows that both have one read their snapshots for it.
    private let packed: Int64

    /// The range of instants (in microseconds) a row keeps exactly.
    static let instantRange: ClosedRange<Int64> = (Int64.min >> 4)...(Int64.max >> 4)
    /// The event the row belongs to, as it was when the row was made.
    let event: EventSnapshot
    /// The first eight UTF-8 bytes of the event's id (``RowOrder/prefix(_:)``): rows
    /// whose prefixes differ are ordered by them as by their ids.
    let idPrefix: UInt64

    /// Where ``event`` is in a row's memory, for a search that reads it without retaining it.
    static var eventOffset: Int { MemoryLayout<RowEntry>.offset(of: \RowEntry.event)! }

    init(event: EventSnapshot, kind: RowKind, now: Int64, placement: OngoingPlacement) {
        self.init(event: event, kind: kind, now: now, placement: placement, idPrefix: RowOrder.prefix(event.id.rawValue))
    }

    /// A row of `event`, whose id's first eight bytes are `idPrefix` (``RowOrder/prefix(_:)``),
    /// for a caller that makes several rows of one event.
    init(event: EventSnapshot, kind: RowKind, now: Int64, placement: OngoingPlacement, idPrefix: UInt64) {
        self.event = event
        self.idPrefix = idPrefix
        let instant = kind == .end ? event.endInstant ?? event.startInstant : event.startInstant
        let kept = Self.kept(instant)
        let now = Self.kept(now)
        let hasNanoseconds = event.hasNanoseconds && Self.nanoseconds(of: event, kind) != 0
        // Marked when the start is not after now, which has no sub-microsecond part.
        let isMarked = kind == .ongoing && placement == .now && (kept < now || (kept == now && !hasNanoseconds))
        packed = kept << 4 | (hasNanoseconds && !isMarked ? 8 : 0) | Int64(Self.code(of: kind)) << 1 | (isMarked ? 1 : 0)
    }

    /// The nanoseconds past the microsecond of the instant a row of `kind` of `event` sorts at.
    static func nanoseconds(of event: EventSnapshot, _ kind: RowKind) -> UInt16 {
        kind == .end ? event.endNanoseconds : event.startNanoseconds
    }

    /// `instant` as a row keeps it: the nearest instant in ``instantRange``.
    static func kept(_ instant: Int64) -> Int64 {
        min(max(instant, instantRange.lowerBound), instantRange.upperBound)
    }

    /// The date's instant in microseconds; for an ongoing row, its range's start instant.
    var instant: Int64 { packed >> 4 }

    /// Twice ``instant``, plus one when the instant has a sub-microsecond part (not for a
    /// marked row, which sorts at now): comparing keys orders rows by instant except
    /// between two rows that both have a sub-microsecond part (see ``nanoseconds``).
    var instantKey: Int64 { packed >> 3 }

    /// The nanoseconds past the microsecond of the row's instant, read from its snapshot
    /// (0 for a marked row).
    var nanoseconds: UInt16 { packed & 8 == 0 ? 0 : Self.nanoseconds(of: event, kind) }

    /// What the row stands for.
    var kind: RowKind {
        switch (packed >> 1) & 3 {
        case 0: .single
        case 1: .start
        case 2: .end
        default: .ongoing
        }
    }

    /// Whether the row is an ongoing row that sorts at "now" (its start is not after now).
    var isMarked: Bool { packed & 1 == 1 }

    private static func code(of kind: RowKind) -> Int {
        switch kind {
        case .single: 0
        case .start: 1
        case .end: 2
        case .ongoing: 3
        }
    }

    var id: RowID { RowID(event: event.id, role: kind.role) }

    /// Whether `other` is the same row (`id == other.id`), without reading the ids when
    /// both rows are of the same snapshot.
    func isSameRow(as other: RowEntry) -> Bool {
        guard kind.role == other.kind.role else { return false }
        return event === other.event || event.id == other.event.id
    }

    /// Whether the row shows the same as `other` (`row == other.row` for rows with the same
    /// id), without making their titles and dates (unless titles that are not ASCII differ
    /// in bytes: see ``EventSnapshot/hasSameTitle(as:)``).
    func hasSameContent(as other: RowEntry) -> Bool {
        guard kind == other.kind else { return false }
        guard event !== other.event else { return true }
        return event.timeline == other.event.timeline && event.hasSameTitle(as: other.event)
            && event.hasSameDate(for: kind, as: other.event)
    }

    var row: Row {
        Row(id: id, kind: kind, timeline: event.timeline, title: event.title, date: date)
    }

    /// The row's date: `nil` for an ongoing row.
    var date: DateValue? {
        switch kind {
        case .single, .start: event.startDate
        case .end: event.endDate
        case .ongoing: nil
        }
    }
}
