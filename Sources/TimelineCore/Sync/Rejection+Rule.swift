extension Rejection {
    /// The rule broken, as a stable code (a `commandRejected` record's `rule`, listed in
    /// `docs/DESIGN.md`). Codes never change meaning; a new rule gets a new code.
    public var rule: String {
        switch self {
        case .timelineExists: "timelineExists"
        case .unknownTimeline: "unknownTimeline"
        case .eventExists: "eventExists"
        case .unknownEvent: "unknownEvent"
        case .emptyText: "emptyText"
        case .textTooLong: "textTooLong"
        case .endBeforeStart: "endBeforeStart"
        case .notOpenRange: "notOpenRange"
        case .notClosedRange: "notClosedRange"
        case .invalidID: "invalidID"
        }
    }
}
