import Foundation
import Testing
import TimelineCore
@testable import TimelineProjections

@Suite("Checkpoints")
struct CheckpointTests {
    static func projection(seed: UInt64, records count: Int = 80) -> (TimelineProjection, [Record]) {
        var generator = FactGenerator(seed: seed)
        let records = (1...count).map { Record(position: Int64($0), facts: generator.nextFacts()) }
        return (TimelineProjection(records: records, views: allViews, now: date("2015-06-01T12:00Z").instant), records)
    }

    static func expectEqual(_ a: TimelineProjection, _ b: TimelineProjection, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.position == b.position, sourceLocation: sourceLocation)
        #expect(a.now == b.now, sourceLocation: sourceLocation)
        #expect(Set(a.viewDefinitions) == Set(b.viewDefinitions), sourceLocation: sourceLocation)
        for view in a.viewDefinitions {
            #expect(Array(a.rows(view)!) == Array(b.rows(view) ?? RowList()), sourceLocation: sourceLocation)
            #expect(a.sections(view) == b.sections(view), sourceLocation: sourceLocation)
            #expect(a.viewPosition(view) == b.viewPosition(view), sourceLocation: sourceLocation)
        }
        #expect(a.timelineSummaries == b.timelineSummaries, sourceLocation: sourceLocation)
        #expect(a.domainState == b.domainState, sourceLocation: sourceLocation)
    }

    @Test(arguments: 0..<8)
    func aCheckpointRestoresTheSameProjection(seed: UInt64) throws {
        let (projection, _) = Self.projection(seed: seed)
        let bytes = projection.checkpoint().encoded()
        let loaded = try Checkpoint.load(bytes)
        #expect(loaded.position == projection.position)
        #expect(loaded.resumePoint == nil)
        Self.expectEqual(TimelineProjection(loaded), projection)
    }

    /// A state has one encoding: timelines created in another order (so held in another
    /// order by the summaries' dictionary), with the same events, give the same bytes.
    @Test func aStateHasOneEncoding() throws {
        let ids = (0..<300).map { TimelineID("t\($0)") }
        func records(_ order: [TimelineID]) -> [Record] {
            var facts = order.map { Fact.timelineCreated(timeline: $0, name: "Timeline \($0)") }
            for (number, id) in ids.enumerated() where number % 3 == 0 {
                facts.append(.eventAdded(event: EventID("e\(number)"), timeline: id, title: "Event \(number)",
                                         date: date("2001-02-03")))
            }
            return facts.enumerated().map { Record(position: Int64($0.offset + 1), facts: [$0.element]) }
        }
        let now = date("2015-06-01T12:00Z").instant
        let forwards = TimelineProjection(records: records(ids), views: allViews, now: now)
        let backwards = TimelineProjection(records: records(ids.reversed()), views: allViews, now: now)
        #expect(forwards.timelineSummaries == backwards.timelineSummaries)
        #expect(forwards.checkpoint().encoded() == backwards.checkpoint().encoded())
        // And loading gives back the bytes it was given.
        let bytes = forwards.checkpoint().encoded()
        #expect(TimelineProjection(try Checkpoint.load(bytes)).checkpoint().encoded() == bytes)
    }

    /// A store that keeps some views restores only the rows that can serve them: those of
    /// the same filter and placement, whatever their order and sections.
    @Test func aCheckpointRestoresOnlyTheRowsOfTheViewsKept() throws {
        let (projection, _) = Self.projection(seed: 3)
        let bytes = projection.checkpoint().encoded()
        #expect(try Checkpoint.load(bytes, keeping: []).projection.viewDefinitions.isEmpty)
        let home = ViewDefinition(filter: .timeline("home"), placement: .now, order: .descending, sections: .year)
        let loaded = try Checkpoint.load(bytes, keeping: [home])
        let expected = allViews.filter { $0.filter == home.filter && $0.placement == home.placement }
        #expect(Set(loaded.projection.viewDefinitions) == Set(expected))
        for view in expected { #expect(Array(loaded.projection.rows(view)!) == Array(projection.rows(view)!)) }
        // The events and summaries are whole either way.
        #expect(loaded.projection.domainState == projection.domainState)
        #expect(loaded.projection.timelineSummaries == projection.timelineSummaries)
    }

    /// A timeline's rows that were not saved are taken, in order, from the saved list of
    /// everything of the same placement: the same rows as a build from the events.
    @Test(arguments: 0..<6)
    func aTimelinesRowsComeFromTheListOfEverything(seed: UInt64) throws {
        var generator = FactGenerator(seed: seed)
        let records = (1...80).map { Record(position: Int64($0), facts: generator.nextFacts()) }
        let now = date("2015-06-01T12:00Z").instant
        let everything = OngoingPlacement.allCases.map { ViewDefinition(filter: .all, placement: $0) }
        let saved = TimelineProjection(records: records, views: everything, now: now)
        let bytes = saved.checkpoint().encoded()
        let wanted = allViews.filter { $0.filter != .all } + [ViewDefinition(filter: .timeline("no-such-timeline"))]
        var loaded = TimelineProjection(try Checkpoint.load(bytes, keeping: Set(wanted)))
        #expect(Set(loaded.viewDefinitions) == Set(wanted))
        var built = TimelineProjection(records: records, views: wanted, now: now)
        for view in wanted {
            #expect(loaded.viewPosition(view) == saved.position)
            #expect(Array(loaded.rows(view)!) == Array(built.rows(view)!), "\(view)")
            #expect(loaded.sections(view) == built.sections(view))
        }
        #expect(wanted.contains { loaded.rows($0)?.isEmpty == false }, "rows were taken")
        // And they go on like built ones.
        let more = (81...120).map { Record(position: Int64($0), facts: generator.nextFacts()) }
        for record in more { _ = loaded.apply(record); _ = built.apply(record) }
        loaded.advanceClock(to: date("2030").instant)
        built.advanceClock(to: date("2030").instant)
        for view in wanted { #expect(Array(loaded.rows(view)!) == Array(built.rows(view)!), "\(view)") }
        // Without a saved list of everything of that placement, nothing is restored.
        let onlyNow = TimelineProjection(records: records, views: [ViewDefinition()], now: now)
        let last = ViewDefinition(filter: .timeline("home"), placement: .last)
        #expect(try Checkpoint.load(onlyNow.checkpoint().encoded(), keeping: [last]).projection.viewDefinitions.isEmpty)
    }

    @Test func aRestoredProjectionGoesOnLikeTheOriginal() throws {
        var generator = FactGenerator(seed: 99)
        let first = (1...50).map { Record(position: Int64($0), facts: generator.nextFacts()) }
        let more = (51...90).map { Record(position: Int64($0), facts: generator.nextFacts()) }
        var original = TimelineProjection(records: first, views: allViews, now: date("2015").instant)
        var restored = TimelineProjection(try Checkpoint.load(original.checkpoint().encoded()))
        for record in more {
            let a = original.apply(record), b = restored.apply(record)
            #expect(a.rows.map(\.view).sorted { "\($0)" < "\($1)" } == b.rows.map(\.view).sorted { "\($0)" < "\($1)" })
            for changeSet in a.rows {
                let other = b.changeSet(for: changeSet.view)
                #expect(other?.from == changeSet.from)
                #expect(other?.removals == changeSet.removals)
                #expect(other?.insertions == changeSet.insertions)
            }
            #expect(a.summaries?.from == b.summaries?.from)
        }
        Self.expectEqual(original, restored)
        original.advanceClock(to: date("2030").instant)
        restored.advanceClock(to: date("2030").instant)
        Self.expectEqual(original, restored)
    }

    /// A flipped bit is refused, and named as what it is: outside the format tag, the
    /// checksum does not match, whatever the damaged bytes would make decoding meet first
    /// (the checksum is computed while the events are decoded).
    @Test func everyFlippedBitIsRefusedAsAChecksumMismatch() {
        let (projection, _) = Self.projection(seed: 3, records: 12)
        let bytes = projection.checkpoint().encoded()
        var reasons: [String: Int] = [:]
        for index in bytes.indices {
            for bit in [0, 3, 7] {
                var damaged = bytes
                damaged[index] ^= UInt8(1 << bit)
                do {
                    _ = try Checkpoint.load(damaged)
                    reasons["loaded", default: 0] += 1
                } catch {
                    reasons[error.description, default: 0] += 1
                }
            }
        }
        let tagBytes = Checkpoint.magic.count
        #expect(reasons == ["damaged checkpoint: not a checkpoint file": tagBytes * 3,
                            "damaged checkpoint: checksum mismatch": (bytes.count - tagBytes) * 3])
    }

    /// A point as a log would describe it: its bytes are the log's own, opaque to the checkpoint.
    static let resumePoint = LogResumePoint(position: 12, bytes: Array("a log's own description of position 12".utf8))

    @Test func aResumePointForAnotherPositionIsRefusedOnLoad() throws {
        // Sealed with a valid checksum, so only the decoder can refuse it: opening from it
        // would replay the log from the wrong place.
        let (projection, _) = Self.projection(seed: 6, records: 12)
        var bytes = projection.checkpoint(resumePoint: Self.resumePoint).encoded()
        bytes.removeLast(4)
        // Magic, schema version, position and now (microseconds and nanoseconds) come
        // first; then the point.
        let pointPosition = 8 + 4 + 8 + 8 + 2 + 1
        #expect(bytes[pointPosition - 1] == 1, "a resume point follows")
        var other = (Self.resumePoint.position + 1).littleEndian
        withUnsafeBytes(of: &other) { bytes.replaceSubrange(pointPosition..<(pointPosition + 8), with: $0) }
        var crc = CRC32C.checksum(bytes).littleEndian
        withUnsafeBytes(of: &crc) { bytes.append(contentsOf: $0) }
        #expect(throws: Checkpoint.Failure.damaged("resume point at position 13 in a checkpoint at 12")) {
            try Checkpoint.load(bytes)
        }
    }

    @Test func theResumePointAndTheDomainStateRoundTrip() throws {
        let (projection, _) = Self.projection(seed: 6, records: 12)
        let loaded = try Checkpoint.load(projection.checkpoint(resumePoint: Self.resumePoint).encoded())
        #expect(loaded.resumePoint == Self.resumePoint)
        #expect(TimelineProjection(loaded).domainState == projection.domainState)
        // A point for another position than the projection's is left out.
        let other = LogResumePoint(position: 11, bytes: Self.resumePoint.bytes)
        #expect(try Checkpoint.load(projection.checkpoint(resumePoint: other).encoded()).resumePoint == nil)
    }

    @Test func everyFlippedBitOfACheckpointWithAResumePointIsRefused() {
        let (projection, _) = Self.projection(seed: 3, records: 12)
        let bytes = projection.checkpoint(resumePoint: Self.resumePoint).encoded()
        var refused = 0
        for index in bytes.indices {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[index] ^= UInt8(1 << bit)
                if (try? Checkpoint.load(damaged)) == nil { refused += 1 }
            }
        }
        #expect(refused == bytes.count * 8)
    }

    @Test func truncatedAndForeignBytesAreRefusedWithAReason() {
        let bytes = Self.projection(seed: 4, records: 10).0.checkpoint().encoded()
        for length in [0, 4, 8, 12, bytes.count / 2, bytes.count - 1] {
            #expect(throws: Checkpoint.Failure.self) { try Checkpoint.load(Array(bytes.prefix(length))) }
        }
        #expect(throws: Checkpoint.Failure.damaged("not a checkpoint file")) { try Checkpoint.load(Array("hello world!".utf8)) }
    }

    /// Version 1 had no resume point and no date table; version 2 had the dates out of
    /// order and the events in one run; version 3 saved the rows of every view; version 4
    /// ordered rows to the microsecond and kept now without its nanoseconds; version 5
    /// kept a file log's resume point and identity, not any log's opaque point; version 6
    /// wrote each enum as its place among the cases, not its stated code; version 7 kept
    /// the events in blocks of the rows' order and no summaries.
    @Test(arguments: [UInt8(1), 2, 3, 4, 5, 6, 7])
    func aCheckpointOfAnEarlierSchemaVersionIsRefusedByName(version: UInt8) {
        var bytes = Self.projection(seed: 5, records: 10).0.checkpoint().encoded()
        bytes[8] = version
        let failure = #expect(throws: Checkpoint.Failure.self) { try Checkpoint.load(Self.resealed(bytes)) }
        #expect(failure == .otherSchemaVersion(found: UInt32(version), expected: 8))
        #expect(failure?.description == "checkpoint of schema version \(version); this version reads 8")
    }

    /// A title that is not ASCII comes back whole; one that is not UTF-8 (in a checkpoint
    /// whose checksum matches) is refused, naming where it is.
    @Test func aTitleIsCheckedToBeUTF8() throws {
        let title = "Été à Zürich, 夏 — ωραία"
        var projection = TimelineProjection(views: [ViewDefinition()], now: date("2026").instant)
        projection.apply(Record(position: 1, facts: [.timelineCreated(timeline: "t", name: "T"),
                                                     .eventAdded(event: "e", timeline: "t", title: title, date: date("2020"))]))
        let bytes = projection.checkpoint().encoded()
        let loaded = TimelineProjection(try Checkpoint.load(bytes))
        #expect(loaded.event("e")?.title == title)

        let utf8 = Array(title.utf8)
        let at = try #require(bytes.indices.first { Array(bytes[$0..<min(bytes.count, $0 + utf8.count)]) == utf8 })
        var damaged = bytes
        damaged[at + 1] = 0xFF  // inside "É": a lead byte followed by one that cannot follow it
        #expect(throws: Checkpoint.Failure.damaged("invalid UTF-8 at byte \(at)")) {
            try Checkpoint.load(Self.resealed(damaged))
        }
    }

    /// The bytes with their last four replaced by the checksum of the others.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        let body = Array(bytes.dropLast(4))
        return body + withUnsafeBytes(of: CRC32C.checksum(body).littleEndian, Array.init)
    }

    /// A checkpoint loaded for a store that keeps no view leaves its events in their
    /// partitions, decoding one when a fact or a lookup needs it: the state reads the same
    /// as the projection saved, after every further record, and a view added at the end
    /// (which loads every event) has the same rows.
    @Test(arguments: 0..<16)
    func eventsLeftInTheirPartitionsReadAsTheSavedProjection(seed: UInt64) throws {
        var generator = FactGenerator(seed: seed)
        let records = (1...400).map { Record(position: Int64($0), facts: generator.nextFacts()) }
        let now = date("2015-06-01T12:00Z").instant
        var original = TimelineProjection(records: records.prefix(250), views: [], now: now)
        var lazy = TimelineProjection(try Checkpoint.load(original.checkpoint().encoded(), keeping: []))
        #expect(lazy.events.hasPendingEvents)
        #expect(lazy.events.decodedPartitions == 0, "loading checks the partitions, decoding none")
        for record in records.dropFirst(250) {
            for fact in record.facts {
                guard let id = fact.event else { continue }
                #expect(lazy.event(id) == original.event(id), "before record \(record.position)")
            }
            #expect(original.apply(record).isEmpty == lazy.apply(record).isEmpty)
            #expect(lazy.eventCount == original.eventCount)
            #expect(lazy.timelineSummaries == original.timelineSummaries, "after record \(record.position)")
        }
        #expect(lazy.domainState == original.domainState)
        for view in allViews {
            original.addView(view)
            lazy.addView(view)
        }
        #expect(!lazy.events.hasPendingEvents)
        Self.expectEqual(lazy, original)
    }

    /// Loading without views, and decoding, agree on every damaged byte behind a valid
    /// checksum: lookups of single events never trap, a partition decoding refuses is
    /// found malformed when it is decoded whole (and then holds no event), one decoding
    /// accepts is not; and every partition joins.
    @Test func theCheckOfAPartitionAndDecodingAgreeOnEveryDamagedByte() throws {
        // With the rows of everything saved, loading with every view decodes every partition.
        var projection = TimelineProjection(views: [ViewDefinition()], now: date("2015").instant)
        projection.apply(Record(position: 1, facts: [
            .timelineCreated(timeline: TimelineID("life"), name: "Life"),
            .eventAdded(event: EventID("a"), timeline: TimelineID("life"), title: "Été", date: date("2001-01-01")),
            .eventAdded(event: EventID("b"), timeline: TimelineID("life"), title: "Bee", date: date("2002-02-02")),
            .rangeSet(event: EventID("b"), start: date("2002-02-02"), end: date("2003")),
            .eventAdded(event: EventID("c"), timeline: TimelineID("life"), title: "日本", date: date("2004")),
            .rangeSet(event: EventID("c"), start: date("2004"), end: nil),
        ]))
        let bytes = projection.checkpoint().encoded()
        var refusedBoth = 0, foundMalformed = 0
        for place in 8..<(bytes.count - 4) {
            for value in [UInt8(0), 1, 0x7F, 0xC3, 0xFF] where bytes[place] != value {
                var damaged = bytes
                damaged[place] = value
                damaged = Self.resealed(damaged)
                let decoded = Result { () throws(Checkpoint.Failure) in try Checkpoint.load(damaged) }
                let lazy = Result { () throws(Checkpoint.Failure) in try Checkpoint.load(damaged, keeping: []) }
                guard case .success(let loaded) = lazy else {
                    if case .success = decoded { Issue.record("byte \(place) = \(value): refused only without views") }
                    refusedBoth += 1
                    continue
                }
                let all = TimelineProjection(loaded)
                for id in ["a", "b", "c", "d"] { _ = all.event(EventID(id)) }
                // Joined in a copy: the partitions' states, shared, say which did not decode.
                var joined = all
                joined.events.loadAll()
                let malformed = all.events.malformedPartitions
                #expect(!joined.events.hasPendingEvents)
                switch decoded {
                case .success(let checkpoint):
                    #expect(malformed == 0, "byte \(place) = \(value): decoded, yet found malformed")
                    #expect(joined.eventCount == TimelineProjection(checkpoint).eventCount, "byte \(place) = \(value)")
                case .failure(.damaged("an event listed twice")): break
                case .failure(let failure):
                    // Refused by decoding, the damage is in a partition (found malformed), or
                    // in the saved rows, which a store that keeps no view never reads.
                    if malformed > 0 {
                        foundMalformed += 1
                    } else {
                        #expect(joined.domainState == projection.domainState,
                                "byte \(place) = \(value): decoding says \(failure), the check nothing")
                    }
                }
            }
        }
        #expect(refusedBoth > 100 && foundMalformed > 100, "\(refusedBoth) refused, \(foundMalformed) malformed")
    }

    /// A checkpoint loaded keeping no view leaves its events where they lie in its bytes:
    /// each reads as saved, and joining them all gives the state saved.
    @Test func aCheckpointKeepingNoViewReadsItsEventsInPlace() throws {
        let (projection, _) = Self.projection(seed: 8, records: 200)
        let bytes = projection.checkpoint().encoded()
        var lazy = TimelineProjection(try Checkpoint.load(bytes, keeping: []))
        #expect(lazy.events.hasPendingEvents)
        for event in projection.domainState.events.values { #expect(lazy.event(event.id) == event) }
        lazy.events.loadAll()
        #expect(lazy.domainState == projection.domainState)
    }

    /// One timeline's rows, saved or taken from the saved list of everything, are restored
    /// with only their events decoded, where they lie: the views read as the projection
    /// saved, and change as its views do, record after record; adding the list of
    /// everything at the end (which loads every event) gives its rows too.
    @Test(arguments: 0..<12)
    func aTimelinesRowsRestoredInPlaceFollowEveryRecord(seed: UInt64) throws {
        var generator = FactGenerator(seed: seed)
        // Most events in a timeline of their own, so that the views' hold half or fewer.
        var facts: [Fact] = [.timelineCreated(timeline: "bulk", name: "Bulk")]
        for number in 0..<2_000 {
            facts.append(.eventAdded(event: EventID("bulk-\(number)"), timeline: "bulk", title: "Bulk \(number)",
                                     date: date("1990-01-01")))
        }
        let records = [Record(position: 1, facts: facts)]
            + (2...400).map { Record(position: Int64($0), facts: generator.nextFacts()) }
        let now = date("2015-06-01T12:00Z").instant
        // "home" saved with its own rows; "work" taken from everything's.
        let saved = [ViewDefinition(), ViewDefinition(filter: .timeline("home")),
                     ViewDefinition(filter: .timeline("home"), order: .descending, sections: .year)]
        var original = TimelineProjection(records: records.prefix(250), views: saved, now: now)
        let wanted = [ViewDefinition(filter: .timeline("home"), order: .descending, sections: .year),
                      ViewDefinition(filter: .timeline("work")),
                      ViewDefinition(filter: .timeline("work"), placement: .last, sections: .month)]
        for view in wanted { original.addView(view) }
        #expect(wanted.contains { original.rows($0)?.isEmpty == false }, "a view shows rows")
        var lazy = TimelineProjection(try Checkpoint.load(original.checkpoint().encoded(), keeping: Set(wanted)))
        #expect(lazy.events.hasPendingEvents)
        #expect(lazy.events.decodedPartitions == 0)
        for view in wanted {
            #expect(lazy.rows(view).map(Array.init) == original.rows(view).map(Array.init), "\(view)")
            #expect(lazy.sections(view) == original.sections(view))
        }
        for record in records.dropFirst(250) {
            let expected = original.apply(record), changes = lazy.apply(record)
            for view in wanted {
                #expect(changes.changeSet(for: view) == expected.changeSet(for: view), "\(view) at \(record.position)")
                #expect(lazy.rows(view).map(Array.init) == original.rows(view).map(Array.init))
            }
        }
        #expect(lazy.domainState == original.domainState)
        lazy.addView(ViewDefinition())
        #expect(!lazy.events.hasPendingEvents)
        #expect(lazy.rows(ViewDefinition()).map(Array.init) == original.rows(ViewDefinition()).map(Array.init))
        // And it saves what it holds: a checkpoint of it loads as the original's does.
        Self.expectEqual(TimelineProjection(try Checkpoint.load(lazy.checkpoint().encoded(), keeping: Set(wanted))),
                         TimelineProjection(try Checkpoint.load(original.checkpoint().encoded(), keeping: Set(wanted))))
    }

    /// The rows of timelines that hold more than half of the events are restored as the
    /// list of everything is, decoding every partition at the same time.
    @Test func aLargeTimelinesRowsDecodeEveryEvent() throws {
        var projection = TimelineProjection(views: [], now: date("2015").instant)
        var facts: [Fact] = [.timelineCreated(timeline: "big", name: "Big"), .timelineCreated(timeline: "small", name: "Small")]
        for number in 0..<100 {
            facts.append(.eventAdded(event: EventID("e\(number)"), timeline: number < 45 ? "small" : "big",
                                     title: "E\(number)", date: date("2001-01-01")))
        }
        projection.apply(Record(position: 1, facts: facts))
        projection.addView(ViewDefinition())
        let bytes = projection.checkpoint().encoded()
        let big = TimelineProjection(try Checkpoint.load(bytes, keeping: [ViewDefinition(filter: .timeline("big"))]))
        #expect(!big.events.hasPendingEvents)
        #expect(big.rows(ViewDefinition(filter: .timeline("big")))?.count == 55)
        let small = TimelineProjection(try Checkpoint.load(bytes, keeping: [ViewDefinition(filter: .timeline("small"))]))
        #expect(small.events.hasPendingEvents, "45 of 100 events: less than half")
        #expect(small.rows(ViewDefinition(filter: .timeline("small")))?.count == 45)
        let none = TimelineProjection(try Checkpoint.load(bytes, keeping: [ViewDefinition(filter: .timeline("none"))]))
        #expect(none.events.hasPendingEvents)
        #expect(none.rows(ViewDefinition(filter: .timeline("none")))?.count == 0)
    }

    /// A timeline's rows restored in place decode their events in parts at the same time
    /// (4,096 events or more each): in order, each event once for its two rows.
    @Test func manyEventsRestoredInPlaceAreDecodedInParts() throws {
        var projection = TimelineProjection(views: [], now: date("2015").instant)
        var facts: [Fact] = [.timelineCreated(timeline: "many", name: "Many"), .timelineCreated(timeline: "rest", name: "Rest")]
        for number in 0..<20_000 {
            let id = EventID("e\(number)"), timeline: TimelineID = number % 2 == 0 ? "many" : "rest"
            facts.append(.eventAdded(event: id, timeline: timeline, title: "E\(number)",
                                     date: date("19\(10 + number % 90)-0\(1 + number % 9)-1\(number % 10)")))
            if number % 3 == 0 { facts.append(.rangeSet(event: id, start: date("1905"), end: number % 6 == 0 ? nil : date("2010"))) }
        }
        projection.apply(Record(position: 1, facts: facts))
        projection.addView(ViewDefinition())
        let view = ViewDefinition(filter: .timeline("many"), order: .descending, sections: .decade)
        var loaded = TimelineProjection(try Checkpoint.load(projection.checkpoint().encoded(), keeping: [view]))
        #expect(loaded.events.hasPendingEvents)
        projection.addView(view)
        #expect(loaded.rows(view).map(Array.init) == projection.rows(view).map(Array.init))
        #expect(loaded.rows(view)?.count ?? 0 > 13_000)
        #expect(loaded.sections(view) == projection.sections(view))
        loaded.events.loadAll()
        #expect(loaded.domainState == projection.domainState)
    }

    /// Looking an event up, and changing it, reads it through its partition's index:
    /// no partition is decoded.
    @Test func aFactAboutOneEventDecodesNoPartition() throws {
        let (projection, _) = Self.projection(seed: 3, records: 300)
        var lazy = TimelineProjection(try Checkpoint.load(projection.checkpoint().encoded(), keeping: []))
        let events = projection.domainState.events.values
        #expect(events.count > 10)
        for event in events { #expect(lazy.event(event.id) == event) }
        #expect(lazy.event(EventID("no-such-event")) == nil)
        let some = try #require(events.first), other = try #require(events.dropFirst().first)
        lazy.apply(Record(position: projection.position + 1, facts: [
            .eventRetitled(event: some.id, title: "Renamed"), .eventRemoved(event: other.id),
        ]))
        #expect(lazy.event(some.id)?.title == "Renamed")
        #expect(lazy.event(other.id) == nil)
        #expect(lazy.eventCount == projection.eventCount - 1)
        #expect(lazy.events.decodedPartitions == 0)
        #expect(lazy.events.hasPendingEvents)
    }

    /// Loading groups each timeline's events from the partitions: removing a timeline after
    /// a load takes its events with it, as in the projection that was saved, whether the
    /// events were decoded at loading or left in their partitions.
    @Test(arguments: [false, true])
    func aLoadedProjectionRemovesATimelineWithItsEvents(leftInPartitions: Bool) throws {
        let (original, _) = Self.projection(seed: 21, records: 150)
        let loaded = TimelineProjection(try Checkpoint.load(original.checkpoint().encoded(),
                                                            keeping: leftInPartitions ? [] : nil))
        let timelines = Set(original.domainState.events.values.map(\.timeline))
        #expect(timelines.count > 1)
        for timeline in timelines {
            var a = original, b = loaded
            let record = Record(position: original.position + 1, facts: [.timelineRemoved(timeline: timeline)])
            a.apply(record)
            b.apply(record)
            #expect(a.domainState == b.domainState)
            #expect(a.timelineSummaries == b.timelineSummaries)
            #expect(!b.domainState.events.values.contains { $0.timeline == timeline })
        }
    }

    /// A partition's count of events that its bytes could not hold is damage: accepting it
    /// would let a damaged count reserve room for that many events.
    @Test func aPartitionCountTheBytesCannotHoldIsRefused() throws {
        let empty = TimelineProjection(views: [], now: date("2015").instant)
        var bytes = Array(empty.checkpoint().encoded().dropLast(4))
        // Tag 8, version 4, position 8, now 8 + 2, no resume point 1; then the counts of
        // timelines, dates, events and partitions, 4 bytes each, then each partition's count.
        let firstCount = 8 + 4 + 8 + 8 + 2 + 1 + 4 * 4
        #expect(Array(bytes[(firstCount - 4)..<firstCount]) == [64, 0, 0, 0])
        bytes[firstCount] = 1
        #expect(throws: Checkpoint.Failure.damaged("a partition of 1 events in 0 bytes")) {
            try Checkpoint.load(Self.resealed(bytes + [0, 0, 0, 0]))
        }
    }

    /// Loading puts each timeline's dates in order by their place in the dates' table, so a
    /// table out of order (which only a checkpoint written by hand could hold) is refused.
    @Test func aDatesTableOutOfOrderIsRefused() throws {
        var projection = TimelineProjection(views: allViews, now: date("2015").instant)
        projection.apply(Record(position: 1, facts: [
            .timelineCreated(timeline: TimelineID("life"), name: "Life"),
            .eventAdded(event: EventID("a"), timeline: TimelineID("life"), title: "A", date: date("2001-01-01")),
            .eventAdded(event: EventID("b"), timeline: TimelineID("life"), title: "B", date: date("2002-02-02")),
        ]))
        var bytes = projection.checkpoint().encoded()
        let early = Array("2001-01-01".utf8), late = Array("2002-02-02".utf8)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: early) })
        #expect(bytes[(at + 14)...].starts(with: late), "the table holds the two dates in order, one after the other")
        bytes.replaceSubrange(at..<(at + 10), with: late)
        bytes.replaceSubrange((at + 14)..<(at + 24), with: early)
        #expect(throws: Checkpoint.Failure.damaged("date \"2001-01-01\" out of order after \"2002-02-02\"")) {
            try Checkpoint.load(Self.resealed(bytes))
        }
    }

    @Test func aCheckpointOfAnotherSchemaVersionIsRefused() {
        var bytes = Self.projection(seed: 5, records: 10).0.checkpoint().encoded()
        bytes[8] = 77  // the schema version follows the 8-byte tag
        let body = Array(bytes.dropLast(4))
        let crc = CRC32C.checksum(body)
        bytes = body + withUnsafeBytes(of: crc.littleEndian, Array.init)
        #expect(throws: Checkpoint.Failure.otherSchemaVersion(found: 77, expected: TimelineProjection.schemaVersion)) {
            try Checkpoint.load(bytes)
        }
    }
}
