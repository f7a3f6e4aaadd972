import TimelineCore

extension TimelineProjection {
    /// Sets the events and timelines (as a checkpoint saved them), without views.
    /// `sizes` gives the number of events of each timeline, so that every table is sized
    /// before it is filled.
    mutating func restore(position: Int64, names: [TimelineID: String], events snapshots: [EventSnapshot],
                          sizes: [TimelineID: Int] = [:]) {
        self.position = position
        events = [:]
        events.reserveCapacity(snapshots.count)
        eventsByTimeline = sizes.mapValues { Set(minimumCapacity: $0) }
        for snapshot in snapshots {
            events[snapshot.id] = snapshot
            eventsByTimeline[snapshot.timeline, default: []].insert(snapshot.id)
        }
        summaries = SummaryState(names: names, events: snapshots)
    }

    /// Adds a view whose rows are already in order (as a checkpoint saved them).
    mutating func restoreView(_ definition: ViewDefinition, sortedEntries: [RowEntry], position: Int64) {
        var view = ViewState(definition: definition, position: position)
        view.restore(sortedEntries: sortedEntries, now: now.microsecondsSinceEpoch, position: position)
        setView(view)
    }

    /// The domain state the projection's events and timelines stand for.
    /// - Complexity: O(*n*).
    public var domainState: DomainState {
        DomainState(
            timelines: summaries.timelines.map { Timeline(id: $0.key, name: $0.value.name) },
            events: events.values.map { Event(id: $0.id, timeline: $0.timeline, title: $0.title, dates: $0.dates) })
    }
}
