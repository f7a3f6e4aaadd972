/// A timeline event: something in a person's life with one date or a date range.
public struct Event: Hashable, Sendable {
    /// The event's identifier, unique across timelines.
    public var id: EventID
    /// The timeline the event belongs to.
    public var timeline: TimelineID
    /// The event's title, exactly as recorded.
    public var title: String
    /// The event's date or date range.
    public var dates: EventDates

    /// Creates an event.
    @usableFromInline package init(id: EventID, timeline: TimelineID, title: String, dates: EventDates) {
        self.id = id
        self.timeline = timeline
        self.title = title
        self.dates = dates
    }
}
