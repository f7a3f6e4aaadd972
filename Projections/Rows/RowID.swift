import TimelineCore

/// The stable identity of a date row: its event and its role.
///
/// Closing a range keeps the `ongoing` row's id (it becomes an `end` row); `setRange` on
/// a single-date event keeps the `single` row's id (it becomes a `start` row).
public struct RowID: Hashable, Sendable, CustomStringConvertible {
    /// The event the row belongs to.
    public var event: EventID
    /// Which of the event's rows this is.
    public var role: RowRole

    /// Creates a row id.
    public init(event: EventID, role: RowRole) {
        self.event = event
        self.role = role
    }

    /// `e1/start` or `e1/end`.
    public var description: String { "\(event)/\(role == .start ? "start" : "end")" }
}
