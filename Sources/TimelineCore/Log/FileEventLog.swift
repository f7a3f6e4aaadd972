import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The durable event log: a JSON Lines file with one record per line.
///
/// - An append writes its whole batch with one write, then fsyncs before it returns; a
///   batch's records carry `more` (how many follow), so a batch cut short by a crash is
///   recognised and dropped whole on the next open: all or nothing.
/// - One writer at a time: the file is locked (`flock`) while open, and a second writer,
///   in this or another process, gets ``EventLogError/inUse(path:)``.
/// - On open, a torn last line (a crash mid-write) is cut off and reported in
///   ``tornTail``; a bad line anywhere else refuses to open, naming the line, until
///   ``repair(path:)`` moves bad lines to a side file.
/// - Records carry a CRC-32C, so a flipped bit is found on the next read.
public final class FileEventLog: EventLog {
    private struct State {
        var file: SystemFile?
        var size: Int
        var offsets: [Int]
        var commands: [String: Range<Int>]
        var buffer: [UInt8] = []
    }

    /// The log's path.
    public let path: String
    /// The torn tail that opening cut off, if the last write had been interrupted.
    public let tornTail: LogReader.TornTail?
    private let state: Mutex<State>
    private let encoder = RecordEncoder()

    /// Opens (or creates) the log at `path` for writing, taking the writer's lock.
    ///
    /// - Throws: ``EventLogError/inUse(path:)`` when another writer has it,
    ///   ``EventLogError/invalidLine(path:line:reason:)`` for a bad line before the end.
    public init(path: String) throws(EventLogError) {
        self.path = path
        let existed = SystemFile.exists(path)
        let file = try SystemFile(path: path, flags: O_RDWR | O_CREAT)
        try file.lockExclusively()
        if !existed { SystemFile.syncDirectory(of: path) }
        let bytes = try file.readAll()
        let contents: LogReader.Contents
        do { contents = try LogReader().read(bytes) } catch {
            throw .invalidLine(path: path, line: error.line, reason: error.reason)
        }
        var size = bytes.count
        if let torn = contents.tornTail {
            try file.truncate(to: torn.offset)
            try file.sync()
            size = torn.offset
        } else if size > 0, bytes[size - 1] != 0x0A {
            // A complete last record (or a blank line) without its newline: finish the
            // line, so that the next record starts one of its own.
            try file.write([0x0A], at: size)
            try file.sync()
            size += 1
        }
        tornTail = contents.tornTail
        var commands: [String: Range<Int>] = [:]
        for (index, record) in contents.records.enumerated() {
            guard let id = record.commandID else { continue }
            let start = commands[id]?.lowerBound ?? index
            commands[id] = start..<(index + 1)
        }
        state = Mutex(State(file: file, size: size, offsets: contents.offsets, commands: commands))
    }

    /// Reads the log at `path` without taking the writer's lock (replay, verify, a reader
    /// while a writer is at work). A torn tail is reported, not cut.
    public static func read(path: String) throws(EventLogError) -> LogReader.Contents {
        let file = try SystemFile(path: path, flags: O_RDONLY)
        let bytes = try file.readAll()
        do { return try LogReader().read(bytes) } catch {
            throw .invalidLine(path: path, line: error.line, reason: error.reason)
        }
    }

    /// The position of the last record.
    public var position: Int64 { state.withLock { Int64($0.offsets.count) } }

