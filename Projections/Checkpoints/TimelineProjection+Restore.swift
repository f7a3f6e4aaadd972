import TimelineCore

extension TimelineProjection {
    /// Sets the projection's state from parts loaded separately (as a checkpoint holds them).
    /// The row sets must hold distinct views (a checkpoint's decoding checks that).
    mutating func restore(position: Int64, events: EventTable, summaries: SummaryState, rowSets: [RowSet]) {
        self.position = position
        self.events = events
        self.summaries = summaries
        self.rowSets = rowSets
        indexViews()
    }

    /// Moves the projection, its views and summaries to log position `position` without
    /// changing what they hold: for a state folded from records that were then appended
    /// under other positions (an import into an empty log).
    package mutating func reposition(to position: Int64) {
        self.position = position
        summaries.restorePosition(position)
        for set in rowSets.indices { rowSets[set].moveViews(to: position) }
    }

    /// The domain state the projection's events and timelines stand for.
    /// - Complexity: O(*n*).
    package var domainState: DomainState {
        DomainState(
            timelines: summaries.timelines.map { Timeline(id: $0.key, name: $0.value.name) },
            events: events.snapshots.map { Event(id: $0.id, timeline: $0.timeline, title: $0.title, dates: $0.dates) })
    }
}
