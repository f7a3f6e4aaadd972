import TimelineTestSupport
import TimelineCore

/// What a workload has made so far — its timelines and events, with their dates — so that
/// every command it draws is one the decider accepts.
///
/// Event ids are short (`e` and a base-36 number, at most 15 bytes, so Swift keeps them
/// inline); titles are realistic and mostly on the heap.
struct WorkloadModel {
    /// The timeline that the benchmark's per-timeline views show.
    static let viewTimeline: TimelineID = "life"

    /// At most this many short-lived timelines exist at a time.
    static let maximumTemporaryTimelines = 4

    /// The lasting timelines and how many of the new events each gets, in percent.
    static let permanentTimelines: [(id: TimelineID, weight: Int)] = [
        ("life", 30), ("work", 20), ("travel", 12), ("family", 10), ("home", 6), ("health", 5), ("school", 5),
        ("music", 3), ("sport", 3), ("projects", 3), ("friends", 2), ("pets", 1),
    ]

    private struct TimelineState {
        var id: TimelineID
        var isTemporary: Bool
        var isAlive: Bool
        /// Events added to a temporary timeline (some may have moved or gone since).
        var members: [Int] = []
    }

    private struct EventState {
        var number: Int
        var id: EventID
        var timeline: Int
        var start: DateValue
        var end: DateValue?
        var isRange: Bool
        var rows: Int { isRange ? 2 : 1 }
    }

    private var timelines: [TimelineState] = []
    private var events: [EventState] = []
    /// The index in `events` of each event number, -1 once it is gone.
    private var slots: [Int32] = []
    private var temporaryCount = 0
    /// Where each timeline that exists is in `timelines`.
    private var timelineIndices: [TimelineID: Int] = [:]
    /// The temporary timelines that exist, oldest first.
    private var aliveTemporary: [Int] = []
    private let permanentWeights = WorkloadModel.permanentTimelines.map(\.weight)
    private let permanentTotal = WorkloadModel.permanentTimelines.reduce(0) { $0 + $1.weight }
    private(set) var rowCount = 0
    var eventCount: Int { events.count }
    var rng: SplitMix64
    let dates: DatePool

    init(seed: UInt64, dates: DatePool) {
        rng = SplitMix64(seed: seed)
        self.dates = dates
    }

    // MARK: Drawing commands

    /// The commands that create the lasting timelines.
    mutating func createPermanentTimelines() -> [Command] {
        WorkloadModel.permanentTimelines.map { entry in
            let command = Command.createTimeline(entry.id, name: TitleGenerator.timelineName(using: &rng))
            apply(command)
            return command
        }
    }

    /// Events added (with the mix of single dates and ranges of ``addEvent()``) until the
    /// list of all rows holds at least `rows` rows.
    mutating func populate(rows target: Int) -> [Command] {
        var commands: [Command] = []
        commands.reserveCapacity(target)
        while rowCount < target { commands.append(addEvent(usesTemporaryTimelines: false)) }
        return commands
    }

    /// The next command of `mix`, already applied to the model.
    mutating func next(_ mix: CommandMix) -> Command {
        let command = draw(mix.draw(using: &rng), mix)
        return command
    }

    private mutating func draw(_ kind: CommandMix.Kind, _ mix: CommandMix) -> Command {
        if events.isEmpty, kind != .createTimeline, kind != .renameTimeline {
            return addEvent(usesTemporaryTimelines: mix.usesTemporaryTimelines)
        }
        let command: Command
        switch kind {
        case .addEvent:
            return addEvent(usesTemporaryTimelines: mix.usesTemporaryTimelines)
        case .retitleEvent:
            command = .retitleEvent(randomEvent().id, title: TitleGenerator.title(using: &rng))
        case .setDate:
            command = .setDate(randomEvent().id, dates.date(using: &rng))
        case .setRange:
            command = setRange(randomEvent())
        case .closeRange:
            if let open = findEvent(where: { $0.isRange && $0.end == nil }) {
                command = .closeRange(open.id, end: dates.date(notBefore: open.start, using: &rng))
            } else {
                command = .setRange(randomEvent().id, start: dates.date(using: &rng), end: nil)
            }
        case .reopenRange:
            if let closed = findEvent(where: { $0.isRange && $0.end != nil }) {
                command = .reopenRange(closed.id)
            } else {
                command = .retitleEvent(randomEvent().id, title: TitleGenerator.title(using: &rng))
            }
        case .moveEvent:
            let event = randomEvent()
            var target = permanentTimeline()
            while target == event.timeline { target = permanentTimeline() }
            command = .moveEvent(event.id, to: timelines[target].id)
        case .removeEvent:
            command = .removeEvent(randomEvent().id)
        case .createTimeline:
            // People keep a handful of short-lived timelines, not hundreds.
            if aliveTemporary.count < Self.maximumTemporaryTimelines {
                command = createTemporaryTimeline()
            } else {
                command = .renameTimeline(timelines[aliveTemporary[0]].id, name: TitleGenerator.timelineName(using: &rng))
            }
        case .renameTimeline:
            let permanent = WorkloadModel.permanentTimelines.count
            let pick = rng.below(permanent + aliveTemporary.count)
            let index = pick < permanent ? pick : aliveTemporary[pick - permanent]
            command = .renameTimeline(timelines[index].id, name: TitleGenerator.timelineName(using: &rng))
        case .removeTimeline:
            if let oldest = aliveTemporary.first {
                command = .removeTimeline(timelines[oldest].id)
            } else {
                command = createTemporaryTimeline()
            }
        }
        apply(command)
        return command
    }

