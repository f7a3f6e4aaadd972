import Foundation
import Testing
import TimelineCore
import TimelineTestSupport
@testable import TimelineKit

/// Ids a store makes for a command are made as the command is decided, after what other
/// processes appended: an id made earlier may have been taken meanwhile, one made by
/// `send(commandID:making:)` never has.
@Suite("Ids made as a command is decided")
struct MadeIdentifierTests {
    @Test func anIdMadeInTheSendIsFreeWhenAnotherStoreTookTheOneMadeBefore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-ids-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("log.jsonl").path
        let clock = ManualClock(Instant(microsecondsSinceEpoch: 0))
        let mine = try TimelineStore(path: path, clock: clock)
        _ = try await mine.send(.createTimeline("life", name: "Life"))
        // Another process on the same log, which this store has not read yet.
        let theirs = try TimelineStore(path: path, clock: clock)
        let madeBefore = await mine.makeEventID()
        _ = try await theirs.send(.addEvent(madeBefore, timeline: "life", title: "Theirs", dates: .single(date("2000"))))
        await #expect(throws: StoreError.rejected(.eventExists(madeBefore))) {
            _ = try await mine.send(.addEvent(madeBefore, timeline: "life", title: "Mine", dates: .single(date("2001"))))
        }
        let sent = try await mine.send { ids in
            .addEvent(ids.eventID(), timeline: "life", title: "Mine", dates: .single(date("2001")))
        }
        guard case .addEvent(let made, _, _, _) = sent.command else { Issue.record("\(sent.command)"); return }
        #expect(made != madeBefore && sent.records.count == 1)
        #expect(await mine.canUndo, "a send with made ids is recorded for undo")
        let timeline = try await mine.send { ids in .createTimeline(ids.timelineID(name: "Life"), name: "Life") }
        #expect(timeline.command == .createTimeline("life-2", name: "Life"))
        await mine.release()
        await theirs.release()
    }
}
