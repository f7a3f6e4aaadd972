import TimelineCore
import TimelineProjections

/// The three live views every measurement maintains: all rows, one timeline, and the same
/// timeline in year sections (a list screen and its sectioned variant).
enum BenchViews {
    static let all = ViewDefinition()
    static let timeline = ViewDefinition(filter: .timeline(WorkloadModel.viewTimeline))
    static let timelineByYear = ViewDefinition(filter: .timeline(WorkloadModel.viewTimeline), sections: .year)
    static let definitions = [all, timeline, timelineByYear]

    /// The same views for the baselines: which timeline (nil for all) and whether sectioned by year.
    static let baselineSpecs: [BaselineViewSpec] = [
        BaselineViewSpec(timeline: nil, byYear: false),
        BaselineViewSpec(timeline: WorkloadModel.viewTimeline.rawValue, byYear: false),
        BaselineViewSpec(timeline: WorkloadModel.viewTimeline.rawValue, byYear: true),
    ]

    /// "Now" for every view, fixed so that runs compare: 2026-11-29T12:00:00Z.
    static let now: Instant = {
        do { return try DateValue(parsing: "2026-11-29T12:00:00Z").instant } catch { fatalError("\(error)") }
    }()
}

/// A baseline view: all rows or one timeline's, with or without year sections.
struct BaselineViewSpec {
    var timeline: String?
    var byYear: Bool
}
