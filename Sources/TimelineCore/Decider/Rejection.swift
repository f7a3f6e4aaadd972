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
    /// An id breaks the rules of ids (see ``IdentifierProblem``); `field` is `"timeline"` or `"event"`.
    case invalidID(field: String, value: String, problem: IdentifierProblem)

    /// The rule of ids that a text breaks: ids are 1–255 bytes of UTF-8, with no control
    /// character (U+0000–U+001F, U+007F–U+009F) anywhere and no whitespace at either end.
    public enum IdentifierProblem: Hashable, Sendable, CustomStringConvertible {
        /// The id is empty.
        case empty
        /// The id is longer than 255 bytes of UTF-8.
        case tooLong(bytes: Int)
        /// The id holds a control character.
        case controlCharacter(Unicode.Scalar)
        /// The id starts with whitespace.
        case whitespaceAtStart(Unicode.Scalar)
        /// The id ends with whitespace.
        case whitespaceAtEnd(Unicode.Scalar)

        /// The rule broken, such as `is empty`.
        public var description: String {
            switch self {
            case .empty: "is empty"
            case .tooLong(let bytes): "is \(bytes) bytes long in UTF-8"
            case .controlCharacter(let scalar): "holds the control character \(Self.name(scalar))"
            case .whitespaceAtStart(let scalar): "starts with the whitespace \(Self.name(scalar))"
            case .whitespaceAtEnd(let scalar): "ends with the whitespace \(Self.name(scalar))"
            }
        }

        /// `U+000A`.
        private static func name(_ scalar: Unicode.Scalar) -> String {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    /// The longest name or title accepted, in characters, once trimmed.
    public static let maximumTextLength = 1000

    /// A message a person can act on, naming the value and the rule.
    public var description: String {
        switch self {
        case .timelineExists(let id): "timeline \(quoted(id.rawValue)) already exists"
        case .unknownTimeline(let id): "unknown timeline \(quoted(id.rawValue))"
        case .eventExists(let id): "event \(quoted(id.rawValue)) already exists"
        case .unknownEvent(let id): "unknown event \(quoted(id.rawValue))"
        case .emptyText(let field): "\(field) must not be empty"
        case .textTooLong(let field, let length):
            "\(field) is \(length) characters long; at most \(Rejection.maximumTextLength) are allowed"
        case .endBeforeStart(let event, let start, let end):
            "event \(quoted(event.rawValue)): end \"\(end.text)\" is before start \"\(start.text)\""
        case .notOpenRange(let id): "event \(quoted(id.rawValue)) is not an open range"
        case .notClosedRange(let id): "event \(quoted(id.rawValue)) is not a closed range"
        case .invalidID(let field, let value, let problem):
            "\(field) id \(quoted(value)) \(problem); ids are 1–\(IdentifierText.maximumBytes) bytes of UTF-8 "
                + "with no control characters and no whitespace at either end: choose another id"
        }
    }

    /// An id in double quotes, its control characters and whitespace escaped.
    private func quoted(_ id: String) -> String { IdentifierText.quoted(id) }
}
