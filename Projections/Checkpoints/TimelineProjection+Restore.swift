import TimelineCore

extension TimelineProjection {
    /// Sets the events and timelines (as a checkpoint saved them), without views.
    mutating func restore(position: Int64, names: [TimelineID: String], events snapshots: [EventSnapshot]) {
        self.position = position
        events = [:]
        events.reserveCapacity(snapshots.count)
        members = TimelineMembers()
        for snapshot in snapshots {
            events[snapshot.id] = snapshot
            members.add(snapshot.id, to: snapshot.timeline)
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
