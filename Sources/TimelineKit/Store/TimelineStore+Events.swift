import TimelineCore
import TimelineProjections

extension TimelineStore {
    /// The events as they stand: those of `timeline`, or every event for `nil`, ordered by
    /// id (compared as UTF-8 bytes, as the row order compares them).
    ///
    /// The whole state at once, for an export or a front end's own model: no view's rows
    /// and one ``event(_:)`` per row. A timeline's event count without the events is its
    /// `TimelineSummary`'s `eventCount` (``timelineSummaries``).
    /// - Complexity: O(*n* + *k* log *k*) for *n* events, *k* of them returned.
    public func events(in timeline: TimelineID? = nil) -> [Event] {
        projection.events(in: timeline)
    }
}
