import Foundation
import Testing
@testable import TimelineCore

/// Several batches in one hold of the lock (a replica pushing its submissions): each
/// decided with the ones before it seen, a command id already there skipped, all durable
/// at once, and the same records as appending them one by one.
@Suite("Appending several batches at once")
struct BatchAppendingTests {
    static let plans: [PlannedBatch] = [
        PlannedBatch(facts: [.timelineCreated(timeline: "t", name: "T")], options: AppendOptions(commandID: "a")),
        PlannedBatch(facts: [.eventAdded(event: "e", timeline: "t", title: "E", date: try! DateValue(parsing: "2000")),
                             .rangeSet(event: "e", start: try! DateValue(parsing: "2000"), end: nil)],
                     options: AppendOptions(commandID: "b", submission: "n")),
        PlannedBatch(facts: [.eventRemoved(event: "e")], options: AppendOptions(commandID: "a")),  // a again: skipped
        PlannedBatch(facts: [], options: AppendOptions(commandID: "c")),  // nothing to append
        PlannedBatch(facts: [.eventRetitled(event: "e", title: "F")], options: AppendOptions(commandID: "d")),
    ]

    func check(_ log: some BatchAppending) throws {
        var seen: [Int64] = []
        let appended = try log.appendEach(after: 0, count: Self.plans.count, catchingUp: { (records: [Record]) throws(Never) in
            seen += records.map(\.position)
        }, deciding: { (index: Int) throws(Never) -> PlannedBatch? in Self.plans[index] })
        #expect(appended.map(\.position) == [1, 2, 3, 4])
        #expect(seen == [1, 2, 3, 4], "each planned batch is seen before the next is decided")
        let records = try log.records(after: 0)
        #expect(records.map(\.commandID) == ["a", "b", "b", "d"])
        #expect(records.map(\.batchRemainder) == [0, 1, 0, 0])
        #expect(records[1].submission == "n")
        #expect(try log.records(forCommandID: "b")?.count == 2)
        // Stopping early (`nil`) appends what was planned before.
        let more = try log.appendEach(after: 4, count: 2, catchingUp: { (_: [Record]) throws(Never) in },
                                      deciding: { (index: Int) throws(Never) -> PlannedBatch? in
            index == 0 ? PlannedBatch(facts: [.eventRemoved(event: "e")], options: AppendOptions(commandID: "e")) : nil
        })
        #expect(more.map(\.position) == [5])
    }

    @Test func inMemory() throws { try check(InMemoryEventLog()) }

    @Test func inAFileAndReadBackAfterReopening() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let log = try FileEventLog(path: path)
            try check(log)
            log.close()
            let reopened = try FileEventLog(path: path)
            defer { reopened.close() }
            #expect(try reopened.records(after: 0).map(\.commandID) == ["a", "b", "b", "d", "e"])
            #expect(try reopened.records(forCommandID: "d")?.first?.position == 4)
        }
    }
}
