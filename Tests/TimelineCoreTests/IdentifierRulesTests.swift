import Testing
import TimelineCore

/// Ids are the same only when their UTF-8 bytes are equal, and follow one rule: 1–255
/// bytes, no control characters, no whitespace at either end.
@Suite("Identifiers: equality by bytes and the rules of ids")
struct IdentifierRulesTests {
    /// `é` as one code point and as `e` + a combining acute accent: equal as Swift strings.
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    @Test func canonicallyEquivalentTextsAreTwoIds() {
        #expect(Self.composed == Self.decomposed, "the premise: String compares canonically")
        #expect(EventID(Self.composed) != EventID(Self.decomposed))
        #expect(TimelineID(Self.composed) != TimelineID(Self.decomposed))
        #expect(Set([EventID(Self.composed), EventID(Self.decomposed)]).count == 2)
        #expect(Set([TimelineID(Self.composed), TimelineID(Self.decomposed)]).count == 2)
        #expect(EventID(Self.composed) == EventID(String(Self.composed)))
        #expect(EventID(Self.composed).hashValue == EventID("\u{E9}").hashValue)
    }

    @Test func theDeciderKeepsCanonicallyEquivalentIdsApart() throws {
        var state = DomainState()
        let date = try DateValue(parsing: "2019")
        let commands: [Command] = [
            .createTimeline(TimelineID(Self.composed), name: "One"),
            .createTimeline(TimelineID(Self.decomposed), name: "Two"),
            .addEvent(EventID(Self.composed), timeline: TimelineID(Self.composed), title: "One", dates: .single(date)),
            .addEvent(EventID(Self.decomposed), timeline: TimelineID(Self.decomposed), title: "Two", dates: .single(date)),
        ]
        for command in commands {
            for fact in try Decider.decide(command, state) { state.apply(fact) }
        }
        #expect(state.timelines.count == 2)
        #expect(state.events.count == 2)
        #expect(state.events[EventID(Self.decomposed)]?.title == "Two")
        #expect(state.eventIDs(in: TimelineID(Self.composed)) == [EventID(Self.composed)])
        // The same bytes again are the same id.
        #expect(throws: Rejection.eventExists(EventID("e\u{301}"))) {
            try Decider.decide(.addEvent(EventID("e\u{301}"), timeline: TimelineID(Self.composed), title: "Again",
                                         dates: .single(date)), state)
        }
    }

    /// Ids that break a rule, the rule each breaks, and how the message shows the id.
    static let badIDs: [(id: String, problem: Rejection.IdentifierProblem, shown: String)] = [
        ("", .empty, #""""#),
        (String(repeating: "a", count: 256), .tooLong(bytes: 256), "\"" + String(repeating: "a", count: 256) + "\""),
        (String(repeating: "\u{E9}", count: 128), .tooLong(bytes: 256), "\"" + String(repeating: "\u{E9}", count: 128) + "\""),
        ("a\nb", .controlCharacter("\n"), #""a\u{a}b""#),
        ("a\u{0}", .controlCharacter("\u{0}"), #""a\u{0}""#),
        ("\u{1B}[31mred", .controlCharacter("\u{1B}"), #""\u{1b}[31mred""#),
        ("a\u{7F}", .controlCharacter("\u{7F}"), #""a\u{7f}""#),
        ("a\u{85}b", .controlCharacter("\u{85}"), #""a\u{85}b""#),
        ("a\u{9F}b", .controlCharacter("\u{9F}"), #""a\u{9f}b""#),
        (" a", .whitespaceAtStart(" "), #"" a""#),
        ("a ", .whitespaceAtEnd(" "), #""a ""#),
        ("\u{A0}a", .whitespaceAtStart("\u{A0}"), #""\u{a0}a""#),
        ("a\u{3000}", .whitespaceAtEnd("\u{3000}"), #""a\u{3000}""#),
        ("a\u{2028}", .whitespaceAtEnd("\u{2028}"), #""a\u{2028}""#),
    ]

    @Test(arguments: badIDs)
    func aCommandWithABadIdIsRejectedNamingTheIdAndTheRule(_ bad: (id: String, problem: Rejection.IdentifierProblem, shown: String)) throws {
        var state = DomainState()
        state.apply(.timelineCreated(timeline: "life", name: "Life"))
        let date = try DateValue(parsing: "2019")
        let event = Rejection.invalidID(field: "event", value: bad.id, problem: bad.problem)
        let timeline = Rejection.invalidID(field: "timeline", value: bad.id, problem: bad.problem)
        #expect(throws: timeline) { try Decider.decide(.createTimeline(TimelineID(bad.id), name: "Bad"), state) }
        #expect(throws: event) {
            try Decider.decide(.addEvent(EventID(bad.id), timeline: "life", title: "Bad", dates: .single(date)), state)
        }
        #expect(throws: event) { try Decider.decide(.retitleEvent(EventID(bad.id), title: "Bad"), state) }
        #expect(throws: timeline) { try Decider.decide(.renameTimeline(TimelineID(bad.id), name: "Bad"), state) }
        #expect(event.description.hasPrefix("event id \(bad.shown) \(bad.problem); ids are 1–255 bytes of UTF-8"),
                "\(event)")
        #expect(!event.description.contains("\n") && !event.description.contains("\u{1B}"))
    }

    @Test func messagesNameTheRuleBroken() {
        #expect(Rejection.IdentifierProblem.empty.description == "is empty")
        #expect(Rejection.IdentifierProblem.tooLong(bytes: 300).description == "is 300 bytes long in UTF-8")
        #expect(Rejection.IdentifierProblem.controlCharacter("\n").description == "holds the control character U+000A")
        #expect(Rejection.IdentifierProblem.whitespaceAtEnd("\u{3000}").description == "ends with the whitespace U+3000")
        #expect(Rejection.invalidID(field: "timeline", value: "a\"b\\", problem: .tooLong(bytes: 999)).description
            == #"timeline id "a\"b\\" is 999 bytes long in UTF-8; ids are 1–255 bytes of UTF-8 with no control "#
            + "characters and no whitespace at either end: choose another id")
    }

    @Test(arguments: [
        String(repeating: "a", count: 255), String(repeating: "\u{E9}", count: 127) + "a", "a b", "a\u{3000}b",
        "\u{E9}", "e\u{301}", "🎉", "x", "life/2019", "é\u{A0}é",
    ])
    func goodIdsAreAccepted(_ id: String) throws {
        var state = DomainState()
        for fact in try Decider.decide(.createTimeline(TimelineID(id), name: "Good"), state) { state.apply(fact) }
        let date = try DateValue(parsing: "2019")
        let facts = try Decider.decide(.addEvent(EventID(id), timeline: TimelineID(id), title: "Good", dates: .single(date)), state)
        #expect(facts.count == 1)
    }

    @Test(arguments: badIDs)
    func aFactWithABadIdIsRefusedAsALogsFactIs(_ bad: (id: String, problem: Rejection.IdentifierProblem, shown: String)) throws {
        let facts: [Fact] = [
            .timelineCreated(timeline: "life", name: "Life"),
            .eventAdded(event: EventID(bad.id), timeline: "life", title: "Bad", date: try DateValue(parsing: "2019")),
        ]
        #expect(throws: FactRefusal(index: 1, fact: facts[1],
                                    rejection: .invalidID(field: "event", value: bad.id, problem: bad.problem))) {
            try Decider.check(facts, in: DomainState())
        }
        #expect(throws: FactRefusal(index: 0, fact: .timelineCreated(timeline: TimelineID(bad.id), name: "Bad"),
                                    rejection: .invalidID(field: "timeline", value: bad.id, problem: bad.problem))) {
            try Decider.check([.timelineCreated(timeline: TimelineID(bad.id), name: "Bad")], in: DomainState())
        }
    }

    @Test func commandIdsAreTheSameOnlyWithTheSameBytes() throws {
        let log = InMemoryEventLog()
        let first = try log.append([.timelineCreated(timeline: "one", name: "One")],
                                   options: AppendOptions(commandID: Self.composed))
        let second = try log.append([.timelineCreated(timeline: "two", name: "Two")],
                                    options: AppendOptions(commandID: Self.decomposed))
        #expect(!first.wasDuplicate)
        #expect(!second.wasDuplicate)
        #expect(log.position == 2)
        #expect(try log.records(forCommandID: Self.decomposed)?.map(\.position) == [2])
        let again = try log.append([.timelineCreated(timeline: "three", name: "Three")],
                                   options: AppendOptions(commandID: "\u{E9}"))
        #expect(again.wasDuplicate)
        #expect(again.records.map(\.position) == [1])
    }

    @Test func aFileLogKeepsCanonicallyEquivalentCommandIdsApartAfterReopening() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let log = try FileEventLog(path: path)
            _ = try log.append([.timelineCreated(timeline: "one", name: "One")], options: AppendOptions(commandID: Self.composed))
            let second = try log.append([.timelineCreated(timeline: "two", name: "Two")],
                                        options: AppendOptions(commandID: Self.decomposed))
            #expect(!second.wasDuplicate)
            log.close()
            let reopened = try FileEventLog(path: path)
            defer { reopened.close() }
            #expect(try reopened.records(forCommandID: Self.composed)?.map(\.position) == [1])
            #expect(try reopened.records(forCommandID: Self.decomposed)?.map(\.position) == [2])
            #expect(try reopened.records(forCommandID: "e\u{300}") == nil)
        }
    }
}
