import Testing
import TimelineTestSupport
import TimelineCore
@testable import TimelineProjections

/// Describing the summaries' changes can be switched off while nobody follows them: the
/// summaries stay right, and switching it on again starts from them as they are.
@Suite("Summaries whose changes are not described")
struct SummaryTrackingTests {
    static let now = date("2026-11-29T12:00:00Z").instant

    @Test(arguments: 0..<15)
    func summariesStayRightAndChangeSetsResumeFromTheCurrentList(seed: UInt64) {
        var generator = FactGenerator(seed: seed)
        var projection = TimelineProjection(views: [ViewDefinition()], now: Self.now)
        var rng = SplitMix64(seed: seed &+ 5)
        var position: Int64 = 0
        var described = 0
        for round in 0..<120 {
            // Off for a stretch, on for a stretch.
            var turnedOnAt: Int64?
            if round % 20 == 0 {
                let on = (round / 20) % 2 == 1
                if on && !projection.tracksSummaryChanges { turnedOnAt = projection.position }
                projection.tracksSummaryChanges = on
            }
            let tracking = projection.tracksSummaryChanges
            let before = projection.timelineSummaries
            var batch: [Record] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                position += 1
                batch.append(Record(position: position, facts: generator.nextFacts()))
            }
            let changes = projection.apply(batch)
            #expect(projection.timelineSummaries == ReferenceSummaries.of(generator.state), "seed \(seed) round \(round)")
            if tracking {
                if let summaries = changes.summaries {
                    described += 1
                    if let turnedOnAt { #expect(summaries.from == turnedOnAt, "goes from the list as it was turned on") }
                    #expect(summaries.applied(to: before) == projection.timelineSummaries)
                } else {
                    #expect(before == projection.timelineSummaries)
                }
            } else {
                #expect(changes.summaries == nil, "no change set while not tracking")
            }
        }
        #expect(described > 0)
    }

    /// Change sets chain (one's `to` is the next one's `from`) across a checkpoint saved
    /// while they were not described: the summaries' position still follows each batch
    /// that touched them.
    @Test func changeSetsChainAcrossACheckpointSavedWhileTheyWereNotDescribed() throws {
        var projection = TimelineProjection(views: [], now: Self.now)
        projection.tracksSummaryChanges = false
        projection.apply(Record(position: 1, fact: .timelineCreated(timeline: "a", name: "A")))
        projection.apply(Record(position: 2, fact: .eventAdded(event: "e", timeline: "a", title: "E", date: date("2001"))))
        var loaded = TimelineProjection(try Checkpoint.load(projection.checkpoint().encoded()))
        #expect(loaded.tracksSummaryChanges)
        let changes = loaded.apply(Record(position: 3, fact: .eventAdded(event: "f", timeline: "a", title: "F",
                                                                          date: date("1999"))))
        #expect(changes.summaries?.from == 2)
        #expect(changes.summaries?.to == 3)
    }
}
