import Testing
@testable import TimelineCore
import TimelineTestSupport

/// Given a state and a sequence of facts (an import), then accepted, or the index of the
/// first refused fact and the rule it breaks.
@Suite("Decider: sequences of facts")
struct DeciderSequenceTests {
    static func date(_ text: String) -> DateValue { DeciderTests.date(text) }

    @Test func anEmptySequenceIsAccepted() throws {
        try Decider.check([Fact](), in: DomainState())
        try Decider.check([Fact](), in: DeciderTests.state())
    }

    /// A batch of commands is decided in order, each in the state after the ones before it,
    /// whether it comes as an array (the store's form) or as another collection.
    @Test func aBatchOfCommandsIsDecidedInOrderAsAnyCollection() throws {
        let commands: [Command] = [
            .createTimeline("travel", name: "Travel"),
            .addEvent("trip", timeline: "travel", title: "Trip", dates: .single(Self.date("2020"))),
        ]
        let expected: [Fact] = [
            .timelineCreated(timeline: "travel", name: "Travel"),
            .eventAdded(event: "trip", timeline: "travel", title: "Trip", date: Self.date("2020")),
        ]
        #expect(try Decider.decide(commands, DomainState()) == expected)
        #expect(try Decider.decide(commands[...], DomainState()) == expected)
        // The event needs the timeline created before it.
        #expect(throws: Rejection.unknownTimeline("travel")) { try Decider.decide(commands[1...], DomainState()) }
        #expect(throws: Rejection.unknownTimeline("travel")) {
            try Decider.decide(Array(commands.reversed()), DomainState())
        }
        #expect(throws: Rejection.unknownTimeline("travel")) {
            try Decider.decide(commands.reversed(), DomainState())
        }
        // One command in a collection is decided as it is alone.
        #expect(try Decider.decide([commands[0]], DomainState()) == [expected[0]])
        #expect(try Decider.decide(CollectionOfOne(commands[0]), DomainState()) == [expected[0]])
    }

    /// An event added with a range is decided without the overlay (its range's fact needs
    /// only the range rule): the outcome is the overlay's, for events new and existing,
    /// timelines known and not, titles fine and empty, ranges open, closed and backwards.
    @Test func anEventAddedWithARangeIsDecidedAsItsFactsAreChecked() throws {
        var random = SplitMix64(seed: 0xADD5)
        let state = DeciderTests.state()
        let ids: [EventID] = ["born", "berlin", "new", "other"]
        let timelines: [TimelineID] = ["life", "work", "nope"]
        let titles = ["Trip", "  ", " Padded "]
        let years = ["1990", "2000", "2000-06", "2001"]
        var outcomes = Set<String>()
        for _ in 0..<400 {
            let start = Self.date(years[random.below(years.count)])
            let end = random.chance(30) ? nil : Self.date(years[random.below(years.count)])
            let command = Command.addEvent(ids[random.below(ids.count)], timeline: timelines[random.below(timelines.count)],
                                           title: titles[random.below(titles.count)],
                                           dates: .range(start: start, end: end))
            let proposed = Decider.proposedFacts(for: command)
            #expect(proposed.count == 2)
            var expected: Result<[Fact], Rejection> = .success(proposed)
            do { try Decider.check(proposed, in: state) } catch { expected = .failure(error.rejection) }
            let decided = Result { () throws(Rejection) in try Decider.decide(command, state) }
            #expect(decided == expected, "\(command)")
            switch decided {
            case .success: outcomes.insert("accepted")
            case .failure(let rejection): outcomes.insert(Mirror(reflecting: rejection).children.first?.label ?? "?")
            }
        }
        // Every outcome was reached: accepted, an existing event, an unknown timeline, an
        // empty title, and a range that ends before it starts.
        #expect(outcomes == ["accepted", "eventExists", "unknownTimeline", "emptyText", "endBeforeStart"])
    }

    /// The shortcut is for an event added with a range of its own: a range of another
    /// event, after an event added, is checked through the overlay, which knows no such event.
    @Test func aRangeOfAnotherEventIsNotTakenForTheAddedOnes() {
        let added = Fact.eventAdded(event: "x", timeline: "life", title: "X", date: Self.date("2000"))
        #expect(throws: Rejection.unknownEvent("nope")) {
            try Decider.decide(proposed: [added, .rangeSet(event: "nope", start: Self.date("2000"), end: nil)],
                               DeciderTests.state())
        }
        #expect(throws: Rejection.endBeforeStart(event: "x", start: Self.date("2001"), end: Self.date("2000"))) {
            try Decider.decide(proposed: [added, .rangeSet(event: "x", start: Self.date("2001"), end: Self.date("2000"))],
                               DeciderTests.state())
        }
    }

    @Test func factsMayDependOnEarlierFactsOfTheSameSequence() throws {
        let facts: [Fact] = [
            .timelineCreated(timeline: "travel", name: "Travel"),
            .eventAdded(event: "trip", timeline: "travel", title: "Trip", date: Self.date("2020-05")),
            .rangeSet(event: "trip", start: Self.date("2020-05"), end: nil),
            .rangeClosed(event: "trip", end: Self.date("2020-06")),
            .rangeReopened(event: "trip"),
            .timelineRemoved(timeline: "travel"),
            // Removing the timeline removed its event, so the id is free again.
            .timelineCreated(timeline: "travel", name: "Travel again"),
            .eventAdded(event: "trip", timeline: "travel", title: "Trip again", date: Self.date("2021")),
        ]
        try Decider.check(facts, in: DomainState())
        // And after the facts of the state checked against.
        try Decider.check([.rangeClosed(event: "berlin", end: Self.date("2024")), .rangeReopened(event: "berlin")],
                          in: DeciderTests.state())
    }

    @Test func theFirstRefusedFactIsNamedByIndexAndRule() {
        // Fact 2 would be fine on its own in the state, but fact 1 closed the range already;
        // fact 3 is refused too, but only the first refusal counts.
        let facts: [Fact] = [
            .eventRetitled(event: "berlin", title: "Berlin"),
            .rangeClosed(event: "berlin", end: Self.date("2024")),
            .rangeClosed(event: "berlin", end: Self.date("2025")),
            .eventRemoved(event: "nowhere"),
        ]
        let expected = FactRefusal(index: 2, fact: facts[2], rejection: .notOpenRange("berlin"))
        #expect(throws: expected) { try Decider.check(facts, in: DeciderTests.state()) }
        #expect(expected.description == #"fact at index 2: rangeClosed: event "berlin" is not an open range"#)
    }

    @Test func aFactThatDependsOnALaterFactIsRefused() {
        let facts: [Fact] = [
            .eventAdded(event: "trip", timeline: "travel", title: "Trip", date: Self.date("2020-05")),
            .timelineCreated(timeline: "travel", name: "Travel"),
        ]
        #expect(throws: FactRefusal(index: 0, fact: facts[0], rejection: .unknownTimeline("travel"))) {
            try Decider.check(facts, in: DeciderTests.state())
        }
    }

    @Test func removingATimelineInTheSequenceRemovesItsEventsForLaterFacts() {
        let facts: [Fact] = [.timelineRemoved(timeline: "life"), .eventRetitled(event: "born", title: "Birth")]
        #expect(throws: FactRefusal(index: 1, fact: facts[1], rejection: .unknownEvent("born"))) {
            try Decider.check(facts, in: DeciderTests.state())
        }
    }
}
