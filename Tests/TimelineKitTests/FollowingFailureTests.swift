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

        // Cut shorter than what was read: said, and the rows stay.
        try Data().write(to: URL(fileURLWithPath: path))
        await store.catchUpWithLog()
        let last = try #require(failures.withLock { $0.last })
        #expect("\(last)".contains("shorter than the"), "\(last)")
        #expect(Array(await store.rows()).map(\.title) == ["A"])
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
}
