import TimelineCore

/// One line of the date-row list: a single date, a range's start or end, or an ongoing range.
public struct Row: Hashable, Sendable, Identifiable, CustomStringConvertible {
    /// The row's stable identity: its event and role.
    public var id: RowID
    /// What the row stands for.
    public var kind: RowKind
    /// The timeline the row's event belongs to.
    public var timeline: TimelineID
    /// The event's title.
    public var title: String
    /// The date shown: the value as written in the log, or `nil` for an ongoing row.
    public var date: DateValue?

    /// Creates a row.
    package init(id: RowID, kind: RowKind, timeline: TimelineID, title: String, date: DateValue?) {
        self.id = id
        self.kind = kind
        self.timeline = timeline
        self.title = title
        self.date = date
    }

    /// The row's event.
    package var event: EventID { id.event }

    /// `single 1990-04-12 Born (life)`.
    public var description: String { "\(kind.rawValue) \(date?.text ?? "now") \(title) (\(timeline))" }
}
