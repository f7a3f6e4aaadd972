import Testing
@testable import TimelineCore

/// Given facts, when a command is decided, then these facts or this rejection.
@Suite("Decider")
struct DeciderTests {
    static func date(_ text: String) -> DateValue {
        do { return try DateValue(parsing: text) } catch { fatalError("\(error)") }
    }

    /// Facts most scenarios start from: one timeline with a single-date event, an open
    /// range and a closed range.
    static let given: [Fact] = [
        .timelineCreated(timeline: "life", name: "My life"),
        .timelineCreated(timeline: "work", name: "Work"),
        .eventAdded(event: "born", timeline: "life", title: "Born", date: date("1990-04-12")),
        .eventAdded(event: "berlin", timeline: "life", title: "Living in Berlin", date: date("2019-03")),
        .rangeSet(event: "berlin", start: date("2019-03"), end: nil),
        .eventAdded(event: "school", timeline: "life", title: "School", date: date("1996-09")),
        .rangeSet(event: "school", start: date("1996-09"), end: date("2008-06")),
    ]

    static func state(_ facts: [Fact] = given) -> DomainState {
        facts.reduce(DomainState(), Decider.evolve)
    }

    static let accepted: [(Command, [Fact])] = [
        (.createTimeline("travel", name: "  Travel \n"), [.timelineCreated(timeline: "travel", name: "Travel")]),
        (.renameTimeline("life", name: "Life"), [.timelineRenamed(timeline: "life", name: "Life")]),
        (.renameTimeline("life", name: "My life"), [.timelineRenamed(timeline: "life", name: "My life")]),
        (.removeTimeline("work"), [.timelineRemoved(timeline: "work")]),
        (.addEvent("job", timeline: "work", title: "First job", dates: .single(date("2010-01"))),
         [.eventAdded(event: "job", timeline: "work", title: "First job", date: date("2010-01"))]),
        (.addEvent("uni", timeline: "life", title: "University",
                   dates: .range(start: date("2008-10"), end: date("2012-07"))),
         [.eventAdded(event: "uni", timeline: "life", title: "University", date: date("2008-10")),
          .rangeSet(event: "uni", start: date("2008-10"), end: date("2012-07"))]),
        (.retitleEvent("born", title: " Birth "), [.eventRetitled(event: "born", title: "Birth")]),
        (.setDate("school", date("2000")), [.dateSet(event: "school", date: date("2000"))]),
        (.setRange("born", start: date("1990-04-12"), end: nil),
         [.rangeSet(event: "born", start: date("1990-04-12"), end: nil)]),
        (.setRange("born", start: date("1990-04-12"), end: date("1990-04-12")),
         [.rangeSet(event: "born", start: date("1990-04-12"), end: date("1990-04-12"))]),
        (.closeRange("berlin", end: date("2024-06")), [.rangeClosed(event: "berlin", end: date("2024-06"))]),
        (.closeRange("berlin", end: date("2019-03-01")), [.rangeClosed(event: "berlin", end: date("2019-03-01"))]),
        (.reopenRange("school"), [.rangeReopened(event: "school")]),
        (.moveEvent("born", to: "work"), [.eventMoved(event: "born", timeline: "work")]),
        (.moveEvent("born", to: "life"), [.eventMoved(event: "born", timeline: "life")]),
        (.removeEvent("school"), [.eventRemoved(event: "school")]),
    ]

    @Test(arguments: accepted)
    func acceptsValidCommands(_ command: Command, _ expected: [Fact]) throws {
        #expect(try Decider.decide(command, Self.state()) == expected)
    }

