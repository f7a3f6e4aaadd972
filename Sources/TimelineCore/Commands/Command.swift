/// Something a user asks the timelines to do; the decider validates it and records facts.
///
/// Titles and names are trimmed of whitespace at both ends before they are recorded.
public enum Command: Hashable, Sendable {
    /// Create a timeline with a new id.
    case createTimeline(TimelineID, name: String)
    /// Give an existing timeline a new name.
    case renameTimeline(TimelineID, name: String)
    /// Remove a timeline and all of its events.
    case removeTimeline(TimelineID)
    /// Add an event with a new id to an existing timeline; a range is recorded as the
    /// event's start date followed by its range.
    case addEvent(EventID, timeline: TimelineID, title: String, dates: EventDates)
    /// Give an event a new title.
    case retitleEvent(EventID, title: String)
    /// Give an event one date (a range becomes a single date).
    case setDate(EventID, DateValue)
    /// Give an event a date range; a `nil` end leaves it open.
    case setRange(EventID, start: DateValue, end: DateValue?)
    /// Close an open range.
    case closeRange(EventID, end: DateValue)
    /// Reopen a closed range.
    case reopenRange(EventID)
    /// Move an event to another timeline.
    case moveEvent(EventID, to: TimelineID)
    /// Remove an event.
    case removeEvent(EventID)
}
