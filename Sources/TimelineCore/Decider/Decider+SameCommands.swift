extension Decider {
    /// Whether `recorded`, the facts a command id's first send recorded, are what sending
    /// `commands` again with that id would record: the facts the commands propose, up to
    /// the ids of the events they add and the timelines they create (a send that makes its
    /// ids makes them again on a retry; the same title, date, name and timeline is the same
    /// command). A send of other commands with a used id is a mistake to refuse, never a
    /// retry to answer "already done".
    /// - Complexity: O(*k*) for the *k* facts.
    package static func recordsSameCommands(_ commands: [Command], as recorded: [Fact]) -> Bool {
        let proposed = commands.flatMap(proposedFacts(for:))
        guard proposed.count == recorded.count else { return false }
        var events: [EventID: EventID] = [:], timelines: [TimelineID: TimelineID] = [:]
        func timeline(_ id: TimelineID) -> TimelineID { timelines[id] ?? id }
        for (mine, theirs) in zip(proposed, recorded) {
            switch (mine, theirs) {
            case (.eventAdded(let id, let inTimeline, let title, let date),
                  .eventAdded(let other, let otherTimeline, let otherTitle, let otherDate))
                where timeline(inTimeline) == otherTimeline && title == otherTitle && date == otherDate:
                events[id] = other
            case (.timelineCreated(let id, let name), .timelineCreated(let other, let otherName)) where name == otherName:
                timelines[id] = other
            default:
                guard mapped(mine, events: events, timelines: timelines) == theirs else { return false }
            }
        }
        return true
    }

    /// Whether `commands` are `earlier` sent again, up to the ids they make
    /// (``recordsSameCommands(_:as:)`` of the facts `earlier` propose).
    /// - Complexity: O(*k*) for the *k* facts.
    package static func sameCommands(_ commands: [Command], as earlier: [Command]) -> Bool {
        recordsSameCommands(commands, as: earlier.flatMap(proposedFacts(for:)))
    }

    /// `fact` with the event and timeline ids of `events` and `timelines` put for their keys.
    private static func mapped(_ fact: Fact, events: [EventID: EventID], timelines: [TimelineID: TimelineID]) -> Fact {
        func e(_ id: EventID) -> EventID { events[id] ?? id }
        func t(_ id: TimelineID) -> TimelineID { timelines[id] ?? id }
        return switch fact {
        case .timelineCreated(let id, let name): .timelineCreated(timeline: t(id), name: name)
        case .timelineRenamed(let id, let name): .timelineRenamed(timeline: t(id), name: name)
        case .timelineRemoved(let id): .timelineRemoved(timeline: t(id))
        case .eventAdded(let id, let timeline, let title, let date):
            .eventAdded(event: e(id), timeline: t(timeline), title: title, date: date)
        case .eventRetitled(let id, let title): .eventRetitled(event: e(id), title: title)
        case .dateSet(let id, let date): .dateSet(event: e(id), date: date)
        case .rangeSet(let id, let start, let end): .rangeSet(event: e(id), start: start, end: end)
        case .rangeClosed(let id, let end): .rangeClosed(event: e(id), end: end)
        case .rangeReopened(let id): .rangeReopened(event: e(id))
        case .eventMoved(let id, let timeline): .eventMoved(event: e(id), timeline: t(timeline))
        case .eventRemoved(let id): .eventRemoved(event: e(id))
        case .commandRejected: fact
        }
    }
}
