import EventLogContract
import Foundation
import Testing
@testable import TimelineCore

/// Runs `body` with the path of a new, empty directory of its own, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    return try body(directory)
}

/// Runs `body` with the path of a new, empty directory of its own, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    return try await body(directory)
}

private func makeTemporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("timeline-log-tests-\(UUID().uuidString)", isDirectory: true).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    return path
}

/// Every byte of the file at `path` (empty when there is no such file).
func fileBytes(_ path: String) -> [UInt8] {
    FileManager.default.contents(atPath: path).map { Array($0) } ?? []
}

/// Replaces the file at `path` with `bytes`.
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Appends `bytes` to the file at `path` in place (the same file, as another writer would).
func appendBytes(_ path: String, _ bytes: [UInt8]) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(bytes))
}

/// Flips a bit in line `line` (from 1) of the file at `path`, behind its log's back: the
/// eleventh byte, inside the record, so that its checksum no longer matches.
func damageLine(_ line: Int, of path: String) throws {
    var bytes = fileBytes(path)
    let lineStarts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
    bytes[lineStarts[line - 1] + 10] ^= 0x01
    try writeFile(path, bytes)
}

/// How many lines the file at `path` has, when it ends with a newline.
func lineCount(of path: String) -> Int { fileBytes(path).filter { $0 == 0x0A }.count }

/// The line that the `.invalidLine` error `body` throws names; records an issue, and gives
/// `nil`, when `body` throws nothing or another error.
func invalidLine(in body: () throws(EventLogError) -> Void) -> Int? {
    do throws(EventLogError) {
        try body()
        Issue.record("the damaged record was read")
    } catch {
        guard case .invalidLine(_, let line, _) = error else {
            Issue.record("unexpected \(error)")
            return nil
        }
        return line
    }
    return nil
}

/// Appends `bytes` to the file at `path`, as a crash in the middle of a write might leave them.
func appendToFile(_ path: String, _ bytes: [UInt8]) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(bytes))
}

/// The store's lines for `records`, newlines included.
func storeBytes(_ records: [Record]) -> [UInt8] {
    var bytes: [UInt8] = []
    let encoder = RecordEncoder()
    for record in records { encoder.encode(record, into: &bytes) }
    return bytes
}

/// The records an append of `facts` at `position` writes: one batch, `more` counting down.
func batch(_ facts: [Fact], after position: Int64, recordedAt: DateValue? = nil, commandID: String? = nil) -> [Record] {
    EventLogContract.batch(facts, after: position, recordedAt: recordedAt, commandID: commandID)
}

/// Single records (batches of one) at positions 1, 2, 3, … for `facts`.
func singles(_ facts: [Fact]) -> [Record] {
    facts.enumerated().map { Record(position: Int64($0.offset + 1), fact: $0.element) }
}

/// The bytes of `text`.
func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

/// The facts of a small life story that the decider accepts in this order.
func storyFacts() throws -> [Fact] { try EventLogContract.storyFacts() }

/// A timestamp for a record's `at`.
func recordedAt() throws -> DateValue { try EventLogContract.recordedAt() }

/// What reading `bytes` as a log throws, or `nil` when it reads.
func readFailure(_ bytes: [UInt8]) -> LogReader.Failure? {
    do {
        _ = try LogReader().read(bytes)
        return nil
    } catch {
        return error
    }
}

/// What opening the log at `path` throws, or `nil` (closing the log again) when it opens.
func openError(_ path: String) -> EventLogError? {
    do {
        try FileEventLog(path: path).close()
        return nil
    } catch {
        return error
    }
}
