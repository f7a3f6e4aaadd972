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

    /// While nobody follows the summaries, an event's dates wait to be counted into its
    /// timeline's dates; the summaries read take them into account without counting them
    /// in, and turning tracking on counts them in, as a rebuild counts them.
    @Test func pendingDatesAreReadAndCountedInWhenTrackingStarts() {
        var projection = TimelineProjection(records: SummaryDateCountTests.records(), views: [], now: Self.now)
        let counted = SummaryDateCountTests.counted(projection)
        projection.tracksSummaryChanges = false
        var records: [Record] = [
            Record(position: 32, fact: .eventAdded(event: "early", timeline: "home", title: "Early", date: date("1950"))),
            Record(position: 33, fact: .dateSet(event: "e1", date: date("2030-01-01"))),
        ]
        // Every event of the earliest day goes: the earliest date is then the next day.
        for k in stride(from: 0, to: 30, by: 3) {
            records.append(Record(position: Int64(34 + records.count - 2), fact: .eventRemoved(event: EventID("e\(k)"))))
        }
        records.append(Record(position: Int64(34 + records.count - 2), fact: .eventRemoved(event: "early")))
        for (n, record) in records.enumerated() {
            projection.apply(record)
            if n == 1 {
                #expect(SummaryDateCountTests.counted(projection).map(\.1) == counted.map(\.1), "the dates wait")
                #expect(projection.timelineSummaries.first?.earliest == date("1950"))
                #expect(projection.timelineSummaries.first?.latest == date("2030-01-01"))
            }
        }
        let rebuilt = TimelineProjection(records: SummaryDateCountTests.records() + records, views: [], now: Self.now)
        #expect(projection.timelineSummaries.first?.earliest == date("2001-09-30"))
        #expect(projection.timelineSummaries == rebuilt.timelineSummaries)

        projection.tracksSummaryChanges = true
        #expect(SummaryDateCountTests.counted(projection).map { "\($0.0) ×\($0.1)" }
                    == SummaryDateCountTests.counted(rebuilt).map { "\($0.0) ×\($0.1)" })
        #expect(projection.summaries.timelines["home"]!.pendingDates.isEmpty)
        let changes = projection.apply(Record(position: 100, fact: .dateSet(event: "e1", date: date("1800"))))
        #expect(changes.summaries?.summaries.first?.earliest == date("1800"))
        #expect(changes.summaries?.summaries.first?.latest == date("2019-03-01"))
    }

    /// Left untracked for long stretches of random facts (events added, removed, redated,
    /// moved; timelines removed), the pending lists are counted in many times over; the
    /// summaries read stay right throughout, and so do the change sets once tracked again.
    @Test(arguments: 0..<4)
    func longUntrackedStretchesStayRight(seed: UInt64) {
        var generator = FactGenerator(seed: seed &+ 100)
        var projection = TimelineProjection(views: [], now: Self.now)
        var position: Int64 = 0
        for stretch in 0..<4 {
            projection.tracksSummaryChanges = stretch % 2 == 1
            for step in 0..<(stretch % 2 == 0 ? 600 : 60) {
                position += 1
                let before = projection.timelineSummaries
                let changes = projection.apply(Record(position: position, facts: generator.nextFacts()))
                if projection.tracksSummaryChanges {
                    #expect((changes.summaries?.applied(to: before) ?? before) == projection.timelineSummaries)
                }
                if step % 30 == 0 || projection.tracksSummaryChanges {
                    #expect(projection.timelineSummaries == ReferenceSummaries.of(generator.state),
                            "seed \(seed) stretch \(stretch) step \(step)")
                }
            }
        }
    }

    /// Pending date changes are counted in once there are enough of them, so that a store
    /// nobody follows the summaries of does not hold them all.
    @Test func pendingDatesAreCountedInOnceThereAreEnough() {
        var projection = TimelineProjection(records: SummaryDateCountTests.records(), views: [], now: Self.now)
        projection.tracksSummaryChanges = false
        for k in 0..<200 {
            projection.apply(Record(position: Int64(32 + k), fact: .eventAdded(
                event: EventID("n\(k)"), timeline: "home", title: "New", date: date("2000-01-\(10 + k % 20)"))))
        }
        #expect(projection.summaries.timelines["home"]!.pendingDates.count < 64)
        #expect(SummaryDateCountTests.counted(projection).count > 3, "some were counted in")
        #expect(projection.timelineSummaries.first?.eventCount == 230)
    }

    /// A timeline with many dates keeps at most 4,096 changes pending, so that no record
    /// counts in more than that at once; the summaries stay right.
    @Test func aLargeTimelineKeepsABoundedList() {
        #expect(SummaryState.pendingLimit(dates: 0) == 64)
        #expect(SummaryState.pendingLimit(dates: 1_000) == 250)
        #expect(SummaryState.pendingLimit(dates: 1_000_000) == 4_096)
        var facts: [Fact] = [.timelineCreated(timeline: "t", name: "T")]
        // 20,000 distinct days: a quarter of them would be 5,000 changes.
        for k in 0..<20_000 {
            facts.append(.eventAdded(event: EventID("e\(k)"), timeline: "t", title: "x",
                                     date: DateValue(canonical: Instant(microsecondsSinceEpoch: Int64(k) * 86_400_000_000),
                                                     precision: .day)))
        }
        var projection = TimelineProjection(records: [Record(position: 1, facts: facts)], views: [], now: Self.now)
        projection.tracksSummaryChanges = false
        var longest = 0
        for k in 0..<5_000 {
            projection.apply(Record(position: Int64(2 + k), fact: .dateSet(event: EventID("e\(k)"), date: date("1800"))))
            longest = max(longest, projection.summaries.timelines["t"]!.pendingDates.count)
        }
        // Two changes a record (a day out, 1800 in): counted in when the 4,096th came.
        #expect(longest == 4_094)
        #expect(projection.timelineSummaries.first?.earliest == date("1800"))
        #expect(projection.timelineSummaries.first?.eventCount == 20_000)
        projection.tracksSummaryChanges = true
        let rebuilt = TimelineProjection(records: [Record(position: 1, facts: facts)] + (0..<5_000).map {
            Record(position: Int64(2 + $0), fact: .dateSet(event: EventID("e\($0)"), date: date("1800")))
        }, views: [], now: Self.now)
        #expect(projection.timelineSummaries == rebuilt.timelineSummaries)
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
