import TimelineTestSupport
import TimelineCore
@testable import TimelineProjections

func date(_ text: String) -> DateValue {
    do { return try DateValue(parsing: text) } catch { fatalError("\(error)") }
}

/// Generates valid random facts that use every fact type, checked by the real decider.
struct FactGenerator {
    var rng: SplitMix64
    var state = DomainState()
    let timelineIDs: [TimelineID] = ["home", "work", "\u{E9}", "e\u{301}"]
    let eventIDs: [EventID]
    let dates: [DateValue] = [
        "1990", "1990-04", "1990-04-12", "1990-01-01", "2000", "2000-02-29", "2010-06", "2010-06-15T10:30Z",
        "2010-06-15T12:30+02:00", "2019-03", "2020", "2020-12-31T23:59:59.5Z", "2024-02-29", "2025-06",
        // One microsecond apart by their nanoseconds alone, and one instant in two texts.
        "2010-06-15T10:30:00.0000001Z", "2010-06-15T10:30:00.0000002Z", "2010-06-15T10:30:00.00000015Z",
        "2010-06-15T12:30:00.000000100+02:00", "2010-06-15T10:30:00.000001Z",
    ].map(date)

    init(seed: UInt64, events: Int = 24) {
        rng = SplitMix64(seed: seed)
        eventIDs = (0..<events).map { EventID("e\($0 % 3 == 0 ? "Z" : "a")\($0)") }
            + ["ä", "a\u{308}", "aa", "a", "\u{E9}", "e\u{301}"]
    }

    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &rng)] }

    mutating func command() -> Command {
        let title = pick(["Born", "School", "Job", "  Trip  ", "Ünïcödé", "😀 party"])
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<6: return .createTimeline(pick(timelineIDs), name: pick(["Home", "Work", "Travel", "Zed"]))
        case 6..<8: return .renameTimeline(pick(timelineIDs), name: pick(["Home", "Work", "A", "Zed"]))
        case 8..<9: return .removeTimeline(pick(timelineIDs))
        case 9..<35:
            let dates: EventDates = switch Int.random(in: 0..<3, using: &rng) {
            case 0: .single(pick(self.dates))
            case 1: .range(start: pick(self.dates), end: nil)
            default: .range(start: pick(self.dates), end: pick(self.dates))
            }
            return .addEvent(pick(eventIDs), timeline: pick(timelineIDs), title: title, dates: dates)
        case 35..<45: return .retitleEvent(pick(eventIDs), title: title)
        case 45..<53: return .setDate(pick(eventIDs), pick(dates))
        case 53..<63: return .setRange(pick(eventIDs), start: pick(dates), end: Bool.random(using: &rng) ? nil : pick(dates))
        case 63..<73: return .closeRange(pick(eventIDs), end: pick(dates))
        case 73..<80: return .reopenRange(pick(eventIDs))
        case 80..<90: return .moveEvent(pick(eventIDs), to: pick(timelineIDs))
        default: return .removeEvent(pick(eventIDs))
        }
    }

    /// The next accepted command's facts.
    mutating func nextFacts() -> [Fact] {
        while true {
            if let facts = try? Decider.decide(command(), state) {
                for fact in facts { state.apply(fact) }
                return facts
            }
        }
    }
}

/// The date rows computed the simple way: every event's rows, filtered and fully sorted.
enum ReferenceModel {
    static func rows(_ state: DomainState, _ view: ViewDefinition, now: Instant) -> [Row] {
        typealias Keyed = (group: Int, instant: Instant, id: [UInt8], role: UInt8, row: Row)
        var keyed: [Keyed] = []
        for event in state.events.values {
            if case .timeline(let t) = view.filter, event.timeline != t { continue }
            func add(_ kind: RowKind, _ date: DateValue?, _ sortInstant: Instant) {
                let ongoing = kind == .ongoing
                let group = switch view.placement {
                case .now: 0
                case .last: ongoing ? 1 : 0
                case .first: ongoing ? 0 : 1
                }
                let row = Row(id: RowID(event: event.id, role: kind.role), kind: kind, timeline: event.timeline,
                              title: event.title, date: date)
                keyed.append((group, sortInstant, Array(event.id.rawValue.utf8), kind.role.rawValue, row))
            }
            switch event.dates {
            case .single(let d): add(.single, d, d.instant)
            case .range(let s, let e):
                add(.start, s, s.instant)
                if let e {
                    add(.end, e, e.instant)
                } else {
                    add(.ongoing, nil, view.placement == .now ? max(now, s.instant) : s.instant)
                }
            }
        }
        keyed.sort { a, b in
            if a.group != b.group { return a.group < b.group }
            if a.instant != b.instant { return a.instant < b.instant }
            if a.id != b.id { return a.id.lexicographicallyPrecedes(b.id) }
            return a.role < b.role
        }
        let rows = keyed.map(\.row)
        return view.order == .descending ? rows.reversed() : rows
    }

    static func sections(_ state: DomainState, _ view: ViewDefinition, now: Instant) -> [RowSection] {
        guard view.sections != .none else { return [] }
        var result: [RowSection] = []
        for row in rows(state, view, now: now) {
            let id: RowSection.ID
            if row.kind == .ongoing, view.placement != .now {
                id = .ongoing
            } else {
                let instant = row.date?.instant ?? max(now, state.events[row.event]!.dates.start.instant)
                let (y, m, _) = instant.utcDate
                switch view.sections {
                case .year: id = .year(y)
                case .month: id = .month(year: y, month: m)
                case .decade: id = .decade(startingIn: y / 10 * 10)
                case .none: fatalError("no sections")
                }
            }
            if result.last?.id == id { result[result.count - 1].count += 1 } else { result.append(RowSection(id: id, count: 1)) }
        }
        return result
    }
}

/// Every combination of filter, placement, order and sections the tests check.
let allViews: [ViewDefinition] = {
    var views: [ViewDefinition] = []
    for filter in [RowFilter.all, .timeline("home"), .timeline("work")] {
        for placement in OngoingPlacement.allCases {
            for order in ViewOrder.allCases {
                for sections in Sectioning.allCases {
                    views.append(ViewDefinition(filter: filter, placement: placement, order: order, sections: sections))
                }
            }
        }
    }
    return views
}()