    static let long = String(repeating: "x", count: 1001)
    static let rejected: [(Command, Rejection, String)] = [
        (.createTimeline("life", name: "Again"), .timelineExists("life"), "timeline \"life\" already exists"),
        (.createTimeline("new", name: " \t "), .emptyText(field: "timeline name"), "timeline name must not be empty"),
        (.createTimeline("new", name: long), .textTooLong(field: "timeline name", length: 1001),
         "timeline name is 1001 characters long; at most 1000 are allowed"),
        (.renameTimeline("nope", name: "X"), .unknownTimeline("nope"), "unknown timeline \"nope\""),
        (.renameTimeline("life", name: ""), .emptyText(field: "timeline name"), "timeline name must not be empty"),
        (.removeTimeline("nope"), .unknownTimeline("nope"), "unknown timeline \"nope\""),
        (.addEvent("born", timeline: "work", title: "Again", dates: .single(date("2000"))), .eventExists("born"),
         "event \"born\" already exists"),
        (.addEvent("new", timeline: "nope", title: "X", dates: .single(date("2000"))), .unknownTimeline("nope"),
         "unknown timeline \"nope\""),
        (.addEvent("new", timeline: "life", title: "  ", dates: .single(date("2000"))), .emptyText(field: "title"),
         "title must not be empty"),
        (.addEvent("new", timeline: "life", title: long, dates: .single(date("2000"))),
         .textTooLong(field: "title", length: 1001), "title is 1001 characters long; at most 1000 are allowed"),
        (.addEvent("new", timeline: "life", title: "X", dates: .range(start: date("2001"), end: date("2000"))),
         .endBeforeStart(event: "new", start: date("2001"), end: date("2000")),
         "event \"new\": end \"2000\" is before start \"2001\""),
        (.retitleEvent("nope", title: "X"), .unknownEvent("nope"), "unknown event \"nope\""),
        (.retitleEvent("born", title: ""), .emptyText(field: "title"), "title must not be empty"),
        (.setDate("nope", date("2000")), .unknownEvent("nope"), "unknown event \"nope\""),
        (.setRange("nope", start: date("2000"), end: nil), .unknownEvent("nope"), "unknown event \"nope\""),
        (.setRange("born", start: date("2000-01-02"), end: date("2000-01-01T23:59Z")),
         .endBeforeStart(event: "born", start: date("2000-01-02"), end: date("2000-01-01T23:59Z")),
         "event \"born\": end \"2000-01-01T23:59Z\" is before start \"2000-01-02\""),
        (.closeRange("nope", end: date("2020")), .unknownEvent("nope"), "unknown event \"nope\""),
        (.closeRange("born", end: date("2020")), .notOpenRange("born"), "event \"born\" is not an open range"),
        (.closeRange("school", end: date("2020")), .notOpenRange("school"), "event \"school\" is not an open range"),
        (.closeRange("berlin", end: date("2019-02")),
         .endBeforeStart(event: "berlin", start: date("2019-03"), end: date("2019-02")),
         "event \"berlin\": end \"2019-02\" is before start \"2019-03\""),
        (.reopenRange("nope"), .unknownEvent("nope"), "unknown event \"nope\""),
        (.reopenRange("berlin"), .notClosedRange("berlin"), "event \"berlin\" is not a closed range"),
        (.reopenRange("born"), .notClosedRange("born"), "event \"born\" is not a closed range"),
        (.moveEvent("nope", to: "life"), .unknownEvent("nope"), "unknown event \"nope\""),
        (.moveEvent("born", to: "nope"), .unknownTimeline("nope"), "unknown timeline \"nope\""),
        (.removeEvent("nope"), .unknownEvent("nope"), "unknown event \"nope\""),
    ]

    @Test(arguments: rejected)
    func rejectsInvalidCommands(_ command: Command, _ rejection: Rejection, _ message: String) {
        #expect(throws: rejection) { try Decider.decide(command, Self.state()) }
        #expect(rejection.description == message)
    }

    @Test func titlesOfExactlyOneThousandCharactersAreAccepted() throws {
        let title = String(repeating: "é", count: 1000)
        let facts = try Decider.decide(.retitleEvent("born", title: title), Self.state())
        #expect(facts == [.eventRetitled(event: "born", title: title)])
    }

    @Test func removingATimelineRemovesItsEventsAndFreesTheIds() throws {
        var state = Self.state()
        state.apply(.timelineRemoved(timeline: "life"))
        #expect(state.timelines["life"] == nil)
        #expect(state.events.isEmpty)
        #expect(state.eventIDs(in: "life").isEmpty)
        // Both ids may be used again.
        let facts = try Decider.decide(.createTimeline("life", name: "Again"), state)
        state = facts.reduce(state, Decider.evolve)
        _ = try Decider.decide(.addEvent("born", timeline: "life", title: "Born", dates: .single(Self.date("1990"))), state)
    }

    @Test func evolveBuildsEventsFromFacts() {
        let state = Self.state()
        #expect(state.events["berlin"]?.dates == .range(start: Self.date("2019-03"), end: nil))
        #expect(state.events["school"]?.dates == .range(start: Self.date("1996-09"), end: Self.date("2008-06")))
        var moved = state
        moved.apply(.eventMoved(event: "born", timeline: "work"))
        #expect(moved.events["born"]?.timeline == "work")
        #expect(moved.eventIDs(in: "work") == ["born"])
        #expect(!moved.eventIDs(in: "life").contains("born"))
        moved.apply(.dateSet(event: "school", date: Self.date("2000")))
        #expect(moved.events["school"]?.dates == .single(Self.date("2000")))
        moved.apply(.rangeReopened(event: "berlin"))
        #expect(moved.events["berlin"]?.dates.isOpenRange == true)
    }

    @Test func aRejectedBatchChecksLaterFactsAgainstEarlierOnes() {
        // addEvent with a range records two facts; the second is checked in the state after the first.
        let state = Self.state()
        #expect(throws: Rejection.endBeforeStart(event: "x", start: Self.date("2001"), end: Self.date("2000"))) {
            try Decider.decide(.addEvent("x", timeline: "life", title: "X",
                                         dates: .range(start: Self.date("2001"), end: Self.date("2000"))), state)
        }
    }
}
