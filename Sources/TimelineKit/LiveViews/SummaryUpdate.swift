import TimelineCore
import TimelineProjections

/// One element of a summary stream: the whole list, or a change set.
public enum SummaryUpdate: Sendable {
    /// The whole list at a position (the first element, and after falling behind).
    case initial([TimelineSummary], position: Int64)
    /// A change of the list.
    case changes(SummaryChangeSet)

    /// Collapses a lagging subscriber's queue into the whole latest list.
    static func collapse(_ first: SummaryUpdate, _ latest: SummaryUpdate) -> SummaryUpdate {
        switch latest {
        case .initial: latest
        case .changes(let changeSet): .initial(changeSet.summaries, position: changeSet.to)
        }
    }

    /// The summaries after this update.
    package var summaries: [TimelineSummary] {
        switch self {
        case .initial(let list, _): list
        case .changes(let changeSet): changeSet.summaries
        }
    }
}
