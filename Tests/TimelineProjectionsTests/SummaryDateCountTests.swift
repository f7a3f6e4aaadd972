import Testing
import TimelineCore
import TimelineTestSupport
@testable import TimelineProjections

/// A timeline's summary keeps each distinct date once, with how many rows have it, and
/// stays right as rows sharing a date come and go.
@Suite("Summary dates counted once per distinct date")
struct SummaryDateCountTests {
    static let now = date("2026-11-29T12:00:00Z").instant
    static let days = ["1990-04-12", "2001-09-30", "2019-03-01"].map(date)

    /// Thirty events on three days: three entries with counts 10, then fewer as events go.
    static func records() -> [Record] {
        var records = [Record(position: 1, fact: .timelineCreated(timeline: "home", name: "Home"))]
        for k in 0..<30 {
            records.append(Record(position: Int64(records.count + 1),
                                  fact: .eventAdded(event: EventID("e\(k)"), timeline: "home", title: "Event \(k)",
                                                    date: days[k % 3])))
        }
        return records
    }

    static func counted(_ projection: TimelineProjection) -> [(String, Int)] {
        projection.summaries.timelines["home"]!.dates.map { ($0.entry.date.text, $0.count) }
    }

    @Test func eachDistinctDateIsKeptOnceWithItsCount() throws {
        var projection = TimelineProjection(records: Self.records(), views: [], now: Self.now)
        #expect(Self.counted(projection).map(\.0) == ["1990-04-12", "2001-09-30", "2019-03-01"])
        #expect(Self.counted(projection).map(\.1) == [10, 10, 10])

        // Removing all but one event of the earliest day keeps the day as the earliest date.
        var position = Int64(Self.records().count)
        for k in stride(from: 0, to: 27, by: 3) {
            position += 1
            projection.apply(Record(position: position, fact: .eventRemoved(event: EventID("e\(k)"))))
        }
        #expect(Self.counted(projection).map(\.1) == [1, 10, 10])
        #expect(projection.timelineSummaries.first?.earliest == Self.days[0])

        // The last one takes the day out.
        position += 1
        projection.apply(Record(position: position, fact: .eventRemoved(event: "e27")))
        #expect(Self.counted(projection).map(\.0) == ["2001-09-30", "2019-03-01"])
        #expect(projection.timelineSummaries.first?.earliest == Self.days[1])
        #expect(projection.timelineSummaries.first?.latest == Self.days[2])

        // A rebuild and a checkpoint count the same.
        let restored = TimelineProjection(try Checkpoint.load(projection.checkpoint().encoded()))
        #expect(Self.counted(restored).map(\.1) == [10, 10])
        let rebuilt = TimelineProjection(records: Self.records() + (0..<10).map { k in
            Record(position: Int64(100 + k), fact: .eventRemoved(event: EventID("e\(3 * k)")))
        }, views: [], now: Self.now)
        #expect(Self.counted(rebuilt).map(\.1) == [10, 10])
    }

    /// Counting in place walks internal nodes too, and copies the nodes another copy of
    /// the index shares: small nodes, many distinct dates, every change checked against a
    /// plain multiset, and every copy kept along the way still holds what it had.
    @Test(arguments: 0..<6)
    func countsFollowAMultisetAndLeaveEarlierCopiesAsTheyWere(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let pool = (0..<150).map { k in date("18\(10 + k / 12)-\(k % 12 < 9 ? "0" : "")\(k % 12 + 1)") }
            + ["2019-01-01T10:00Z", "2019-01-01T11:00+01:00"].map(date)
        var index = OrderedIndex<CountedDate>(nodeCapacity: 3 + Int(seed % 4))
        var model: [DateValue: Int] = [:]
        func expected() -> [(DateValue, Int)] { model.keys.sorted().map { ($0, model[$0]!) } }
        var copies: [(index: OrderedIndex<CountedDate>, expected: [(DateValue, Int)])] = []
        for step in 0..<4000 {
            let picked = pool[rng.below(pool.count)]
            if rng.below(100) < 55 {
                index.adjust(DatedEntry(picked), by: 1)
                model[picked, default: 0] += 1
            } else {
                index.adjust(DatedEntry(picked), by: -1)
                if let n = model[picked] { model[picked] = n > 1 ? n - 1 : nil }
            }
            if step % 97 == 0 { copies.append((index, expected())) }
        }
        for (copy, expected) in copies + [(index, expected())] {
            #expect(copy.invariantViolations().isEmpty)
            #expect(copy.map(\.entry.date) == expected.map(\.0))
            #expect(copy.map(\.count) == expected.map(\.1))
        }
    }

    /// A checkpoint counts each timeline's dates apart: three timelines sharing dates
    /// (days, a year, a month, timestamps of one instant) load as a rebuild counts them.
    @Test(arguments: 0..<4)
    func aCheckpointCountsEachTimelinesDatesAsARebuildDoes(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let dates = ["1960-01-01", "1999", "2019-01", "2019-01-01T00:00Z", "2019-01-01T01:00+01:00", "2020-02-02"]
            .map(date)
        let timelines: [TimelineID] = ["a", "b", "c"]
        var records = timelines.enumerated().map { n, id in
            Record(position: Int64(n + 1), fact: .timelineCreated(timeline: id, name: id.rawValue))
        }
        for k in 0..<300 {
            let start = dates[rng.below(dates.count)]
            records.append(Record(position: Int64(records.count + 1),
                                  fact: .eventAdded(event: EventID("e\(k)"), timeline: timelines[rng.below(3)],
                                                    title: "E", date: start)))
            if rng.chance(30) {
                let end = dates.first { $0.instant >= start.instant }!
                records.append(Record(position: Int64(records.count + 1),
                                      fact: .rangeSet(event: EventID("e\(k)"), start: start, end: end)))
            }
        }
        let rebuilt = TimelineProjection(records: records, views: [], now: Self.now)
        let restored = TimelineProjection(try Checkpoint.load(rebuilt.checkpoint().encoded()))
        func counted(_ projection: TimelineProjection, _ id: TimelineID) -> [String] {
            projection.summaries.timelines[id]!.dates.map { "\($0.entry.date.text) ×\($0.count)" }
        }
        for id in timelines {
            #expect(counted(restored, id) == counted(rebuilt, id))
            #expect(restored.summaries.timelines[id]!.dates.invariantViolations().isEmpty)
        }
    }

    @Test func runsCountEqualNeighbours() {
        let entries = ["2019", "2019", "2019-01", "2019-01-01T10:00Z", "2019-01-01T10:00Z", "2020"]
            .map { DatedEntry(date($0)) }
        #expect(CountedDate.runs(of: entries).map(\.count) == [2, 1, 2, 1])
    }
}
