import Testing
import Foundation
import TimelineTestSupport

@testable import TimelineCore

/// Reading a log a chunk at a time — cut at line ends, a chunk never ending inside an
/// atomic batch — gives what reading it at once gives, and so does a log's replay.
@Suite("Reading a log in chunks")
struct LogChunkReaderTests {
    enum Outcome: Equatable {
        case read(records: [Record], offsets: [Int], lines: [Int], torn: LogReader.TornTail?)
        case failed(line: Int, reason: String)
    }

    static func whole(_ bytes: [UInt8]) -> Outcome {
        do {
            let contents = try LogReader().read(bytes)
            return .read(records: contents.records, offsets: contents.offsets, lines: contents.lineNumbers,
                         torn: contents.tornTail)
        } catch {
            return .failed(line: error.line, reason: error.reason)
        }
    }

    static func chunked(_ path: String, chunkBytes: Int) throws -> Outcome {
        let file = try SystemFile(path: path, flags: O_RDONLY)
        var records: [Record] = [], offsets: [Int] = [], lines: [Int] = []
        do {
            var reader = try LogChunkReader(file, from: LogReader.Start(), chunkBytes: chunkBytes)
            while let contents = try reader.next() {
                records += contents.records
                offsets += contents.offsets
                lines += contents.lineNumbers
            }
            return .read(records: records, offsets: offsets, lines: lines, torn: reader.tornTail)
        } catch {
            guard case .invalidLine(_, let line, let reason) = error else { throw error }
            return .failed(line: line, reason: reason)
        }
    }

    /// A line longer than any record is read on without being kept, so memory stays
    /// bounded (a stream with no newline, such as /dev/zero, never fills it), and it reads
    /// as at once: a bad line when its newline comes, a torn tail when the log ends first,
    /// unless it begins with a whole checksummed record (acknowledged: damage, not torn).
    @Test(arguments: [64, LogChunkReader.chunkBytes])
    func aLineLongerThanAnyRecordIsReadWithoutKeepingIt(chunkBytes: Int) throws {
        try withTemporaryDirectory { (directory: String) throws in
            let limit = LogReader.maximumLineLength
            let encoder = RecordEncoder()
            let first = encoder.encode(Record(position: 1, facts: [.timelineCreated(timeline: "t", name: "T")]))
            let second = Array(encoder.encode(Record(position: 2, facts: [.timelineCreated(timeline: "u", name: "U")])).dropLast())
            let long = [UInt8](repeating: 0x78, count: 3 * limit + 5)
            let cases: [(String, [UInt8])] = [("bad", first + long + [0x0A] + first), ("torn", first + long),
                                               ("acknowledged", first + second + long)]
            for (name, bytes) in cases {
                let path = directory + "/\(name).jsonl"
                #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
                let expected = Self.whole(bytes)
                #expect(try Self.chunked(path, chunkBytes: chunkBytes) == expected, "\(name)")
                // Read as a stream, in bounded memory.
                let descriptor = open(path, O_RDONLY)
                defer { close(descriptor) }
                var reader = LogChunkReader(stream: descriptor, path: path, file: nil, sizeHint: nil, chunkBytes: chunkBytes)
                var records: [Record] = []
                let streamed: Outcome
                do throws(EventLogError) {
                    while let contents = try reader.next() { records += contents.records }
                    streamed = .read(records: records, offsets: [], lines: [], torn: reader.tornTail)
                } catch {
                    guard case .invalidLine(_, let line, let reason) = error else { throw error }
                    streamed = .failed(line: line, reason: reason)
                }
                switch (streamed, expected) {
                case (.read(let got, _, _, let torn), .read(let want, _, _, let wantTorn)):
                    #expect(got == want && torn == wantTorn && torn != nil, "\(name)")
                default:
                    #expect(streamed == expected, "\(name)")
                }
                #expect(reader.bufferBytes <= max(chunkBytes, limit + 2), "\(name)")
            }
            if case .failed(2, let reason) = Self.whole(first + second + long) {
                #expect(reason == LogReader.damagedNewline(followedBy: long.count))
            } else {
                Issue.record("an acknowledged record followed by a long line is damage")
            }
        }
    }

    @Test func chunksGiveWhatOneReadGives() throws {
        try withTemporaryDirectory { directory in
            var batchesCut = 0
            for seed in UInt64(0)..<200 {
                let bytes = try LogReaderPiecesTests.randomLog(seed: seed)
                let path = directory + "/log-\(seed).jsonl"
                #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
                let expected = Self.whole(bytes)
                for chunkBytes in [1, 5, 64, 257, 1 << 20] {
                    #expect(try Self.chunked(path, chunkBytes: chunkBytes) == expected, "seed \(seed), chunks of \(chunkBytes)")
                }
                if case .read(let records, _, _, _) = expected, records.contains(where: { $0.batchRemainder > 0 }) {
                    batchesCut += 1
                }
            }
            #expect(batchesCut > 50, "logs with batches for chunks to cut")
        }
    }

    /// The same log read as a stream (`read(2)` to its end, a thread reading ahead), as
    /// `replay FILE` and `import FILE` read a file, a pipe or standard input.
    static func streamed(_ input: LogInput, chunkBytes: Int) throws -> Outcome {
        var records: [Record] = [], offsets: [Int] = [], lines: [Int] = []
        do {
            let ending = try input.forEachChunk(chunkBytes: chunkBytes) { contents in
                records += contents.records
                offsets += contents.offsets
                lines += contents.lineNumbers
            }
            return .read(records: records, offsets: offsets, lines: lines, torn: ending.tornTail)
        } catch let error as EventLogError {
            guard case .invalidLine(_, let line, let reason) = error else { throw error }
            return .failed(line: line, reason: reason)
        }
    }

