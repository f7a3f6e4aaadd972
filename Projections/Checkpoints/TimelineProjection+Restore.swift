import Dispatch
import Synchronization
import TimelineCore

extension TimelineProjection {
    /// Sets the events and timelines (as a checkpoint saved them), without views.
    ///
    /// The events' table and the summaries are built at the same time: both only read the
    /// snapshots.
    mutating func restore(position: Int64, names: [TimelineID: String], events snapshots: [EventSnapshot]) {
        self.position = position
        let built = Mutex<(events: [EventID: EventSnapshot], members: TimelineMembers, summaries: SummaryState?)>(
            ([:], TimelineMembers(), nil))
        DispatchQueue.concurrentPerform(iterations: 2) { task in
            if task == 0 {
                var events: [EventID: EventSnapshot] = [:]
                events.reserveCapacity(snapshots.count)
                var members = TimelineMembers()
                for snapshot in snapshots {
                    events[snapshot.id] = snapshot
                    members.add(snapshot.id, to: snapshot.timeline)
                }
                built.withLock { $0.events = events; $0.members = members }
            } else {
                let summaries = SummaryState(names: names, events: snapshots)
                built.withLock { $0.summaries = summaries }
            }
        }
        built.withLock { built in
            events = built.events
            members = built.members
            summaries = built.summaries ?? SummaryState()
        }
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
