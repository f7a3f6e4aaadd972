import TimelineTestSupport
import Foundation
import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineKit

@Suite("A corrupt checkpoint means a full replay")
struct CheckpointCorruptionTests {
    static let views = [
        ViewDefinition(),
        ViewDefinition(filter: .timeline("work"), order: .descending, sections: .year),
        ViewDefinition(placement: .last),
    ]

    enum Mutation: CaseIterable {
        case bitFlips, truncation, garbage, empty, appendedGarbage, otherLog, resealedBitFlips
    }

    /// Fills the log at `path` and closes the store, which writes its checkpoint.
    func populate(_ path: String, prefix: String) async throws {
        let store = try TimelineStore(path: path, clock: ManualClock(fixedNow), views: Self.views)
        try await store.send([.createTimeline("home", name: "Home"), .createTimeline("work", name: "Work")])
        for i in 0..<25 {
            let id = EventID("\(prefix)\(i)")
            switch i % 4 {
            case 0: try await store.send(.addEvent(id, timeline: "home", title: "Home \(i)", dates: .single(date("\(1980 + i)"))))
            case 1: try await store.send(.addEvent(id, timeline: "work", title: "Job \(i)",
                                                   dates: .range(start: date("\(1990 + i)-03"), end: nil)))
            case 2: try await store.send([.addEvent(id, timeline: "work", title: "Trip \(i)",
                                                    dates: .range(start: date("\(1990 + i)-03-01"), end: date("\(1991 + i)"))),
                                          .retitleEvent(id, title: "Trip \(i) ✈︎")])
            default: try await store.send(.closeRange(EventID("\(prefix)\(i - 2)"), end: date("2024-0\(1 + i % 9)")))
            }
        }
        try await store.close()
    }

    /// Two filled logs in a new directory (kept while it lives): `log` and its checkpoint,
    /// and another log's checkpoint's bytes.
    func twoLogs() async throws -> (directory: TemporaryDirectory, log: String, checkpoint: String, foreign: [UInt8]) {
        let directory = TemporaryDirectory()
        let log = directory.path + "/log.jsonl", other = directory.path + "/other.jsonl"
        try await populate(log, prefix: "e")
        try await populate(other, prefix: "x")
        let foreign = try #require(try DurableFile.read(TimelineStore.checkpointPath(forLog: other)))
        return (directory, log, TimelineStore.checkpointPath(forLog: log), foreign)
    }

    /// A store that keeps no view reads its events from the checkpoint after opening: the
    /// file changed in place meanwhile (cut short, then copied over by another log's) does
    /// not change what it reads. Mapped, the file cut short faulted (a bus error), and the
    /// other log's bytes refused an event that exists.
    @Test func aCheckpointChangedInPlaceAfterOpeningChangesNothingRead() async throws {
        let (directory, log, checkpoint, foreign) = try await twoLogs()
        defer { withExtendedLifetime(directory) {} }
        for change in ["cut short", "copied over"] {
            let store = try TimelineStore(path: log, clock: ManualClock(fixedNow), views: [])
            #expect(store.openingReport.checkpointPosition != nil)
            let file = try #require(FileHandle(forWritingAtPath: checkpoint))
            try file.truncate(atOffset: 100)
            if change == "copied over" {
                try file.seek(toOffset: 0)
                try file.write(contentsOf: Data(foreign))
            }
            try file.close()
            try await store.send(.retitleEvent("e4", title: "Changed \(change)"))
            #expect(await store.event("e4")?.title == "Changed \(change)", "\(change)")
            try await store.close()
        }
    }

    /// A forged checkpoint (its checksum matching) whose partition holding an event does
    /// not decode: a store that keeps no view looks up other events without decoding that
    /// partition, and saving its checkpoint decodes it and finds it malformed. The new
    /// checkpoint must not be written without that partition's events (they would be lost
    /// to every later opening, `rows` included); the forged one goes, and the next opening
    /// replays the whole log. Found by a hostile pass: the events were lost, silently.
    @Test func aForgedPartitionFoundAtSavingLeavesNoCheckpointThatLosesItsEvents() async throws {
        let directory = TemporaryDirectory()
        let log = directory.path + "/log.jsonl"
        try await populate(log, prefix: "e")
        let checkpoint = TimelineStore.checkpointPath(forLog: log)
        var bytes = try #require(try DurableFile.read(checkpoint))
        // An event is its id, timeline, title, then its kind of dates (0–2): a kind of 7
        // does not decode. "Home 4" is e4's title, found once.
        let title = Array("Home 4".utf8)
        let at = try #require((0...(bytes.count - title.count)).first { bytes[$0..<($0 + title.count)].elementsEqual(title) })
        #expect(bytes[at + title.count] == 0)
        bytes[at + title.count] = 7
        bytes.removeLast(4)
        var crc = CRC32C.checksum(bytes).littleEndian
        withUnsafeBytes(of: &crc) { bytes.append(contentsOf: $0) }
        try DurableFile.write(bytes, to: checkpoint)

        let store = try TimelineStore(path: log, clock: ManualClock(fixedNow), views: [])
        #expect(store.openingReport.checkpointPosition != nil, "the forged checkpoint opens: its checksum matches")
        try await store.send(.retitleEvent("e8", title: "Home 8, again"))
        try await store.close()
        #expect(!FileManager.default.fileExists(atPath: checkpoint), "a checkpoint that lost e4's partition was kept")

        let reopened = try TimelineStore(path: log, clock: ManualClock(fixedNow), views: Self.views)
        defer { (reopened.log as? FileEventLog)?.close() }
        #expect(reopened.openingReport.checkpointPosition == nil)
        let fresh = TimelineProjection(records: try FileEventLog.read(path: log).records, views: Self.views, now: fixedNow)
        for view in Self.views {
            #expect(Array(await reopened.rows(view)) == Array(fresh.rows(view) ?? RowList()))
        }
        #expect(await reopened.event("e4")?.title == "Home 4")
    }

