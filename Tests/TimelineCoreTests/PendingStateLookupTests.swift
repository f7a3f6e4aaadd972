import Testing
import TimelineTestSupport
@testable import TimelineCore

/// The overlay a batch is decided against answers the narrow lookups as it answers for
/// whole events, and as the state after the same facts does.
@Suite("The decider's overlay")
struct PendingStateLookupTests {
    static let timelines: [TimelineID] = ["a", "b", "c"]
    static let events: [EventID] = ["e0", "e1", "e2", "e3", "e4"]

    @Test func narrowLookupsAgreeWithWholeEvents() throws {
        var rng = SplitMix64(seed: 42)
        let dates = try ["2019", "2020-01", "2021-01-01T10:00Z"].map { try DateValue(parsing: $0) }
        func randomFact() -> Fact {
            let event = Self.events[rng.below(Self.events.count)]
            let timeline = Self.timelines[rng.below(Self.timelines.count)]
            let date = dates[rng.below(dates.count)]
            switch rng.below(9) {
            case 0: return .timelineCreated(timeline: timeline, name: "n")
            case 1: return .timelineRemoved(timeline: timeline)
            case 2: return .eventAdded(event: event, timeline: timeline, title: "x", date: date)
            case 3: return .eventRemoved(event: event)
            case 4: return .eventMoved(event: event, timeline: timeline)
            case 5: return .rangeSet(event: event, start: date, end: rng.chance(50) ? nil : date)
            case 6: return .rangeReopened(event: event)
            case 7: return .rangeClosed(event: event, end: date)
            default: return .dateSet(event: event, date: date)
            }
        }
        for _ in 0..<3000 {
            var base = DomainState()
            for _ in 0..<rng.below(15) {
                let fact = randomFact()
                if (try? Decider.check(fact, in: base)) != nil { base.apply(fact) }
            }
            var pending = PendingState(base: base)
            var reference = base
            for _ in 0..<rng.below(15) {
                let fact = randomFact()
                guard (try? Decider.check(fact, in: pending)) != nil else { continue }
                #expect((try? Decider.check(fact, in: reference)) != nil)
                pending.apply(fact)
                reference.apply(fact)
                for event in Self.events {
                    #expect(pending.eventTimeline(event) == reference.event(event)?.timeline)
                    #expect(pending.eventDates(event) == reference.event(event)?.dates)
                    #expect(pending.event(event) == reference.event(event))
                }
            }
        }
    }
}
