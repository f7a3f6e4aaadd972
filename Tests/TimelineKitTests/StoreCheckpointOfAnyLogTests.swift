import Foundation
import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineKit

/// A store on any log keeps its checkpoint where it is told, and resumes from it only
/// when the log says the checkpoint's resume point still fits.
@Suite("Checkpoints of a store on any log")
struct StoreCheckpointOfAnyLogTests {
    let reopening = StoreReopeningTests()

    func open(_ log: any EventLog, checkpoint: String) throws -> TimelineStore {
        try TimelineStore(log: log, checkpointPath: checkpoint, clock: ManualClock(fixedNow),
                          views: StoreReopeningTests.views)
    }

    @Test func aStoreResumesFromItsCheckpointAndReadsOnlyTheTail() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl", checkpoint = directory.path + "/cache/log.checkpoint"
        try FileManager.default.createDirectory(atPath: directory.path + "/cache", withIntermediateDirectories: false)
        try await reopening.populate(path).release()
        // The first opening replays everything and writes the checkpoint on close.
        let first = try open(try FileEventLog(path: path), checkpoint: checkpoint)
        #expect(first.openingReport.checkpointPosition == nil)
        #expect(first.openingReport.checkpointProblem == nil)
        try await first.close()
        // Records another writer appends after it are the only ones read.
        let writer = try TimelineStore(path: path, clock: ManualClock(fixedNow))
        try await writer.send(.addEvent("late", timeline: "home", title: "Late", dates: .single(date("2001"))))
        try await writer.send(.retitleEvent("e0", title: "Later"))
        await writer.release()
        let resumed = try open(try FileEventLog(path: path), checkpoint: checkpoint)
        #expect(resumed.openingReport.checkpointPosition == 44)
        #expect(resumed.openingReport.replayedRecords == 2)
        let replayed = try TimelineStore(log: try FileEventLog(path: path), clock: ManualClock(fixedNow),
                                         views: StoreReopeningTests.views)
        #expect(await reopening.snapshot(resumed) == reopening.snapshot(replayed))
        await resumed.release()
        await replayed.release()
    }

    @Test func aCheckpointOfAnotherLogIsNotUsed() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl", other = directory.path + "/other.jsonl"
        let checkpoint = directory.path + "/log.checkpoint"
        try await reopening.populate(path).release()
        try await reopening.populate(other).release()
        try await open(try FileEventLog(path: path), checkpoint: checkpoint).close()
        let wrong = try open(try FileEventLog(path: other), checkpoint: checkpoint)
        #expect(wrong.openingReport.checkpointPosition == nil)
        #expect(wrong.openingReport.checkpointProblem == "checkpoint does not match the log: it was made for another log file")
        #expect(wrong.openingReport.replayedRecords == 44)
        await wrong.release()
    }

    /// A log that does not resume (in memory) gets a checkpoint without a resume point,
    /// which the next opening does not use, saying why.
    @Test func aLogThatDoesNotResumeIsReplayedWhole() async throws {
        let directory = TemporaryDirectory()
        let checkpoint = directory.path + "/memory.checkpoint"
        let log = InMemoryEventLog()
        let store = try open(log, checkpoint: checkpoint)
        try await store.send(.createTimeline("home", name: "Home"))
        try await store.send(.addEvent("a", timeline: "home", title: "A", dates: .single(date("2001"))))
        try await store.close()
        #expect(FileManager.default.fileExists(atPath: checkpoint))
        let again = try open(InMemoryEventLog(records: try log.records(after: 0)), checkpoint: checkpoint)
        #expect(again.openingReport.checkpointPosition == nil)
        #expect(again.openingReport.checkpointProblem == "checkpoint does not say where the log was at position 2")
        #expect(again.openingReport.replayedRecords == 2)
    }

    /// The tail after a checkpoint is checked against the rules like every record.
    @Test func aRefusedRecordAfterTheCheckpointFailsTheOpening() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl", checkpoint = directory.path + "/log.checkpoint"
        try await reopening.populate(path).release()
        try await open(try FileEventLog(path: path), checkpoint: checkpoint).close()
        // Appended without a decision: an event on a timeline that does not exist.
        let raw = try FileEventLog(path: path)
        _ = try raw.append([.eventAdded(event: "x", timeline: "nowhere", title: "X", date: date("2001"))],
                           options: AppendOptions())
        raw.close()
        #expect {
            try open(try FileEventLog(path: path), checkpoint: checkpoint)
        } throws: { error in
            guard case .invalidRecord(let position, _, _) = error as? StoreError else { return false }
            return position == 45
        }
    }
}
