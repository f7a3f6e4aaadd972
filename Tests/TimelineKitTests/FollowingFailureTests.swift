import Foundation
import Synchronization
import Testing
import TimelineCore
@testable import TimelineKit

/// A store that follows a log written by others says when it cannot read on, and goes on.
@Suite("Store: a log that cannot be read on")
struct FollowingFailureTests {
    @Test func aBadLineOrACutLogIsReportedAndTheViewsStay() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try TimelineStore(path: path, clock: ManualClock(fixedNow))
        try await store.send(.createTimeline("life", name: "Life"))
        let failures = Mutex<[StoreError]>([])
        await store.onFollowingFailure { error in failures.withLock { $0.append(error) } }

        // Another writer's record arrives; then a line no writer of ours wrote.
        let other = try FileEventLog(path: path)
        _ = try other.append([.eventAdded(event: "e1", timeline: "life", title: "A", date: date("2001"))],
                             options: AppendOptions())
        other.close()
        await store.catchUpWithLog()
        #expect(await store.position == 2)
        #expect(failures.withLock { $0 }.isEmpty)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("not a record\n".utf8))
        try handle.close()
        await store.catchUpWithLog()
        #expect(await store.position == 2)
        let first = try #require(failures.withLock { $0.first })
        guard case .log(.invalidLine(path, 3, let reason)) = first else {
            Issue.record("expected the bad line 3, got \(first)")
            return
        }
        #expect(reason.hasPrefix("not valid JSON"), "\(reason)")

        // Cut shorter than what was read: the store reads what the file holds now.
        let reported = failures.withLock { $0.count }
        try Data().write(to: URL(fileURLWithPath: path))
        await store.catchUpWithLog()
        #expect(failures.withLock { $0.count } == reported, "\(failures.withLock { $0 })")
        #expect(await store.position == 0)
        #expect(Array(await store.rows()).isEmpty)
        await store.release()
    }

    /// A log overwritten in place (same inode) by a longer one — `cp backup.jsonl log.jsonl`
    /// — is read from its start, and subscribers get a reset to it: never the other log's
    /// tail applied onto what was read. Writers decide against it too.
    @Test func aLogOverwrittenInPlaceByALongerOneIsReadAgainWithAReset() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try TimelineStore(path: path, clock: ManualClock(fixedNow))
        try await store.send([.createTimeline("life", name: "Life"),
                              .addEvent("a", timeline: "life", title: "a", dates: .single(date("2001")))])
        let otherPath = directory.path + "/other.jsonl"
        let other = try TimelineStore(path: otherPath, clock: ManualClock(fixedNow))
        try await other.send(.createTimeline("life", name: "Life"))
        try await other.send(.addEvent("x", timeline: "life", title: "x", dates: .single(date("2002"))))
        try await other.send(.addEvent("y", timeline: "life", title: "y", dates: .single(date("2003"))))
        await other.release()
        let failures = Mutex<[StoreError]>([])
        await store.onFollowingFailure { error in failures.withLock { $0.append(error) } }
        var changes = await store.changes().makeAsyncIterator()
        #expect(await changes.next()?.rows.map(\.title) == ["a"])

        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: try Data(contentsOf: URL(fileURLWithPath: otherPath)))
        try handle.close()
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode)
        await store.catchUpWithLog()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let reset = try #require(await changes.next())
        #expect(reset.isReset && reset.rows.map(\.title) == ["x", "y"], "\(reset)")
        #expect(await store.position == 3)
        // A command is decided against the log the file holds now.
        await #expect(throws: StoreError.self) {
            try await store.send(.retitleEvent("a", title: "b"))
        }
        try await store.send(.retitleEvent("y", title: "z"))
        #expect(Array(await store.rows()).map(\.title) == ["x", "z"])
        await store.release()
    }

    /// A log cut by hand and written again, longer than before, is read from its start.
    @Test func aLogCutAndGrownAgainIsReadFromItsStart() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try TimelineStore(path: path, clock: ManualClock(fixedNow))
        try await store.send(.createTimeline("life", name: "Life"))
        try await store.send(.addEvent("a", timeline: "life", title: "a", dates: .single(date("2001"))))
        let failures = Mutex<[StoreError]>([])
        await store.onFollowingFailure { error in failures.withLock { $0.append(error) } }
        let firstLine = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")[0] + "\n"
        try Data(firstLine.utf8).write(to: URL(fileURLWithPath: path))
        let writer = try FileEventLog(path: path)
        _ = try writer.append([.eventAdded(event: "b", timeline: "life", title: "b", date: date("2002")),
                               .eventAdded(event: "c", timeline: "life", title: "c", date: date("2003"))],
                              options: AppendOptions())
        writer.close()
        await store.catchUpWithLog()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(Array(await store.rows()).map(\.title) == ["b", "c"])
        await store.release()
    }

    /// A notification that arrives as the store is released (`timeline watch` ending on an
    /// output error) reads nothing and reports nothing: the log closed by the release is
    /// not a reason the views stopped.
    @Test func aReleasedStoreReportsNoFailureForAReadItNoLongerMakes() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try TimelineStore(path: path, clock: ManualClock(fixedNow))
        try await store.send(.createTimeline("life", name: "Life"))
        let failures = Mutex<[StoreError]>([])
        await store.onFollowingFailure { error in failures.withLock { $0.append(error) } }
        _ = await store.subscribe()
        await store.release()
        await store.catchUpWithLog()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
    }

    /// A catch-up that succeeds after one failed says so once (`timeline watch` tells a
    /// person the view follows the log again); one that never failed says nothing.
    @Test func aCatchUpAfterAFailureSaysTheStoreReadsAgainOnce() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try TimelineStore(path: path, clock: ManualClock(fixedNow))
        try await store.send(.createTimeline("life", name: "Life"))
        let events = Mutex<[String]>([])
        await store.onFollowingFailure({ _ in events.withLock { $0.append("failed") } },
                                       whenReadingAgain: { events.withLock { $0.append("again") } })
        await store.catchUpWithLog()
        #expect(events.withLock { $0 }.isEmpty)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        try (good + Data("not a record\n".utf8)).write(to: URL(fileURLWithPath: path))
        await store.catchUpWithLog()
        await store.catchUpWithLog()
        #expect(events.withLock { $0 } == ["failed", "failed"])
        // The line mended: another writer's record follows what was read.
        try good.write(to: URL(fileURLWithPath: path))
        let other = try FileEventLog(path: path)
        _ = try other.append([.eventAdded(event: "e1", timeline: "life", title: "A", date: date("2001"))],
                             options: AppendOptions())
        other.close()
        await store.catchUpWithLog()
        await store.catchUpWithLog()
        #expect(events.withLock { $0 } == ["failed", "failed", "again"])
        #expect(Array(await store.rows()).map(\.title) == ["A"])
        await store.release()
    }
}
