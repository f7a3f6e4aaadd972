import TimelineCore

extension TimelineProjection {
    /// Sets the projection's state from parts loaded separately (as a checkpoint holds them).
    mutating func restore(position: Int64, events: EventTable, summaries: SummaryState, views: [ViewState]) {
        self.position = position
        self.events = events
        self.summaries = summaries
        for view in views { setView(view) }
    }

    /// A view whose rows are already in order (as a checkpoint saved them).
    /// - Complexity: O(*n*) for *n* rows with sections, O(1) without.
    static func restoredView(_ definition: ViewDefinition, index: OrderedIndex<RowEntry>, position: Int64,
                             now: Int64) -> ViewState {
        var view = ViewState(definition: definition, position: position)
        view.restore(index: index, now: now, position: position)
        return view
    }

    /// The domain state the projection's events and timelines stand for.
    /// - Complexity: O(*n*).
    public var domainState: DomainState {
        DomainState(
            timelines: summaries.timelines.map { Timeline(id: $0.key, name: $0.value.name) },
            events: events.snapshots.map { Event(id: $0.id, timeline: $0.timeline, title: $0.title, dates: $0.dates) })
    }
}
