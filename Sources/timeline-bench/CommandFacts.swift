import TimelineCore

/// The facts a command records, as the decider records them (its rules are not checked
/// here: the workload only draws commands the decider accepts, and replaying the logs
/// made from these facts checks every one of them).
///
/// Used to write large logs without paying for the decider's per-command state copy.
enum CommandFacts {
    static func facts(of command: Command) -> [Fact] {
        switch command {
        case .createTimeline(let id, let name): [.timelineCreated(timeline: id, name: name)]
        case .renameTimeline(let id, let name): [.timelineRenamed(timeline: id, name: name)]
        case .removeTimeline(let id): [.timelineRemoved(timeline: id)]
        case .addEvent(let id, let timeline, let title, let dates):
            if case .range(let start, let end) = dates {
                [.eventAdded(event: id, timeline: timeline, title: title, date: start),
                 .rangeSet(event: id, start: start, end: end)]
            } else {
                [.eventAdded(event: id, timeline: timeline, title: title, date: dates.start)]
            }
        case .retitleEvent(let id, let title): [.eventRetitled(event: id, title: title)]
        case .setDate(let id, let date): [.dateSet(event: id, date: date)]
        case .setRange(let id, let start, let end): [.rangeSet(event: id, start: start, end: end)]
        case .closeRange(let id, let end): [.rangeClosed(event: id, end: end)]
        case .reopenRange(let id): [.rangeReopened(event: id)]
        case .moveEvent(let id, let timeline): [.eventMoved(event: id, timeline: timeline)]
        case .removeEvent(let id): [.eventRemoved(event: id)]
        }
    }

    /// Records for `commands`, one atomic batch per command, numbered from `firstPosition`,
    /// as a store would append them.
    static func records(of commands: [Command], firstPosition: Int64 = 1, recordedAt: DateValue? = nil) -> [Record] {
        var records: [Record] = []
        records.reserveCapacity(commands.count + commands.count / 4)
        var position = firstPosition
        for command in commands {
            let facts = facts(of: command)
            for (offset, fact) in facts.enumerated() {
                records.append(Record(position: position, fact: fact, recordedAt: recordedAt,
                                      batchRemainder: facts.count - offset - 1))
                position += 1
            }
        }
        return records
    }
}
