/// Something that happened to the timelines, as recorded in the log.
///
/// Facts are immutable and appended in order; the log is a sequence of ``Record``s
/// that carry them. Each case's name is the record's `type`, and its labels are the
/// members of the record's `data` (a contract of the log format).
public enum Fact: Hashable, Sendable {
    /// A timeline was created.
    case timelineCreated(timeline: TimelineID, name: String)
    /// A timeline got a new name.
    case timelineRenamed(timeline: TimelineID, name: String)
    /// A timeline was removed, and its events with it.
    case timelineRemoved(timeline: TimelineID)
    /// An event with one date was added to a timeline.
    case eventAdded(event: EventID, timeline: TimelineID, title: String, date: DateValue)
    /// An event got a new title.
    case eventRetitled(event: EventID, title: String)
    /// An event got one date (a range becomes a single date).
    case dateSet(event: EventID, date: DateValue)
    /// An event got a date range; a `nil` end leaves it open.
    case rangeSet(event: EventID, start: DateValue, end: DateValue?)
    /// An open range got its end.
    case rangeClosed(event: EventID, end: DateValue)
    /// A closed range lost its end and is open again.
    case rangeReopened(event: EventID)
    /// An event moved to another timeline.
    case eventMoved(event: EventID, timeline: TimelineID)
    /// An event was removed.
    case eventRemoved(event: EventID)
    /// The shared log refused a device's submission (section 10 of the design): `command`
    /// is its command id `D:n`, `rule` a stable rule code (``Rejection/rule``), `message`
    /// the reason for a person. It changes no timeline or event.
    case commandRejected(command: String, rule: String, message: String)

    /// The record `type` that names this fact in the log.
    public var type: FactType {
        switch self {
        case .timelineCreated: .timelineCreated
        case .timelineRenamed: .timelineRenamed
        case .timelineRemoved: .timelineRemoved
        case .eventAdded: .eventAdded
        case .eventRetitled: .eventRetitled
        case .dateSet: .dateSet
        case .rangeSet: .rangeSet
        case .rangeClosed: .rangeClosed
        case .rangeReopened: .rangeReopened
        case .eventMoved: .eventMoved
        case .eventRemoved: .eventRemoved
        case .commandRejected: .commandRejected
        }
    }

    /// The event this fact is about, or `nil` for timeline facts.
    package var event: EventID? {
        switch self {
        case .timelineCreated, .timelineRenamed, .timelineRemoved, .commandRejected: nil
        case .eventAdded(let event, _, _, _), .eventRetitled(let event, _), .dateSet(let event, _),
             .rangeSet(let event, _, _), .rangeClosed(let event, _), .rangeReopened(let event),
             .eventMoved(let event, _), .eventRemoved(let event):
            event
        }
    }
}

/// The name of a kind of fact: a record's `type` member.
public enum FactType: String, CaseIterable, Hashable, Sendable {
    /// `timelineCreated`: data `timeline`, `name`.
    case timelineCreated
    /// `timelineRenamed`: data `timeline`, `name`.
    case timelineRenamed
    /// `timelineRemoved`: data `timeline`.
    case timelineRemoved
    /// `eventAdded`: data `event`, `timeline`, `title`, `date`.
    case eventAdded
    /// `eventRetitled`: data `event`, `title`.
    case eventRetitled
    /// `dateSet`: data `event`, `date`.
    case dateSet
    /// `rangeSet`: data `event`, `start`, `end` (absent or null: open).
    case rangeSet
    /// `rangeClosed`: data `event`, `end`.
    case rangeClosed
    /// `rangeReopened`: data `event`.
    case rangeReopened
    /// `eventMoved`: data `event`, `timeline`.
    case eventMoved
    /// `eventRemoved`: data `event`.
    case eventRemoved
    /// `commandRejected`: data `command`, `rule`, `message`.
    case commandRejected
}
