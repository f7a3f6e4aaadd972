import TimelineTestSupport

/// How often each kind of command is drawn.
struct CommandMix {
    enum Kind: CaseIterable {
        case addEvent, retitleEvent, setDate, setRange, closeRange, reopenRange, moveEvent, removeEvent
        case createTimeline, renameTimeline, removeTimeline
    }

    let weights: [Int]
    let total: Int
    /// Whether events are sometimes added to short-lived timelines that are later removed.
    let usesTemporaryTimelines: Bool

    init(_ table: [Kind: Int], usesTemporaryTimelines: Bool) {
        weights = Kind.allCases.map { table[$0] ?? 0 }
        total = weights.reduce(0, +)
        self.usesTemporaryTimelines = usesTemporaryTimelines
    }

    func draw(using rng: inout SplitMix64) -> Kind { Kind.allCases[rng.weighted(weights, total: total)] }

    /// Someone using the app: adding, editing, moving and removing events, with the number
    /// of events staying about level.
    static let interactive = CommandMix([
        .addEvent: 25, .retitleEvent: 20, .removeEvent: 20, .setRange: 10, .closeRange: 10,
        .moveEvent: 10, .setDate: 5,
    ], usesTemporaryTimelines: false)

    /// Years of use as a log records it: mostly additions, every other fact now and then,
    /// timelines created, renamed and removed (with their events).
    static let history = CommandMix([
        .addEvent: 500, .retitleEvent: 100, .setDate: 50, .setRange: 80, .closeRange: 60, .reopenRange: 30,
        .moveEvent: 60, .removeEvent: 100, .createTimeline: 4, .renameTimeline: 10, .removeTimeline: 3,
    ], usesTemporaryTimelines: true)
}
