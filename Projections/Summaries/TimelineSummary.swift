import TimelineCore

/// What a timeline holds at a glance: its name, its events, its date span and open ranges.
public struct TimelineSummary: Hashable, Sendable, Identifiable {
    /// The timeline's id.
    public var id: TimelineID
    /// The timeline's name.
    public var name: String
    /// How many events the timeline holds.
    public var eventCount: Int
    /// The earliest date of any of its rows (ongoing rows have none), or `nil` without events.
    public var earliest: DateValue?
    /// The latest date of any of its rows, or `nil` without events.
    public var latest: DateValue?
    /// How many of its events are open ranges.
    public var ongoingCount: Int

    /// Creates a summary.
    package init(id: TimelineID, name: String, eventCount: Int, earliest: DateValue?, latest: DateValue?,
                ongoingCount: Int) {
        self.id = id
        self.name = name
        self.eventCount = eventCount
        self.earliest = earliest
        self.latest = latest
        self.ongoingCount = ongoingCount
    }
}

/// How the timeline summaries changed over a batch; indices as in ``ChangeSet``.
public struct SummaryChangeSet: Sendable {
    /// The log position of the old summaries.
    public let from: Int64
    /// The log position of the new summaries.
    public let to: Int64
    /// Indices of removed summaries in the old list, ascending.
    public let removals: [Int]
    /// Indices of inserted summaries in the new list, ascending.
    public let insertions: [Int]
    /// Summaries that moved (a rename), ordered by their old index.
    public let moves: [ChangeSet.Move]
    /// Timelines whose summary changed.
    public let updates: [TimelineID]
    /// The new summaries, ordered by name and then id.
    public let summaries: [TimelineSummary]

    /// Applies the change set to the old summaries, in the order ``ChangeSet/applied(to:)`` describes.
    /// - Complexity: O(*n* + *k*) for *n* timelines and *k* changes.
    public func applied(to old: [TimelineSummary]) -> [TimelineSummary] {
        applyIndexChanges(to: old, removals: removals, insertions: insertions, moves: moves, updates: updates,
                          id: \.id, newElement: { summaries[$0] })
    }
}
