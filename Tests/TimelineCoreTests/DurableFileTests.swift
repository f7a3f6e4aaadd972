import Foundation
import Testing
@testable import TimelineCore

/// Writing a side file (a checkpoint) whole, through a temporary file renamed over it.
@Suite struct DurableFileTests {
    /// A failure is reported by the file being written, not by its temporary stand-in,
    /// which is gone by then: a person looks for the file they know.
    @Test func aFailedWriteNamesTheFileNotItsTemporary() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/missing/log.jsonl.checkpoint"
            let error = #expect(throws: EventLogError.self) { try DurableFile.write([1, 2, 3], to: path) }
            #expect(error == .io(path: path, operation: "open", code: ENOENT))
            let other = #expect(throws: EventLogError.self) {
                try DurableFile.write([1, 2, 3], to: path, permissionsOf: directory)
            }
            #expect(other == .io(path: path, operation: "open", code: ENOENT))
            let left = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(left.isEmpty, "\(left)")
        }
    }

    /// Another error (not about the temporary file) passes as it is.
    @Test func onlyTheTemporarysNameIsReplaced() {
        let unrelated = EventLogError.io(path: "a", operation: "rename", code: EXDEV)
        #expect(unrelated.naming("b", insteadOf: "c") == unrelated)
        #expect(unrelated.naming("b", insteadOf: "a") == .io(path: "b", operation: "rename", code: EXDEV))
        #expect(EventLogError.emptyBatch.naming("b", insteadOf: "a") == .emptyBatch)
    }
}