    @Test func seededMutationsNeverCrashAndGiveTheRowsOfAFreshReplay() async throws {
        let (directory, log, checkpoint, foreign) = try await twoLogs()
        defer { withExtendedLifetime(directory) {} }
        let good = try #require(try DurableFile.read(checkpoint))
        let records = try FileEventLog.read(path: log).records
        let fresh = TimelineProjection(records: records, views: Self.views, now: fixedNow)
        let expected = Self.views.map { Array(fresh.rows($0) ?? RowList()) }

        // The unmutated checkpoint is used, so the mutations below are what make the difference.
        let intact = try TimelineStore(path: log, clock: ManualClock(fixedNow), views: Self.views)
        #expect(intact.openingReport.checkpointPosition == Int64(records.count))
        (intact.log as? FileEventLog)?.close()

        var random = SplitMix64(seed: 0xC4EC_4B01)
        var tried = 0
        var counts: [Mutation: Int] = [:]
        let rounds = 150
        for round in 0..<rounds {
            for mutation in Mutation.allCases {
                var bytes = good
                switch mutation {
                case .bitFlips, .resealedBitFlips:
                    if mutation == .resealedBitFlips { bytes.removeLast(4) }
                    for _ in 0..<(1 + random.below(8)) {
                        let index = mutation == .resealedBitFlips ? 8 + random.below(bytes.count - 8) : random.below(bytes.count)
                        bytes[index] ^= UInt8(1) << UInt8(random.below(8))
                    }
                    if mutation == .resealedBitFlips {
                        // A valid checksum over damaged content: the decoder itself must cope.
                        var crc = CRC32C.checksum(bytes).littleEndian
                        withUnsafeBytes(of: &crc) { bytes.append(contentsOf: $0) }
                    }
                case .truncation: bytes = Array(bytes.prefix(random.below(bytes.count)))
                case .garbage: bytes = (0..<random.below(4096)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                case .empty: bytes = []
                case .appendedGarbage: bytes += (0..<(1 + random.below(64))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                case .otherLog: bytes = foreign
                }
                try DurableFile.write(bytes, to: checkpoint)
                let store = try TimelineStore(path: log, clock: ManualClock(fixedNow), views: Self.views)
                defer { (store.log as? FileEventLog)?.close() }
                tried += 1
                counts[mutation, default: 0] += 1
                let report = store.openingReport
                if mutation == .resealedBitFlips {
                    // Damage behind a valid checksum may still decode; it must only never crash.
                    if report.checkpointProblem != nil { #expect(report.checkpointPosition == nil) }
                    continue
                }
                #expect(report.checkpointProblem != nil, "round \(round): \(mutation) was not noticed")
                #expect(report.checkpointPosition == nil, "round \(round): \(mutation)")
                #expect(report.replayedRecords == records.count)
                var rows: [[Row]] = []
                for view in Self.views { rows.append(Array(await store.rows(view))) }
                #expect(rows == expected, "round \(round): \(mutation)")
            }
        }
        #expect(tried == rounds * Mutation.allCases.count)
        print("checkpoint corruption: \(tried) mutations tried: \(counts.map { "\($0.key) \($0.value)" }.sorted())")
    }

    @Test func aCheckpointAheadOfItsLogIsNotUsed() async throws {
        let directory = TemporaryDirectory()
        let log = directory.path + "/log.jsonl"
        try await populate(log, prefix: "e")
        // The log loses its last records in place (same file): the checkpoint is now ahead of it.
        let contents = try FileEventLog.read(path: log)
        let keep = contents.offsets[contents.records.count - 3]
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try handle.truncate(atOffset: UInt64(keep))
        try handle.close()
        let store = try TimelineStore(path: log, clock: ManualClock(fixedNow), views: Self.views)
        defer { (store.log as? FileEventLog)?.close() }
        #expect(store.openingReport.checkpointPosition == nil)
        #expect(store.openingReport.checkpointProblem?.contains("ahead of the log") == true)
        let fresh = TimelineProjection(records: try FileEventLog.read(path: log).records, views: Self.views, now: fixedNow)
        for view in Self.views {
            #expect(Array(await store.rows(view)) == Array(fresh.rows(view) ?? RowList()))
        }
    }

    @Test func openingAStoreRemovesTheTemporaryCheckpointsThatDeadWritersLeft() throws {
        let directory = TemporaryDirectory()
        let log = directory.path + "/log.jsonl"
        let checkpoint = TimelineStore.checkpointPath(forLog: log)
        // Process ids above Linux's largest (2^22) never run; the parent process does.
        let stale = [checkpoint + ".tmp-4194399", checkpoint + ".tmp-4194398-3"]
        let unrelated = [checkpoint + ".tmp-notapid", log + ".tmp-4194399", directory.path + "/other.checkpoint.tmp-1",
                         checkpoint + ".tmp-\(getppid())-1"]
        for file in stale + unrelated { _ = FileManager.default.createFile(atPath: file, contents: Data([1, 2, 3])) }
        let store = try TimelineStore(path: log, clock: ManualClock(fixedNow))
        defer { (store.log as? FileEventLog)?.close() }
        for file in stale { #expect(!FileManager.default.fileExists(atPath: file), "\(file)") }
        for file in unrelated { #expect(FileManager.default.fileExists(atPath: file), "\(file)") }
    }
}
