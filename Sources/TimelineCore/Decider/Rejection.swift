/// Why a command (or a fact read from a log) is refused by the domain rules.
public enum Rejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// A timeline with this id already exists.
    case timelineExists(TimelineID)
    /// No timeline has this id.
    case unknownTimeline(TimelineID)
    /// An event with this id already exists (in any timeline).
    case eventExists(EventID)
    /// No event has this id.
    case unknownEvent(EventID)
    /// A name or title is empty once whitespace at both ends is trimmed.
    case emptyText(field: String)
    /// A name or title is longer than ``Rejection/maximumTextLength`` characters once trimmed.
    case textTooLong(field: String, length: Int)
    /// A range would end before it starts.
    case endBeforeStart(event: EventID, start: DateValue, end: DateValue)
    /// The event's dates are not an open range, so the range cannot be closed.
    case notOpenRange(EventID)
    /// The event's dates are not a closed range, so the range cannot be reopened.
    case notClosedRange(EventID)

    /// The longest name or title accepted, in characters, once trimmed.
    public static let maximumTextLength = 1000

    /// A message a person can act on, naming the value and the rule.
    public var description: String {
        switch self {
        case .timelineExists(let id): "timeline \"\(id)\" already exists"
        case .unknownTimeline(let id): "unknown timeline \"\(id)\""
        case .eventExists(let id): "event \"\(id)\" already exists"
        case .unknownEvent(let id): "unknown event \"\(id)\""
        case .emptyText(let field): "\(field) must not be empty"
        case .textTooLong(let field, let length):
            "\(field) is \(length) characters long; at most \(Rejection.maximumTextLength) are allowed"
        case .endBeforeStart(let event, let start, let end):
            "event \"\(event)\": end \"\(end.text)\" is before start \"\(start.text)\""
        case .notOpenRange(let id): "event \"\(id)\" is not an open range"
        case .notClosedRange(let id): "event \"\(id)\" is not a closed range"
        }
    }
}
