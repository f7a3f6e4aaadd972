import Foundation
import SystemShim
import Testing
@testable import TimelineCore

/// The durability and repair contract: nothing acknowledged is cut or lost, a torn tail
/// goes to the side file before the log is shortened, and repair opens every log that
/// verify refuses while keeping the file's mode, owner and links.
@Suite struct DurabilityContractTests {
    /// A store-written log of the story's facts, one record a batch.
    static func storeLog(_ path: String, count: Int = 4) throws {
        let log = try FileEventLog(path: path)
        for fact in try storyFacts().prefix(count) { _ = try log.append([fact], options: AppendOptions()) }
        log.close()
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        _ = lstat(path, &info)
        return info.st_mode
    }

    // MARK: Torn tails

    @Test func aTornTailIsMovedToTheSideFileBeforeItIsCut() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            try Self.storeLog(path)
            let whole = fileBytes(path)
            let torn = utf8(#"{"seq":5,"type":"eventAdded","data":{"ev"#)
            try appendBytes(path, torn)
            // A reader treats it as not yet written and leaves it.
            #expect(try FileEventLog.read(path: path).tornTail != nil)
            #expect(fileBytes(path) == whole + torn)
            // A writer cuts it, after saving it byte for byte (with a newline) beside the log.
            let log = try FileEventLog(path: path)
            defer { log.close() }
            #expect(log.tornTail?.length == torn.count)
            #expect(fileBytes(path) == whole)
            #expect(fileBytes(FileEventLog.sideFilePath(for: path)) == torn + [0x0A])
        }
    }

    @Test func theUnfinishedBatchOfATornTailIsSavedWhole() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            try Self.storeLog(path, count: 1)
            let whole = fileBytes(path)
            let facts = try storyFacts()
            var batch: [UInt8] = []
            for record in Record.batch(of: Array(facts[1..<4]), after: 1, options: AppendOptions()) {
                batch += RecordEncoder().encode(record)
            }
            // The batch's first two lines are whole; the third is cut short.
            let written = Array(batch.prefix(batch.count - 10))
            try appendBytes(path, written)
            let log = try FileEventLog(path: path)
            defer { log.close() }
            #expect(log.position == 1)
            #expect(fileBytes(path) == whole)
            #expect(fileBytes(FileEventLog.sideFilePath(for: path)) == written + [0x0A])
        }
    }

    /// Issue: flipping one bit of the newline that ends a checksummed batch made the next
    /// writer cut both records as torn. A whole record with a valid checksum was
    /// acknowledged: the log refuses to open, pointing to repair, which keeps it.
    @Test func aDamagedFinalNewlineIsCorruptionNotATornWrite() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let log = try FileEventLog(path: path)
            let facts = try storyFacts()
            _ = try log.append(Array(facts[0..<2]), options: AppendOptions(commandID: "two"))
            log.close()
            var bytes = fileBytes(path)
            bytes[bytes.count - 1] ^= 0x01
            try writeFile(path, bytes)

            let error = #expect(throws: EventLogError.self) { try FileEventLog(path: path) }
            guard case .invalidLine(_, let line, let reason)? = error else {
                Issue.record("expected an invalid line, got \(String(describing: error))")
                return
            }
            #expect(line == 2)
            #expect(reason.contains("damaged"))
            #expect(fileBytes(path) == bytes, "nothing may be cut")
            #expect(throws: LogReader.Failure.self) { try LogReader().read(bytes) }

            let report = try FileEventLog.repair(path: path)
            #expect(report.kept == 2)
            #expect(report.moved.map(\.line) == [2])
            #expect(fileBytes(FileEventLog.sideFilePath(for: path)) == [0x0B, 0x0A])
            let repaired = try FileEventLog.read(path: path)
            #expect(repaired.records.flatMap(\.facts) == Array(facts[0..<2]))
        }
    }

    // MARK: Repair opens what verify refuses

    @Test(arguments: [[1, 2, 5], [1, 2, Int(Int64.max)], [3, 4, 5]])
    func repairRenumbersALogWhosePositionsVerifyRefuses(seqs: [Int]) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let facts = try storyFacts()
            var bytes: [UInt8] = []
            for (index, seq) in seqs.enumerated() {
                bytes += RecordEncoder().encode(Record(position: Int64(seq), fact: facts[index]))
            }
            try writeFile(path, bytes)
            #expect(throws: LogReader.Failure.self) { try LogReader().read(bytes) }

            let dryRun = try FileEventLog.repair(path: path, dryRun: true)
            #expect(dryRun.rewritten && dryRun.dryRun && dryRun.kept == 3)
            #expect(fileBytes(path) == bytes)

            let report = try FileEventLog.repair(path: path)
            #expect(report.rewritten && report.moved.isEmpty && report.sideFile == nil)
            let repaired = try FileEventLog.read(path: path)
            #expect(repaired.records.map(\.position) == [1, 2, 3])
            #expect(repaired.records.flatMap(\.facts) == Array(facts[0..<3]))
            #expect(!(try FileEventLog.repair(path: path)).rewritten)
        }
    }

    // MARK: Repair keeps the file

    @Test func repairKeepsTheModeAndGivesItToTheSideFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            try Self.storeLog(path)
            try appendBytes(path, utf8("not a record\n"))
            #expect(chmod(path, 0o600) == 0)
            _ = try FileEventLog.repair(path: path)
            #expect(Self.mode(path) & 0o777 == 0o600)
            #expect(Self.mode(FileEventLog.sideFilePath(for: path)) & 0o777 == 0o600)
            #expect(try FileEventLog.read(path: path).records.count == 4)
        }
    }

    @Test(.enabled(if: geteuid() == 0, "changing a file's owner needs root"))
    func repairKeepsTheOwner() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            try Self.storeLog(path)
            try appendBytes(path, utf8("not a record\n"))
            #expect(chown(path, 4321, 4322) == 0)
            _ = try FileEventLog.repair(path: path)
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_uid == 4321 && info.st_gid == 4322)
        }
    }

    @Test func repairFollowsASymbolicLinkToItsTarget() throws {
        try withTemporaryDirectory { directory in
            let target = directory + "/real.jsonl"
            let link = directory + "/link.jsonl"
            try Self.storeLog(target)
            try appendBytes(target, utf8("not a record\n"))
            #expect(symlink(target, link) == 0)
            let report = try FileEventLog.repair(path: link)
            #expect(report.moved.count == 1)
            #expect(Self.mode(link) & S_IFMT == S_IFLNK, "the link stays a link")
            #expect(try FileEventLog.read(path: target).records.count == 4)
            #expect(try FileEventLog.read(path: link).records.count == 4)
        }
    }
}
