import Testing
import Foundation
@testable import TimelineCore

extension FileEventLogTests {
    // MARK: Catch-up reading

    @Test func recordsAfterEveryPosition() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            let log = try FileEventLog(path: path)
            var written: [Record] = []
            for (index, chunk) in [0..<1, 1..<4, 4..<5, 5..<9, 9..<10].enumerated() {
                written += try log.append(Array(facts[chunk]), options: AppendOptions(commandID: "c\(index)")).records
            }
            func check(_ log: FileEventLog) throws {
                for position in -1...(written.count + 2) {
                    let expected = Array(written.dropFirst(max(0, position)))
                    #expect(try log.records(after: Int64(position)) == expected, "after \(position)")
                }
                #expect(try log.records(after: .max).isEmpty)
                #expect(try log.records(after: .min) == written)
            }
            try check(log)
            log.close()
            let reopened = try FileEventLog(path: path)
            defer { reopened.close() }
            try check(reopened)
        }
    }

    @Test func aNewLogFileIsCreatedEmpty() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/new.jsonl"
            let log = try FileEventLog(path: path)
            #expect(log.position == 0)
            #expect(try log.records(after: 0).isEmpty)
            log.close()
            #expect(fileBytes(path).isEmpty)
            #expect(try FileEventLog.read(path: path).records.isEmpty)
        }
    }
}