    /// Appends a batch durably: one write, then fsync; see ``EventLog/append(_:options:)``.
    ///
    /// A batch with a record whose line would be longer than the reader accepts is
    /// refused with ``EventLogError/recordTooLong(length:limit:)``, and nothing is written.
    public func append(_ facts: [Fact], options: AppendOptions) throws(EventLogError) -> AppendResult {
        let outcome: Result<AppendResult, EventLogError> = state.withLock { state in
            guard let file = state.file else { return .failure(.closed(path: path)) }
            if let id = options.commandID, let range = state.commands[id] {
                return Result { () throws(EventLogError) in
                    AppendResult(records: try Self.records(in: range, file: file, state: state), wasDuplicate: true)
                }
            }
            guard !facts.isEmpty else { return .failure(.emptyBatch) }
            let position = Int64(state.offsets.count)
            if let expected = options.expectedPosition, expected != position {
                return .failure(.conflict(expected: expected, actual: position))
            }
            var records: [Record] = []
            records.reserveCapacity(facts.count)
            state.buffer.removeAll(keepingCapacity: true)
            var lineStarts: [Int] = []
            for (offset, fact) in facts.enumerated() {
                let record = Record(position: position + Int64(offset) + 1, fact: fact, recordedAt: options.recordedAt,
                                    commandID: options.commandID, batchRemainder: facts.count - offset - 1)
                lineStarts.append(state.size + state.buffer.count)
                let lineStart = state.buffer.count
                encoder.encode(record, into: &state.buffer)
                // A line the reader would refuse must never be acknowledged.
                let length = state.buffer.count - lineStart - 1
                if length > LogReader.maximumLineLength {
                    return .failure(.recordTooLong(length: length, limit: LogReader.maximumLineLength))
                }
                records.append(record)
            }
            let written = Result { () throws(EventLogError) in
                try file.write(state.buffer, at: state.size)
                try file.sync()
            }
            if case .failure(let error) = written {
                // Leave no partial batch behind; if even that fails, the next open cuts it.
                try? file.truncate(to: state.size)
                return .failure(error)
            }
            state.size += state.buffer.count
            if let id = options.commandID {
                state.commands[id] = state.offsets.count..<(state.offsets.count + records.count)
            }
            state.offsets += lineStarts
            return .success(AppendResult(records: records, wasDuplicate: false))
        }
        return try outcome.get()
    }

    /// The records after `position`, read back from the file.
    /// - Complexity: O(*k*) for the *k* records returned.
    public func records(after position: Int64) throws(EventLogError) -> [Record] {
        let outcome: Result<[Record], EventLogError> = state.withLock { state in
            guard let file = state.file else { return .failure(.closed(path: path)) }
            let start = Int(max(0, min(position, Int64(state.offsets.count))))
            return Result { () throws(EventLogError) in
                try Self.records(in: start..<state.offsets.count, file: file, state: state)
            }
        }
        return try outcome.get()
    }

    /// The records a command with this id appended, if any.
    public func records(forCommandID id: String) throws(EventLogError) -> [Record]? {
        let outcome: Result<[Record]?, EventLogError> = state.withLock { state in
            guard let file = state.file else { return .failure(.closed(path: path)) }
            guard let range = state.commands[id] else { return .success(nil) }
            return Result { () throws(EventLogError) in try Self.records(in: range, file: file, state: state) }
        }
        return try outcome.get()
    }

    private static func records(in range: Range<Int>, file: SystemFile, state: State) throws(EventLogError) -> [Record] {
        guard !range.isEmpty else { return [] }
        let start = state.offsets[range.lowerBound]
        let end = range.upperBound < state.offsets.count ? state.offsets[range.upperBound] : state.size
        let bytes = try file.read(at: start, count: end - start)
        var records: [Record] = []
        records.reserveCapacity(range.count)
        let decoder = RecordDecoder()
        var lineStart = 0
        for index in range {
            let lineEnd = (index + 1 < range.upperBound ? state.offsets[index + 1] : end) - start
            do {
                records.append(try decoder.decode(line: bytes[lineStart..<lineEnd], lineNumber: index + 1,
                                                  expectedPosition: Int64(index + 1)))
            } catch {
                throw .invalidLine(path: file.path, line: error.line, reason: error.reason.description)
            }
            lineStart = lineEnd
        }
        return records
    }

    /// Releases the file and its lock; later calls fail with ``EventLogError/closed(path:)``.
    public func close() {
        state.withLock { $0.file = nil }
    }
}