    private mutating func addEvent(usesTemporaryTimelines: Bool) -> Command {
        var timeline = permanentTimeline()
        if usesTemporaryTimelines, rng.chance(3), let temporary = aliveTemporary.last {
            timeline = temporary
        }
        let number = slots.count
        let id = EventID("e" + String(number, radix: 36))
        let start = dates.date(using: &rng)
        let eventDates: EventDates = switch rng.below(100) {
        case 0..<75: .single(start)
        case 75..<90: .range(start: start, end: dates.date(notBefore: start, using: &rng))
        default: .range(start: start, end: nil)
        }
        let command = Command.addEvent(id, timeline: timelines[timeline].id, title: TitleGenerator.title(using: &rng),
                                       dates: eventDates)
        apply(command)
        return command
    }

    private mutating func setRange(_ event: EventState) -> Command {
        let start = dates.date(using: &rng)
        let end = rng.chance(60) ? dates.date(notBefore: start, using: &rng) : nil
        return .setRange(event.id, start: start, end: end)
    }

    private mutating func createTemporaryTimeline() -> Command {
        temporaryCount += 1
        return .createTimeline(TimelineID("t" + String(temporaryCount)), name: TitleGenerator.timelineName(using: &rng))
    }

    private mutating func permanentTimeline() -> Int {
        rng.weighted(permanentWeights, total: permanentTotal)
    }

    private mutating func randomEvent() -> EventState { events[rng.below(events.count)] }

    private mutating func findEvent(where matches: (EventState) -> Bool) -> EventState? {
        for _ in 0..<32 {
            let event = randomEvent()
            if matches(event) { return event }
        }
        return nil
    }

    // MARK: Following the commands

    private func eventIndex(_ id: EventID) -> Int {
        guard id.rawValue.first == "e", let number = Int(id.rawValue.dropFirst(), radix: 36) else {
            fatalError("not a workload event id: \(id)")
        }
        let slot = Int(slots[number])
        precondition(slot >= 0, "event \(id) is gone")
        return slot
    }

    private func timelineIndex(_ id: TimelineID) -> Int {
        guard let index = timelineIndices[id] else {
            fatalError("unknown workload timeline \(id)")
        }
        return index
    }

    /// Follows a command the model drew (and the decider will accept).
    private mutating func apply(_ command: Command) {
        switch command {
        case .createTimeline(let id, _):
            let isTemporary = !WorkloadModel.permanentTimelines.contains { $0.id == id }
            timelineIndices[id] = timelines.count
            if isTemporary { aliveTemporary.append(timelines.count) }
            timelines.append(TimelineState(id: id, isTemporary: isTemporary, isAlive: true))
        case .renameTimeline:
            break
        case .removeTimeline(let id):
            let index = timelineIndex(id)
            for number in timelines[index].members where slots[number] >= 0 {
                let slot = Int(slots[number])
                if events[slot].timeline == index { removeEvent(at: slot) }
            }
            timelines[index].isAlive = false
            timelines[index].members = []
            timelineIndices[id] = nil
            aliveTemporary.removeAll { $0 == index }
        case .addEvent(let id, let timeline, _, let eventDates):
            let index = timelineIndex(timeline)
            let number = slots.count
            var event = EventState(number: number, id: id, timeline: index, start: eventDates.start, end: nil, isRange: false)
            if case .range(_, let end) = eventDates {
                event.isRange = true
                event.end = end
            }
            slots.append(Int32(events.count))
            events.append(event)
            rowCount += event.rows
            if timelines[index].isTemporary { timelines[index].members.append(number) }
        case .retitleEvent:
            break
        case .setDate(let id, let date):
            let slot = eventIndex(id)
            rowCount -= events[slot].rows
            events[slot].start = date
            events[slot].end = nil
            events[slot].isRange = false
            rowCount += 1
        case .setRange(let id, let start, let end):
            let slot = eventIndex(id)
            rowCount -= events[slot].rows
            events[slot].start = start
            events[slot].end = end
            events[slot].isRange = true
            rowCount += 2
        case .closeRange(let id, let end):
            events[eventIndex(id)].end = end
        case .reopenRange(let id):
            events[eventIndex(id)].end = nil
        case .moveEvent(let id, let timeline):
            events[eventIndex(id)].timeline = timelineIndex(timeline)
        case .removeEvent(let id):
            removeEvent(at: eventIndex(id))
        }
    }

    private mutating func removeEvent(at slot: Int) {
        rowCount -= events[slot].rows
        slots[events[slot].number] = -1
        let last = events.count - 1
        if slot != last {
            events[slot] = events[last]
            slots[events[slot].number] = Int32(slot)
        }
        events.removeLast()
    }
}
