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
        /// How many records come before `offsets[0]`: those of a prefix that was not read
        /// when the log was opened from a resume point (0 once the prefix is read).
        var base: Int
        /// Where the line of each record after `base` starts.
        var offsets: RecordOffsets
        /// Where each run of records whose line number is their position plus `extra`
        /// starts (blank lines shift line numbers); for line counts in resume points.
        var lineShifts: [(position: Int, extra: Int)]
        /// The command ids of the records read or appended since the log was opened.
        var commands: [CommandKey: Range<Int>]
        /// The command ids of the prefix that was not read, by hash.
        var prefixCommands: FileEventLog.CommandTable
        /// Where the prefix that was not read ends, in bytes.
        var prefixEnd: Int
        /// The resume point the log was opened at, while its prefix is not read.
        var openedAt: ResumePoint?
        var buffer: [UInt8] = []

        var count: Int { base + offsets.count }

        /// The line number of the record at `position` (from 1).
        func lineNumber(ofRecord position: Int) -> Int {
            let low = lineShifts.partitioningIndex { $0.position > position }
            return position + (low > 0 ? lineShifts[low - 1].extra : 0)
        }
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
    public convenience init(path: String) throws(EventLogError) {
        let file = try Self.lockedFile(path)
        var loading = try Loading(file, path: path, after: LogReader.Start(), prefixCommands: CommandTable())
        let (state, tornTail) = try loading.finish()
        self.init(path: path, state: state, tornTail: tornTail)
    }

    private init(path: String, state: sending State, tornTail: LogReader.TornTail?) {
        self.path = path
        self.tornTail = tornTail
        self.state = Mutex(state)
    }

    /// Opens (or creates) the log at `path` for writing, taking the writer's lock, and
    /// reads only the records after the resume point that `resumePoint` returns (called
    /// with the lock held, so that what it reads beside the log, a checkpoint, cannot be
    /// replaced by another writer meanwhile), or the whole log when it returns `nil`.
    ///
    /// The point is used only if it verifies: the file is at least ``ResumePoint/offset``
    /// bytes long, and the line that ends there has the saved length and checksum and is
    /// the record at ``ResumePoint/position``, the last of its batch. Otherwise the whole
    /// log is read, and ``Opening/resumeProblem`` says why. The records before the point
    /// are **not** read or checked again (``read(path:)``, `timeline verify` and a full
    /// replay do); they are read on the first call that needs them (``records(after:)``
    /// of an earlier position). A torn tail after the point is cut off and reported in
    /// ``tornTail``, as by ``init(path:)``.
    ///
    /// - Complexity: O(*t*) for the *t* bytes after the point, plus O(log *c*) per command
    ///   id looked up later among the *c* ids of the table.
    /// - Throws: as ``init(path:)``.
    ///
    /// The records read are handed to `consume` a chunk at a time, in order, with whether
    /// they are the tail after the resume point (`true`) or the whole log (`false`), so
    /// that whatever replays them need not hold them all.
    public static func open(
        path: String, resumingAt resumePoint: () -> ResumePoint?, consume: (_ resumed: Bool, [Record]) -> Void
    ) throws(EventLogError) -> Opening {
        let file = try lockedFile(path)
        var problem: String?
        if let point = resumePoint() {
            problem = try verify(point, file: file)
            if problem == nil {
                let start = LogReader.Start(position: point.position, line: point.lineCount, offset: point.offset)
                var loading = try Loading(file, path: path, after: start, prefixCommands: point.commands)
                while let records = try loading.next() { consume(true, records) }
                var (state, tornTail) = try loading.finish()
                state.openedAt = point
                return Opening(log: FileEventLog(path: path, state: state, tornTail: tornTail), start: point.position,
                               resumed: true,
                               resumeProblem: nil)
            }
        }
        var loading = try Loading(file, path: path, after: LogReader.Start(), prefixCommands: CommandTable())
        while let records = try loading.next() { consume(false, records) }
        let (state, tornTail) = try loading.finish()
        return Opening(log: FileEventLog(path: path, state: state, tornTail: tornTail), start: 0, resumed: false,
                       resumeProblem: problem)
    }

    private static func lockedFile(_ path: String) throws(EventLogError) -> SystemFile {
        let existed = SystemFile.exists(path)
        let file = try SystemFile(path: path, flags: O_RDWR | O_CREAT)
        try file.lockExclusively()
        if !existed { SystemFile.syncDirectory(of: path) }
        return file
    }

    /// Reads the log from a start to its end, a chunk at a time, noting each record's
    /// offset, line and command id; then cuts a torn tail and finishes a last line that
    /// lacks its newline.
    private struct Loading {
        private let file: SystemFile
        private let start: LogReader.Start
        private let prefixCommands: CommandTable
        private var reader: ChunkReader
        private var offsets = RecordOffsets()
        private var commands: [CommandKey: Range<Int>] = [:]
        private var lineShifts: [(position: Int, extra: Int)] = []

        init(_ file: SystemFile, path: String, after start: LogReader.Start,
             prefixCommands: CommandTable) throws(EventLogError) {
            self.file = file
            self.start = start
            self.prefixCommands = prefixCommands
            reader = try ChunkReader(file, path: path, from: start)
            if start.line != Int(start.position) { lineShifts.append((Int(start.position), start.line - Int(start.position))) }
        }

        /// The next chunk's records, or `nil` after the last.
        mutating func next() throws(EventLogError) -> [Record]? {
            guard let contents = try reader.next() else { return nil }
            FileEventLog.note(contents, first: Int(start.position) + offsets.count, offsets: &offsets,
                              lineShifts: &lineShifts, commands: &commands)
            return contents.records
        }

        /// Reads what is left, mends the file's end and returns the log's state.
        mutating func finish() throws(EventLogError) -> (state: State, tornTail: LogReader.TornTail?) {
            while try next() != nil {}
            var size = reader.size
            if let torn = reader.tornTail {
                try file.truncate(to: torn.offset)
                try file.sync()
                size = torn.offset
            } else if let last = reader.lastByte, last != 0x0A, size > start.offset {
                // A complete last record (or a blank line) without its newline: finish the
                // line, so that the next record starts one of its own.
                try file.write([0x0A], at: size)
                try file.sync()
                size += 1
            }
            // Blank lines after the last record (before a torn tail, too, which is cut but
            // leaves them): the records appended next start lower.
            let count = Int(start.position) + offsets.count
            let keptLines = reader.tornTail.map { $0.line - 1 } ?? reader.lineCount
            let extra = keptLines - count
            if extra != (lineShifts.last?.extra ?? 0) { lineShifts.append((count + 1, extra)) }
            let state = State(file: file, size: size, base: Int(start.position), offsets: offsets,
                              lineShifts: lineShifts, commands: commands, prefixCommands: prefixCommands,
                              prefixEnd: start.offset)
            return (state, reader.tornTail)
        }
    }

    /// Why `point` does not fit the log in `file`, or `nil` when it does.
    private static func verify(_ point: ResumePoint, file: SystemFile) throws(EventLogError) -> String? {
        if let inconsistency = point.inconsistency { return "resume point: \(inconsistency)" }
        let size = try file.size()
        guard size >= point.offset else {
            return "the resume point at position \(point.position) is ahead of the log: the log is \(size) bytes long, "
                + "the point is at byte \(point.offset)"
        }
        guard point.position > 0 else { return nil }
        let line = try file.read(at: point.offset - point.lastLineLength, count: point.lastLineLength)
        guard line.count == point.lastLineLength, line.last == 0x0A,
              CRC32C.checksum(line) == point.lastLineChecksum else {
            return "the line ending at byte \(point.offset) of the log is not the record \(point.position) "
                + "the checkpoint saw: the log was changed or replaced"
        }
        do {
            let record = try RecordDecoder().decode(line: line.dropLast(), lineNumber: point.lineCount,
                                                    expectedPosition: point.position)
            guard record.batchRemainder == 0 else {
                return "the record at position \(point.position) is not the last of its batch"
            }
        } catch {
            return "the record at position \(point.position) does not read back: \(error.reason)"
        }
        return nil
    }

    /// Where the log stands at `position` (at most ``position``), to save in a checkpoint
    /// and reopen with ``open(path:resumingAt:consume:)``; `nil` when `position` is inside an
    /// atomic batch or beyond the end.
    ///
    /// - Complexity: O(*c* log *c*) for the *c* command ids up to `position`, plus reading
    ///   one line (and the first time, for a position before the point the log was opened
    ///   at, the records before that point).
    public func resumePoint(at position: Int64) throws(EventLogError) -> ResumePoint? {
        let outcome: Result<ResumePoint?, EventLogError> = state.withLock { state in
            guard let file = state.file else { return .failure(.closed(path: path)) }
            return Result { () throws(EventLogError) in
                guard position >= 0, position <= Int64(state.count) else { return nil }
                if position == 0 {
                    return ResumePoint(position: 0, offset: 0, lineCount: 0, lastLineLength: 0, lastLineChecksum: 0,
                                       commands: CommandTable())
                }
                // The point the log was opened at is known: its prefix need not be read for it.
                if let point = state.openedAt, point.position == position, state.base == Int(position) { return point }
                let index = Int(position) - 1
                if index < state.base { try Self.readPrefix(&state, file: file) }
                let start = state.offsets[index - state.base]
                let end = index + 1 < state.count ? state.offsets[index + 1 - state.base] : state.size
                let bytes = try file.read(at: start, count: end - start)
                guard let newline = bytes.firstIndex(of: 0x0A) else { return nil }
                let line = bytes[...newline]
                let record: Record
                do throws(RecordError) {
                    record = try RecordDecoder().decode(line: line.dropLast(), lineNumber: index + 1,
                                                        expectedPosition: position)
                } catch {
                    throw .invalidLine(path: path, line: state.lineNumber(ofRecord: index + 1),
                                       reason: error.reason.description)
                }
                guard record.batchRemainder == 0 else { return nil }
                var entries = state.prefixCommands.entries
                for (id, range) in state.commands where range.upperBound <= index + 1 {
                    entries.append(CommandTable.Entry(
                        hash: CommandTable.hash(id.text), firstPosition: Int64(range.lowerBound + 1),
                        count: Int32(clamping: range.count), offset: state.offsets[range.lowerBound - state.base]))
                }
                return ResumePoint(position: position, offset: start + line.count,
                                   lineCount: state.lineNumber(ofRecord: index + 1), lastLineLength: line.count,
                                   lastLineChecksum: CRC32C.checksum(line), commands: CommandTable(unsorted: entries))
            }
        }
        return try outcome.get()
    }

    /// Reads the records before the point the log was opened at (their offsets, line
    /// numbers and command ids), so that every position can be read.
    private static func readPrefix(_ state: inout State, file: SystemFile) throws(EventLogError) {
        guard state.base > 0 else { return }
        let bytes = try file.read(at: 0, count: state.prefixEnd)
        let contents: LogReader.Contents
        do { contents = try LogReader().read(bytes) } catch {
            throw .invalidLine(path: file.path, line: error.line, reason: error.reason)
        }
        guard contents.records.count == state.base, contents.tornTail == nil else {
            throw .invalidLine(path: file.path, line: contents.lineNumbers.last ?? 0, reason:
                "the log changed behind the store's back: its first \(state.prefixEnd) bytes hold "
                    + "\(contents.records.count) whole records, not \(state.base)")
        }
        var offsets = RecordOffsets()
        var commands: [CommandKey: Range<Int>] = [:]
        var lineShifts: [(position: Int, extra: Int)] = []
        note(contents, first: 0, offsets: &offsets, lineShifts: &lineShifts, commands: &commands)
        for (id, range) in state.commands {
            commands[id] = (commands[id]?.lowerBound ?? range.lowerBound)..<range.upperBound
        }
        state.lineShifts = lineShifts + state.lineShifts.filter { $0.position > state.base }
        state.offsets = offsets + state.offsets
        state.commands = commands
        state.prefixCommands = CommandTable()
        state.base = 0
        state.openedAt = nil
        state.prefixEnd = 0
    }

    /// Notes where the records of `contents` are — the offset of each line, the runs of
    /// records whose line numbers are shifted by blank lines, the records of each command
    /// id — for records whose first has the 0-based index `first`.
    private static func note(_ contents: LogReader.Contents, first: Int, offsets: inout RecordOffsets,
                             lineShifts: inout [(position: Int, extra: Int)], commands: inout [CommandKey: Range<Int>]) {
        for (index, record) in contents.records.enumerated() {
            let position = first + index
            let extra = contents.lineNumbers[index] - (position + 1)
            if extra != (lineShifts.last?.extra ?? 0) { lineShifts.append((position + 1, extra)) }
            guard let id = record.commandID else { continue }
            commands[CommandKey(id)] = (commands[CommandKey(id)]?.lowerBound ?? position)..<(position + 1)
        }
        offsets.append(contentsOf: contents.offsets)
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
    public var position: Int64 { state.withLock { Int64($0.count) } }

    /// Appends a batch durably: one write, then fsync; see ``EventLog/append(_:options:)``.
    ///
    /// A batch with a record whose line would be longer than the reader accepts is
    /// refused with ``EventLogError/recordTooLong(length:limit:)``, and nothing is written.
    public func append(_ facts: [Fact], options: AppendOptions) throws(EventLogError) -> AppendResult {
        let outcome: Result<AppendResult, EventLogError> = state.withLock { state in
            guard let file = state.file else { return .failure(.closed(path: path)) }
            if let id = options.commandID {
                let earlier = Result { () throws(EventLogError) in try Self.records(forCommandID: id, file: file, state: &state) }
                switch earlier {
                case .success(let records?): return .success(AppendResult(records: records, wasDuplicate: true))
                case .success(nil): break
                case .failure(let error): return .failure(error)
                }
            }
            guard !facts.isEmpty else { return .failure(.emptyBatch) }
            let position = Int64(state.count)
            if let expected = options.expectedPosition, expected != position {
                return .failure(.conflict(expected: expected, actual: position))
            }
            let records = Record.batch(of: facts, after: position, options: options)
            state.buffer.removeAll(keepingCapacity: true)
            var lineStarts: [Int] = []
            for record in records {
                lineStarts.append(state.size + state.buffer.count)
                let lineStart = state.buffer.count
                encoder.encode(record, into: &state.buffer)
                // A line the reader would refuse must never be acknowledged.
                let length = state.buffer.count - lineStart - 1
                if length > LogReader.maximumLineLength {
                    return .failure(.recordTooLong(length: length, limit: LogReader.maximumLineLength))
                }
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
                state.commands[CommandKey(id)] = state.count..<(state.count + records.count)
            }
            state.offsets.append(contentsOf: lineStarts)
            return .success(AppendResult(records: records, wasDuplicate: false))
        }
        return try outcome.get()
    }

    /// The records after `position`, read back from the file.
    ///
    /// For a log opened from a resume point, the first call for a position before that
    /// point also reads the records before it, once.
    /// - Complexity: O(*k*) for the *k* records returned.
    public func records(after position: Int64) throws(EventLogError) -> [Record] {
        let outcome: Result<[Record], EventLogError> = state.withLock { state in
            guard let file = state.file else { return .failure(.closed(path: path)) }
            let start = Int(max(0, min(position, Int64(state.count))))
            return Result { () throws(EventLogError) in
                if start < state.base { try Self.readPrefix(&state, file: file) }
                return try Self.records(in: start..<state.count, file: file, state: state)
            }
        }
        return try outcome.get()
    }

    /// Hands the records after `position` to `body` a chunk at a time (a few MiB of the
    /// log each), in order, until `body` returns `false`: a replay never holds the whole
    /// log. The records are those of the log when the call starts.
    /// - Complexity: O(*n*) for the *n* bytes after `position`.
    public func forEachChunk(after position: Int64, _ body: ([Record]) -> Bool) throws(EventLogError) {
        let outcome: Result<(SystemFile, LogReader.Start, Int), EventLogError> = state.withLock { state in
            guard let file = state.file else { return .failure(.closed(path: path)) }
            let start = Int(max(0, min(position, Int64(state.count))))
            return Result { () throws(EventLogError) in
                // From the start, the chunks themselves count every line: a log opened
                // from a resume point need not read and decode its prefix a first time.
                if start == 0 { return (file, LogReader.Start(), state.size) }
                if start < state.base { try Self.readPrefix(&state, file: file) }
                let offset = start < state.count ? state.offsets[start - state.base] : state.size
                // The lines before the next record's, blank ones included.
                let line = start < state.count ? state.lineNumber(ofRecord: start + 1) - 1 : 0
                return (file, LogReader.Start(position: Int64(start), line: line, offset: offset), state.size)
            }
        }
        let (file, start, end) = try outcome.get()
        var reader = try ChunkReader(file, path: path, from: start, to: end)
        while let contents = try reader.next() {
            guard body(contents.records) else { return }
        }
    }

    /// The records a command with this id appended, if any.
    /// - Complexity: O(*k*) for a command of *k* records (plus O(log *c*) among the *c*
    ///   command ids of a resume point the log was opened from).
    public func records(forCommandID id: String) throws(EventLogError) -> [Record]? {
        let outcome: Result<[Record]?, EventLogError> = state.withLock { state in
            guard let file = state.file else { return .failure(.closed(path: path)) }
            return Result { () throws(EventLogError) in try Self.records(forCommandID: id, file: file, state: &state) }
        }
        return try outcome.get()
    }

    private static func records(forCommandID id: String, file: SystemFile,
                                state: inout State) throws(EventLogError) -> [Record]? {
        if let range = state.commands[CommandKey(id)] {
            if range.lowerBound < state.base { try readPrefix(&state, file: file) }
            return try records(in: range, file: file, state: state)
        }
        for entry in state.prefixCommands.candidates(for: id) {
            let records = try records(startingAt: entry.offset, firstPosition: entry.firstPosition,
                                      count: Int(entry.count), end: state.prefixEnd, file: file)
            if let first = records.first?.commandID, IdentifierText.sameBytes(first, id) { return records }
        }
        return nil
    }

    /// Reads `count` records whose lines start at byte `offset` (blank lines skipped),
    /// before byte `end`: a command's records in a prefix whose offsets were not read.
    private static func records(startingAt offset: Int, firstPosition: Int64, count: Int, end: Int,
                                file: SystemFile) throws(EventLogError) -> [Record] {
        var records: [Record] = []
        var bytes: [UInt8] = []
        var cursor = offset, lineStart = 0
        let decoder = RecordDecoder()
        while records.count < count {
            guard let newline = bytes[lineStart...].firstIndex(of: 0x0A) else {
                guard cursor < end else {
                    throw .invalidLine(path: file.path, line: Int(firstPosition) + records.count, reason:
                        "the log changed behind the store's back: the record at position "
                            + "\(firstPosition + Int64(records.count)) is missing")
                }
                let chunk = try file.read(at: cursor, count: min(end - cursor, max(4096, 256 * (count - records.count))))
                if chunk.isEmpty { cursor = end } else { cursor += chunk.count }
                bytes.removeSubrange(..<lineStart)
                bytes += chunk
                lineStart = 0
                continue
            }
            let line = bytes[lineStart..<newline]
            lineStart = newline + 1
            guard !LogReader.isBlank(line) else { continue }
            let position = firstPosition + Int64(records.count)
            do {
                records.append(try decoder.decode(line: line, lineNumber: Int(position), expectedPosition: position))
            } catch {
                throw .invalidLine(path: file.path, line: error.line, reason: error.reason.description)
            }
        }
        return records
    }

    private static func records(in range: Range<Int>, file: SystemFile, state: State) throws(EventLogError) -> [Record] {
        guard !range.isEmpty else { return [] }
        let offsets = state.offsets, base = state.base
        let start = offsets[range.lowerBound - base]
        let end = range.upperBound < state.count ? offsets[range.upperBound - base] : state.size
        let bytes = try file.read(at: start, count: end - start)
        var records: [Record] = []
        records.reserveCapacity(range.count)
        let decoder = RecordDecoder()
        var lineStart = 0
        for index in range {
            let lineEnd = (index + 1 < range.upperBound ? offsets[index + 1 - base] : end) - start
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
