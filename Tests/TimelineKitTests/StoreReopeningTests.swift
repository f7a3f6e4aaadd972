import Foundation
import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineKit

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory {
    let path: String
    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

@Suite("Reopening a store")
struct StoreReopeningTests {
    static let views = [
        ViewDefinition(),
        ViewDefinition(filter: .timeline("work"), order: .descending, sections: .year),
        ViewDefinition(placement: .last),
    ]

    static func commands(_ offset: Int) -> [Command] {
        (0..<30).map { i in
            let id = EventID("e\(offset + i)")
            switch i % 5 {
            case 0: return .addEvent(id, timeline: "home", title: "Home \(i)", dates: .single(date("\(1980 + i)")))
            case 1: return .addEvent(id, timeline: "work", title: "Job \(i)", dates: .range(start: date("\(1990 + i)-03"), end: nil))
            case 2: return .addEvent(id, timeline: "work", title: "Trip \(i)",
                                     dates: .range(start: date("\(1990 + i)-03-01"), end: date("\(1991 + i)")))
            case 3: return .retitleEvent(EventID("e\(offset + i - 3)"), title: "Renamed \(i)")
            default: return .closeRange(EventID("e\(offset + i - 3)"), end: date("2024"))
            }
        }
    }

    func populate(_ path: String) async throws -> TimelineStore {
        let store = try TimelineStore(path: path, clock: ManualClock(fixedNow), views: Self.views)
        try await store.send([.createTimeline("home", name: "Home"), .createTimeline("work", name: "Work")])
        for command in Self.commands(0) { try await store.send(command) }
        return store
    }

    func snapshot(_ store: TimelineStore) async -> [[Row]] {
        var result: [[Row]] = []
        for view in Self.views { result.append(Array(await store.rows(view))) }
        return result
    }

    @Test func aCleanCloseWritesACheckpointAndReopeningReplaysNothing() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try await populate(path)
        let before = await snapshot(store)
        try await store.close()
        let reopened = try TimelineStore(path: path, clock: ManualClock(fixedNow), views: Self.views)
        #expect(reopened.openingReport.checkpointPosition == 44)
        #expect(reopened.openingReport.replayedRecords == 0)
        #expect(await snapshot(reopened) == before)
        #expect(await reopened.timelineSummaries == (await store.timelineSummaries))
        // The restored store accepts commands that depend on the restored state.
        try await reopened.send(.reopenRange("e2"))
        await #expect(throws: StoreError.rejected(.eventExists("e0"))) {
            try await reopened.send(.addEvent("e0", timeline: "home", title: "Again", dates: .single(date("2000"))))
        }
    }

    @Test func anUncleanStopReplaysTheLogAndGivesTheSameViews() async throws {
        let directory = TemporaryDirectory()
        let clean = directory.path + "/clean.jsonl", unclean = directory.path + "/unclean.jsonl"
        let a = try await populate(clean)
        try await a.close()
        let b = try await populate(unclean)
        (b.log as? FileEventLog)?.close()  // no checkpoint: as if the process died
        let reopenedClean = try TimelineStore(path: clean, clock: ManualClock(fixedNow), views: Self.views)
        let reopenedUnclean = try TimelineStore(path: unclean, clock: ManualClock(fixedNow), views: Self.views)
        #expect(reopenedUnclean.openingReport.checkpointPosition == nil)
        #expect(reopenedUnclean.openingReport.replayedRecords == 44)
        #expect(await snapshot(reopenedClean) == (await snapshot(reopenedUnclean)))
    }

    @Test func recordsAfterTheCheckpointAreReplayedFromTheLog() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try await populate(path)
        try await store.saveCheckpoint()
        for command in Self.commands(100) { try await store.send(command) }
        let expected = await snapshot(store)
        (store.log as? FileEventLog)?.close()
        let reopened = try TimelineStore(path: path, clock: ManualClock(fixedNow), views: Self.views)
        #expect(reopened.openingReport.checkpointPosition == 44)
        #expect(reopened.openingReport.replayedRecords == 42)
        #expect(await snapshot(reopened) == expected)
    }

    @Test func aDamagedCheckpointMeansAFullReplayNeverAWrongRow() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try await populate(path)
        let expected = await snapshot(store)
        try await store.close()
        let checkpoint = TimelineStore.checkpointPath(forLog: path)
        var bytes = try #require(try DurableFile.read(checkpoint))
        bytes[bytes.count / 2] ^= 0x10
        try DurableFile.write(bytes, to: checkpoint)
        let reopened = try TimelineStore(path: path, clock: ManualClock(fixedNow), views: Self.views)
        #expect(reopened.openingReport.checkpointPosition == nil)
        #expect(reopened.openingReport.checkpointProblem == "damaged checkpoint: checksum mismatch")
        #expect(await snapshot(reopened) == expected)
    }

    @Test func aCheckpointOfAReplacedLogIsIgnored() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl", other = directory.path + "/other.jsonl"
        try await populate(path).close()
        try await populate(other).close()
        // Replace the log with another file (another inode): its checkpoint no longer describes it.
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: other, toPath: path)
        let reopened = try TimelineStore(path: path, clock: ManualClock(fixedNow), views: Self.views)
        #expect(reopened.openingReport.checkpointProblem == "checkpoint does not match the log: it was made for another log file")
    }

    /// Two stores on one log (as two processes would have): each decides against the
    /// other's records, and neither loses any.
    @Test func twoStoresOnTheSameLogBothWriteAndSeeEachOther() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try await populate(path)
        let second = try TimelineStore(path: path, clock: ManualClock(fixedNow))
        try await second.send(.createTimeline("second", name: "From the second store"))
        // The first store has not seen it, but decides against it.
        await #expect(throws: StoreError.rejected(.timelineExists("second"))) {
            try await store.send(.createTimeline("second", name: "Again"))
        }
        #expect(await store.timeline("second")?.name == "From the second store")
        try await store.send(.renameTimeline("second", name: "Renamed by the first"))
        try await second.send(.removeTimeline("second"))
        #expect(await second.position == second.log.position)
        try await store.close()
        try await second.close()
        let reopened = try TimelineStore(path: path, clock: ManualClock(fixedNow))
        #expect(await reopened.position == second.log.position)
        #expect(await reopened.timeline("second") == nil)
    }
}
