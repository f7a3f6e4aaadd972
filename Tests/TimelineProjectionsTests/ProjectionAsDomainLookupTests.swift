import Testing
import TimelineTestSupport
import TimelineCore
@testable import TimelineProjections

/// The projection holds the timelines and events the decider needs, so a store keeps
/// them once: deciding against the projection gives what deciding against a
/// `DomainState` gives, and a validating build refuses what the rules refuse.
@Suite("The projection as the decider's state")
struct ProjectionAsDomainLookupTests {
    static let now = date("2026-11-29T12:00:00Z").instant

    @Test(arguments: 0..<20)
    func decidingAgainstTheProjectionEqualsDecidingAgainstTheState(seed: UInt64) {
        var generator = FactGenerator(seed: seed)
        var projection = TimelineProjection(views: [ViewDefinition()], now: Self.now)
        var position: Int64 = 0
        var accepted = 0, refused = 0
        for _ in 0..<400 {
            let command = generator.command()
            let expected = Result { () throws(Rejection) in try Decider.decide(command, generator.state) }
            let actual = Result { () throws(Rejection) in try Decider.decide(command, projection) }
            #expect(actual == expected, "seed \(seed): \(command)")
            guard case .success(let facts) = expected else {
                refused += 1
                continue
            }
            accepted += 1
            for fact in facts { generator.state.apply(fact) }
            position += 1
            projection.apply(Record(position: position, facts: facts))
        }
        #expect(projection.domainState == generator.state)
        #expect(accepted > 50 && refused > 50, "both outcomes were compared")
        // The narrow lookups the rules use agree with the whole event.
        for id in generator.state.events.keys + ["no-such-event"] {
            #expect(projection.eventTimeline(id) == generator.state.events[id]?.timeline)
            #expect(projection.eventDates(id) == generator.state.events[id]?.dates)
        }
    }

    @Test(arguments: 0..<20)
    func aValidatingBuildEqualsABuildAndRefusesTheFirstBrokenRule(seed: UInt64) throws {
        var generator = FactGenerator(seed: seed)
        var records: [Record] = []
        for _ in 0..<80 { records.append(Record(position: Int64(records.count + 1), facts: generator.nextFacts())) }
        let views = [ViewDefinition(), ViewDefinition(filter: .timeline("home"), sections: .year)]
        let checked = try TimelineProjection(validating: records, views: views, now: Self.now)
        let unchecked = TimelineProjection(records: records, views: views, now: Self.now)
        for view in views { #expect(Array(checked.rows(view)!) == Array(unchecked.rows(view)!)) }
        #expect(checked.domainState == generator.state)
        // Sequences without contiguous storage take the generic path, with the same result.
        let lazily = TimelineProjection(records: records.lazy.map { $0 }, views: views, now: Self.now)
        var applied = TimelineProjection(views: views, now: Self.now)
        applied.apply(AnyCollection(records[..<40]))
        applied.apply(AnyCollection(records[40...]))
        for view in views {
            #expect(Array(lazily.rows(view)!) == Array(unchecked.rows(view)!))
            #expect(Array(applied.rows(view)!) == Array(unchecked.rows(view)!))
        }

        // A fact the rules refuse in the state before it, somewhere in the log.
        var rng = SplitMix64(seed: seed &+ 77)
        let at = rng.below(records.count)
        var state = DomainState()
        for record in records[..<at] { for fact in record.facts { state.apply(fact) } }
        let broken: Fact = switch rng.below(3) {
        case 0: .eventRetitled(event: "nobody", title: "Ghost")
        case 1: .eventAdded(event: "x", timeline: "nowhere", title: "Lost", date: date("2001"))
        default: .timelineRenamed(timeline: "nowhere", name: "Gone")
        }
        var damaged = records
        damaged[at] = Record(position: records[at].position, facts: [broken])
        let expected: Rejection
        do {
            try Decider.check(broken, in: state)
            Issue.record("the fact should be refused")
            return
        } catch {
            expected = error
        }
        #expect(throws: FactRefusal(position: Int64(at + 1), fact: broken, rejection: expected)) {
            try TimelineProjection(validating: damaged, views: views, now: Self.now)
        }
    }

    @Test func aRefusalNamesTheRecordTheFactAndTheRule() {
        let refusal = FactRefusal(position: 12, fact: .eventAdded(event: "e1", timeline: "work", title: "Job",
                                                                     date: date("2019")),
                                    rejection: .unknownTimeline("work"))
        #expect(refusal.description == "record 12: eventAdded: " + Rejection.unknownTimeline("work").description)
    }
}
