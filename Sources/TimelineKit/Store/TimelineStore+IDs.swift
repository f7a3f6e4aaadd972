import TimelineCore

extension TimelineStore {
    /// An event id that no event has now: `e<n>`, the next number after the events'
    /// count when free (as in a store whose events were all made so).
    /// - Complexity: O(log *n*) lookups.
    public func makeEventID() -> EventID {
        IdentifierMaker.eventID(count: projection.eventCount, tag: nil) { projection.eventTimeline($0) != nil }
    }

    /// A timeline id made from `name` that no timeline has now: `My life` → `my-life`,
    /// then `my-life-2`, … when taken.
    /// - Complexity: O(*t*) for the *t* characters of the name, plus one lookup per suffix tried.
    public func makeTimelineID(name: String) -> TimelineID {
        IdentifierMaker.timelineID(name: name, tag: nil) { projection.timeline($0) != nil }
    }
}
