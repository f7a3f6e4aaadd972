import TimelineCore

/// Where ongoing rows (open ranges' ends) sort.
public enum OngoingPlacement: String, Hashable, Sendable, CaseIterable {
    /// At "now" from the clock: an ongoing row's instant is max(now, its range's start).
    case now
    /// Before all dated rows, ordered by their ranges' starts.
    case first
    /// After all dated rows, ordered by their ranges' starts (the original app's `[isOngoing, date]`).
    case last
}

/// Ascending (earliest first) or descending (the exact reverse).
public enum ViewOrder: String, Hashable, Sendable, CaseIterable {
    /// Earliest first.
    case ascending = "asc"
    /// Latest first: the exact reverse of ascending.
    case descending = "desc"
}

/// How rows are grouped into sections, by their instant (UTC).
public enum Sectioning: String, Hashable, Sendable, CaseIterable {
    /// One list, no sections.
    case none
    /// A section per calendar year, named `2019`.
    case year
    /// A section per month, named `2019-03`.
    case month
    /// A section per decade, named `2010s`.
    case decade
}

/// Which rows a view shows.
public enum RowFilter: Hashable, Sendable {
    /// Every row of every timeline.
    case all
    /// The rows of one timeline's events.
    case timeline(TimelineID)

    func includes(_ event: EventSnapshot) -> Bool {
        switch self {
        case .all: true
        case .timeline(let id): event.timeline == id
        }
    }
}

/// A view of the date rows: which rows, in which order, in which sections.
///
/// Views are values: two equal definitions are the same view.
public struct ViewDefinition: Hashable, Sendable {
    /// Which rows the view shows.
    public var filter: RowFilter
    /// Where ongoing rows sort.
    public var placement: OngoingPlacement
    /// Ascending or descending.
    public var order: ViewOrder
    /// How rows are grouped into sections.
    public var sections: Sectioning

    /// Creates a view definition; by default all rows, ongoing at now, ascending, no sections.
    public init(
        filter: RowFilter = .all,
        placement: OngoingPlacement = .now,
        order: ViewOrder = .ascending,
        sections: Sectioning = .none
    ) {
        self.filter = filter
        self.placement = placement
        self.order = order
        self.sections = sections
    }
}
