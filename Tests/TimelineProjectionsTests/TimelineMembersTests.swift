import Testing
import TimelineCore
@testable import TimelineProjections

/// A timeline's list of events, kept without hashing, stays small however often events
/// leave and come back, and removing the timeline removes exactly its events.
@Suite("Which events a timeline holds")
struct TimelineMembersTests {
    static let now = date("2026-11-29T12:00:00Z").instant

    @Test func movingBackAndForthKeepsTheListsSmallAndRemovalExact() {
        var projection = TimelineProjection(views: [ViewDefinition()], now: Self.now)
        var position: Int64 = 0
        func apply(_ fact: Fact) {
            position += 1
            projection.apply(Record(position: position, fact: fact))
        }
        apply(.timelineCreated(timeline: "a", name: "A"))
        apply(.timelineCreated(timeline: "b", name: "B"))
        for i in 0..<10 { apply(.eventAdded(event: EventID("e\(i)"), timeline: "a", title: "E\(i)", date: date("2001"))) }
        for round in 0..<5_000 {
            apply(.eventMoved(event: "e0", timeline: round % 2 == 0 ? "b" : "a"))
            apply(.eventRemoved(event: "e1"))
            apply(.eventAdded(event: "e1", timeline: "a", title: "Again", date: date("2002")))
        }
        // e0 moved 5,000 times and e1 came back 5,000 times: the lists were compacted.
        for shard in projection.events.shards {
            #expect(shard.members.candidateCount(of: "a") <= 2 * TimelineMembers.compactionFloor)
            #expect(shard.members.candidateCount(of: "b") <= 2 * TimelineMembers.compactionFloor)
        }
        apply(.eventMoved(event: "e2", timeline: "b"))
        apply(.timelineRemoved(timeline: "a"))
        // e0 ended in "a" (an even number of moves), e2 moved to "b" before "a" went.
        let left = Set(projection.rows(ViewDefinition())!.map(\.id.event))
        #expect(left == ["e2"])
        #expect(projection.domainState.events.keys.sorted { $0.rawValue < $1.rawValue } == ["e2"])
    }
}
