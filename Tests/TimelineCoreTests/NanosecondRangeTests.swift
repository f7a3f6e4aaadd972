import Testing
import TimelineCore

/// "End before start" compares instants exact to the nanosecond.
@Suite("Ranges to the nanosecond")
struct NanosecondRangeTests {
    static let start = DeciderTests.date("2019-03-01T10:30:00.0000018Z")
    /// 0.8 µs before the start, in the same microsecond.
    static let end = DeciderTests.date("2019-03-01T10:30:00.000001Z")

    static func state() throws -> DomainState {
        var state = DomainState()
        let commands: [Command] = [
            .createTimeline("t", name: "T"),
            .addEvent("e", timeline: "t", title: "E", dates: .range(start: start, end: nil)),
        ]
        for command in commands { for fact in try Decider.decide(command, state) { state.apply(fact) } }
        return state
    }

    @Test func aRangeEndingUnderAMicrosecondBeforeItsStartIsRefused() throws {
        let state = try Self.state()
        let refusal = Rejection.endBeforeStart(event: "e", start: Self.start, end: Self.end)
        #expect(throws: refusal) { try Decider.decide(.closeRange("e", end: Self.end), state) }
        #expect(throws: refusal) { try Decider.decide(.setRange("e", start: Self.start, end: Self.end), state) }
        #expect(throws: Rejection.endBeforeStart(event: "f", start: Self.start, end: Self.end)) {
            try Decider.decide(.addEvent("f", timeline: "t", title: "F", dates: .range(start: Self.start, end: Self.end)), state)
        }
        #expect(refusal.description
            == #"event "e": end "2019-03-01T10:30:00.000001Z" is before start "2019-03-01T10:30:00.0000018Z""#)
    }

    @Test func anEndANanosecondAfterOrAtTheStartIsAccepted() throws {
        let state = try Self.state()
        #expect(try Decider.decide(.closeRange("e", end: DeciderTests.date("2019-03-01T10:30:00.000001801Z")), state).count == 1)
        #expect(try Decider.decide(.closeRange("e", end: DeciderTests.date("2019-03-01T11:30:00.0000018+01:00")), state).count == 1)
    }
}
