import TimelineCore
import TimelineProjections
import TimelineTestSupport


/// The three live views every measurement maintains: all rows, one timeline, and the same
/// timeline in year sections (a list screen and its sectioned variant).
enum BenchViews {
    static let all = ViewDefinition()
    static let timeline = ViewDefinition(filter: .timeline(WorkloadModel.viewTimeline))
    static let timelineByYear = ViewDefinition(filter: .timeline(WorkloadModel.viewTimeline), sections: .year)
    static let definitions = [all, timeline, timelineByYear]

    /// "Now" for every view, fixed so that runs compare: 2026-11-29T12:00:00Z.
    static let now: Instant = {
        do { return try DateValue(parsing: "2026-11-29T12:00:00Z").instant } catch { fatalError("\(error)") }
    }()
}


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

    /// The lasting timelines and the percentage of new events each gets.
    static let permanentTimelines: [(id: TimelineID, weight: Int)] = [
        ("life", 30), ("work", 20), ("travel", 12), ("family", 10), ("home", 6), ("health", 5), ("school", 5),
        ("music", 3), ("sport", 3), ("projects", 3), ("friends", 2), ("pets", 1),
    ]

    private struct TimelineState {
        var id: TimelineID
        var isTemporary: Bool
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
        let kind = mix.draw(using: &rng)
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

    private func eventIndex(_ id: EventID) -> Int {
        guard id.rawValue.first == "e", let number = Int(id.rawValue.dropFirst(), radix: 36), slots[number] >= 0 else {
            fatalError("not an event of the workload, or gone: \(id)")
        }
        return Int(slots[number])
    }

    private func timelineIndex(_ id: TimelineID) -> Int {
        guard let index = timelineIndices[id] else { fatalError("unknown workload timeline \(id)") }
        return index
    }

    /// Follows a command the model drew (and the decider will accept).
    private mutating func apply(_ command: Command) {
        switch command {
        case .createTimeline(let id, _):
            let isTemporary = !WorkloadModel.permanentTimelines.contains { $0.id == id }
            timelineIndices[id] = timelines.count
            if isTemporary { aliveTemporary.append(timelines.count) }
            timelines.append(TimelineState(id: id, isTemporary: isTemporary))
        case .renameTimeline, .retitleEvent:
            break
        case .removeTimeline(let id):
            let index = timelineIndex(id)
            for number in timelines[index].members where slots[number] >= 0 {
                let slot = Int(slots[number])
                if events[slot].timeline == index { removeEvent(at: slot) }
            }
            timelines[index].members = []
            timelineIndices[id] = nil
            aliveTemporary.removeAll { $0 == index }
        case .addEvent(let id, let timeline, _, let eventDates):
            let index = timelineIndex(timeline)
            let number = slots.count
            var event = EventState(number: number, id: id, timeline: index, start: eventDates.start, end: nil, isRange: false)
            if case .range(_, let end) = eventDates { (event.isRange, event.end) = (true, end) }
            slots.append(Int32(events.count))
            events.append(event)
            rowCount += event.rows
            if timelines[index].isTemporary { timelines[index].members.append(number) }
        case .setDate(let id, let date):
            let slot = eventIndex(id)
            rowCount += 1 - events[slot].rows
            (events[slot].start, events[slot].end, events[slot].isRange) = (date, nil, false)
        case .setRange(let id, let start, let end):
            let slot = eventIndex(id)
            rowCount += 2 - events[slot].rows
            (events[slot].start, events[slot].end, events[slot].isRange) = (start, end, true)
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


/// The dates the workload uses: every year, month and day from 1900 to 2026 and a few
/// thousand timestamps with offsets, parsed once so that generating a million events costs
/// no date parsing.
///
/// A date is drawn with a realistic mix of precisions (mostly days, then months, years and
/// a few timestamps); `date(notBefore:)` draws one that can end a range.
struct DatePool {
    private let years: [DateValue]
    private let months: [DateValue]
    private let days: [DateValue]
    private let timestamps: [DateValue]
    /// Every date, ordered by instant, for drawing a range's end.
    private let byInstant: [DateValue]

    init(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        func pad(_ value: Int, _ width: Int) -> String { DecimalDigits.padded(value, width: width) }
        func parse(_ text: String) -> DateValue {
            do { return try DateValue(parsing: text) } catch { fatalError("workload date \(text): \(error)") }
        }
        let yearRange = 1900...2026
        var years: [DateValue] = [], months: [DateValue] = [], days: [DateValue] = [], timestamps: [DateValue] = []
        for year in yearRange {
            years.append(parse(pad(year, 4)))
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            for month in 1...12 {
                let monthText = pad(year, 4) + "-" + pad(month, 2)
                months.append(parse(monthText))
                for day in 1...lengths[month - 1] { days.append(parse(monthText + "-" + pad(day, 2))) }
            }
        }
        let offsets = ["Z", "Z", "+01:00", "+02:00", "-05:00", "+05:30", "-08:00"]
        for _ in 0..<4000 {
            let day = days[rng.below(days.count)].text
            var text = day + "T" + pad(rng.below(24), 2) + ":" + pad(rng.below(60), 2)
            if rng.chance(50) {
                text += ":" + pad(rng.below(60), 2)
                if rng.chance(20) { text += "." + pad(rng.below(1000), 3) }
            }
            text += offsets[rng.below(offsets.count)]
            timestamps.append(parse(text))
        }
        self.years = years
        self.months = months
        self.days = days
        self.timestamps = timestamps
        self.byInstant = (years + months + days + timestamps).sorted { $0.instant < $1.instant }
    }

    /// A date: 60 % days, 25 % months, 10 % years, 5 % timestamps.
    func date(using rng: inout SplitMix64) -> DateValue {
        switch rng.below(100) {
        case 0..<60: days[rng.below(days.count)]
        case 60..<85: months[rng.below(months.count)]
        case 85..<95: years[rng.below(years.count)]
        default: timestamps[rng.below(timestamps.count)]
        }
    }

    /// A date whose instant is not before `start`'s: a valid end for a range from `start`.
    func date(notBefore start: DateValue, using rng: inout SplitMix64) -> DateValue {
        var low = 0, high = byInstant.count
        while low < high {
            let mid = (low + high) / 2
            if byInstant[mid].instant < start.instant { low = mid + 1 } else { high = mid }
        }
        guard low < byInstant.count else { return start }
        // Mostly a nearby end (ranges of months or years), sometimes any later date.
        let span = rng.chance(80) ? min(byInstant.count - low, 4000) : byInstant.count - low
        return byInstant[low + rng.below(span)]
    }
}


/// Titles and names that look like what people write on a timeline: "Moved to Zürich",
/// "Job at Northwind", "Trip to São Paulo with Ana", a few with quotes or dashes, most of
/// them 10 to 40 bytes of UTF-8 (so they live on the heap, as real titles do).
enum TitleGenerator {
    private static let places = [
        "Berlin", "Lisbon", "Zürich", "São Paulo", "Kyoto", "New York", "Oslo", "Kraków", "Montréal",
        "Cape Town", "Reykjavík", "Melbourne", "Edinburgh", "Seville", "Tallinn", "Bordeaux", "Hanoi",
        "Valparaíso", "Istanbul", "Marrakesh", "Vancouver", "Ljubljana", "Dublin", "Naples",
    ]
    private static let people = [
        "Ana", "Jonas", "Mei", "Tomás", "Priya", "Olek", "Fatima", "Sven", "Chloé", "Kwame", "Yuki", "Lars",
    ]
    private static let companies = [
        "Northwind", "Contoso", "Initech", "Globex", "Umbrella Labs", "Acme Corp", "Hooli", "Stark & Sons",
    ]
    private static let things = [
        "the old Volvo", "a piano", "the flat on Elm Street", "a bicycle", "the cabin", "a sailboat",
    ]
    private static let skills = ["Portuguese", "the cello", "to swim", "to drive", "pottery", "Japanese"]

    /// A title for an event.
    static func title(using rng: inout SplitMix64) -> String {
        func pick(_ list: [String]) -> String { list[rng.below(list.count)] }
        switch rng.below(16) {
        case 0: return "Moved to " + pick(places)
        case 1: return "Trip to " + pick(places) + " with " + pick(people)
        case 2: return "Job at " + pick(companies)
        case 3: return pick(people) + "'s wedding in " + pick(places)
        case 4: return "Bought " + pick(things)
        case 5: return "Learned " + pick(skills)
        case 6: return "Concert in " + pick(places)
        case 7: return "Holiday — " + pick(places)
        case 8: return "Studied in " + pick(places)
        case 9: return "Born"
        case 10: return "Sold " + pick(things)
        case 11: return "Met " + pick(people)
        case 12: return "Marathon in " + pick(places) + " (finished!)"
        case 13: return "Conference \"" + pick(companies) + " Summit\" in " + pick(places)
        case 14: return "Living in " + pick(places)
        default: return "Project with " + pick(people) + " at " + pick(companies)
        }
    }

    /// A name for a timeline.
    static func timelineName(using rng: inout SplitMix64) -> String {
        ["My life", "Work", "Travel", "Family", "Archive", "Side projects", "Health"][rng.below(7)]
            + (rng.chance(30) ? " (" + people[rng.below(people.count)] + ")" : "")
    }
}


/// The facts a command records, as the decider records them, without its rules (the workload
/// draws only commands the decider accepts; replaying the logs made of them checks every
/// one): large logs are written without paying for the decider's state.
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