    @Test func aStreamGivesWhatOneReadGives() throws {
        try withTemporaryDirectory { directory in
            for seed in UInt64(0)..<100 {
                let bytes = try LogReaderPiecesTests.randomLog(seed: seed)
                let path = directory + "/log-\(seed).jsonl"
                #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
                let expected = Self.whole(bytes)
                for chunkBytes in [1, 5, 64, 1 << 20] {
                    let input = try LogInput.open(path: path)
                    #expect(input.isRegularFile && input.size == bytes.count)
                    #expect(try Self.streamed(input, chunkBytes: chunkBytes) == expected, "seed \(seed), chunks of \(chunkBytes)")
                }
            }
        }
    }

    /// A pipe has no size: it is read until its writer closes it, whatever the chunks.
    @Test func aPipeIsReadToItsEnd() throws {
        let bytes = try LogReaderPiecesTests.randomLog(seed: 3)
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let writer = Thread {
            bytes.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    let n = write(writeEnd, raw.baseAddress! + done, min(7, raw.count - done))
                    if n <= 0 { break }
                    done += n
                }
            }
            close(writeEnd)
        }
        writer.start()
        defer { close(readEnd) }
        let path = "/dev/fd/\(readEnd)"
        let input = try LogInput.open(path: path)
        #expect(!input.isRegularFile && input.size == nil)
        #expect(try Self.streamed(input, chunkBytes: 16) == Self.whole(bytes))
    }

    @Test func aDirectoryIsRefusedByName() throws {
        _ = try withTemporaryDirectory { directory in
            #expect(throws: EventLogError.io(path: directory, operation: "read", code: EISDIR)) {
                _ = try LogInput.open(path: directory)
            }
        }
    }

    @Test func aLogReplaysChunkByChunkFromAnyPosition() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            let log = try FileEventLog(path: path)
            defer { log.close() }
            var records: [Record] = []
            var random = RandomRecords(seed: 9)
            for _ in 0..<40 {
                let facts = try (0..<Int.random(in: 1...3, using: &random.rng)).map { _ in try random.fact() }
                records += try log.append(facts, options: AppendOptions()).records
            }
            for position in [0, 1, 17, 39, 40] {
                var read: [Record] = []
                try log.forEachChunk(after: Int64(position)) { chunk in
                    read += chunk
                    return true
                }
                #expect(read == Array(records.dropFirst(position)))
            }
            var calls = 0
            try log.forEachChunk(after: 0) { _ in
                calls += 1
                return false
            }
            #expect(calls == 1, "returning false stops the reading")
        }
    }

    /// Blank lines before a torn tail stay when the tail is cut: the records appended
    /// after them are counted on the lines they are written to.
    @Test func aBadLineAfterBlankLinesAndACutTornTailIsNamedByItsLine() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            var log = try FileEventLog(path: path)
            _ = try log.append([.timelineCreated(timeline: "a", name: "A")], options: AppendOptions())
            _ = try log.append([.timelineCreated(timeline: "b", name: "B")], options: AppendOptions())
            log.close()
            try appendToFile(path, utf8("\n\n{\"type\":\"timelineCre"))
            log = try FileEventLog(path: path)
            defer { log.close() }
            #expect(log.tornTail != nil)
            _ = try log.append([.timelineCreated(timeline: "c", name: "C")], options: AppendOptions())
            _ = try log.append([.timelineCreated(timeline: "d", name: "D")], options: AppendOptions())
            // Record 3, on line 5, damaged behind the log's back.
            try damageLine(5, of: path)
            #expect(invalidLine { () throws(EventLogError) in try log.forEachChunk(after: 2) { _ in true } } == 5)
        }
    }

    @Test func aBadLineFoundWhileReplayingIsNamedByItsLineAfterBlankLines() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.jsonl"
            var log = try FileEventLog(path: path)
            _ = try log.append([.timelineCreated(timeline: "a", name: "A")], options: AppendOptions())
            _ = try log.append([.timelineCreated(timeline: "b", name: "B")], options: AppendOptions())
            log.close()
            try appendToFile(path, utf8("\n\n"))
            log = try FileEventLog(path: path)
            defer { log.close() }
            _ = try log.append([.timelineCreated(timeline: "c", name: "C")], options: AppendOptions())
            _ = try log.append([.timelineCreated(timeline: "d", name: "D")], options: AppendOptions())
            // Record 3, on line 5, damaged behind the log's back.
            try damageLine(5, of: path)
            let readWhole = invalidLine { () throws(EventLogError) in _ = try FileEventLog.read(path: path) }
            #expect(readWhole == 5)
            #expect(invalidLine { () throws(EventLogError) in try log.forEachChunk(after: 2) { _ in true } } == readWhole)
        }
    }

    @Test func newlinesAreCountedUpToALimit() {
        let bytes = Array("a\n\nbc\nd\n".utf8)
        #expect(LogChunkReader.newlines(in: bytes, before: bytes.count) == 4)
        #expect(LogChunkReader.newlines(in: bytes, before: 2) == 1)
        #expect(LogChunkReader.newlines(in: bytes, before: 0) == 0)
    }
}
