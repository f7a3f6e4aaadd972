import Dispatch
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
/// - Any number of processes may open the same log. A writer holds the file's exclusive
///   lock (`flock`) only while it appends: it reads what others appended since it last
///   looked, decides, appends, syncs and lets go. A reader takes the shared lock to learn
///   how far the log is committed. A log replaced by a repair is noticed at the next
///   call, which reads the new file (``EventLogError/replaced(path:)``).
/// - A torn tail (a crash mid-write, with the lines of a batch it leaves unfinished) is
///   cut off only under the exclusive lock, after its bytes are appended to the side file
///   `PATH.rejected`: nothing is discarded. A reader treats it as not yet written. A bad
///   line anywhere else refuses to open, naming the line, until ``repair(path:)`` moves
///   bad lines to the side file.
/// - Records carry a CRC-32C, so a flipped bit is found on the next read.
package final class FileEventLog: EventLog, RawLineReading, BatchAppending {
    private struct State {
        var file: SystemFile?
        /// The open file's device and inode: when the path names another file, the log was replaced.
        var identity: FileIdentity
        /// The bytes read so far: the committed records' lines (and blank lines).
        var size: Int
        /// The checksum of the last ``PrefixMark/window`` bytes (at most) before ``size``, as
        /// read: while the file still has them, it still begins with what was read.
        var mark = PrefixMark()
        /// Whether the last record read ends the file without its newline (a writer adds
        /// it before appending).
        var missingNewline = false
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

        /// How many lines (records and blank lines) come before ``size``.
        var lineCount: Int { count + (lineShifts.last?.extra ?? 0) }

        /// The line number of the record at `position` (from 1).
        func lineNumber(ofRecord position: Int) -> Int {
            let low = lineShifts.partitioningIndex { $0.position > position }
            return position + (low > 0 ? lineShifts[low - 1].extra : 0)
        }
    }

    /// The log's path.
    package let path: String
    /// The torn tail that opening cut off, if the last write had been interrupted.
    package let tornTail: LogReader.TornTail?
    private let state: Mutex<State>
    private let encoder = RecordEncoder()

    /// Opens (or creates) the log at `path` and reads it, holding the exclusive lock
    /// while it reads (so that a torn tail can be cut); other processes may open it too.
    ///
    /// - Throws: ``EventLogError/invalidLine(path:line:reason:)`` for a bad line before the end.
    package convenience init(path: String) throws(EventLogError) {
        let file = try Self.lockedFile(path)
        defer { file.unlock() }
        var loading = try Loading(file, path: path, after: LogReader.Start(), prefixCommands: CommandTable())
        let (state, tornTail) = try loading.finish(mending: loading.canMend)
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
    package static func open(
        path: String, resumingAt resumePoint: () -> LogResumePoint?, consume: (_ resumed: Bool, [Record]) -> Void
    ) throws(EventLogError) -> Opening {
        try open(path: path, resumingAt: resumePoint, consume: consume, progress: { _, _ in })
    }

    /// ``open(path:resumingAt:consume:)``, calling `progress` after each chunk with the
    /// byte offset that reading has reached and the file's size when reading started.
    package static func open(
        path: String, resumingAt resumePoint: () -> LogResumePoint?, consume: (_ resumed: Bool, [Record]) -> Void,
        progress: (_ offset: Int, _ size: Int) -> Void
    ) throws(EventLogError) -> Opening {
        let file = try lockedFile(path)
        defer { file.unlock() }
        var problem: String?
        if let saved = resumePoint() {
            let point: ResumePoint?
            (point, problem) = try usable(saved, file: file)
            if let point {
                let start = LogReader.Start(position: point.position, line: point.lineCount, offset: point.offset)
                var loading = try Loading(file, path: path, after: start, prefixCommands: point.commands)
                while let records = try loading.next() {
                    consume(true, records)
                    progress(loading.offset, loading.size)
                }
                var (state, tornTail) = try loading.finish(mending: loading.canMend)
                state.openedAt = point
                return Opening(log: FileEventLog(path: path, state: state, tornTail: tornTail), start: point.position,
                               resumed: true,
                               resumeProblem: nil)
            }
        }
        var loading = try Loading(file, path: path, after: LogReader.Start(), prefixCommands: CommandTable())
        while let records = try loading.next() {
            consume(false, records)
            progress(loading.offset, loading.size)
        }
        let (state, tornTail) = try loading.finish(mending: loading.canMend)
        return Opening(log: FileEventLog(path: path, state: state, tornTail: tornTail), start: 0, resumed: false,
                       resumeProblem: problem)
    }

    /// Opens (or creates) the log's file and takes its exclusive lock, on the file that the
    /// path names once the lock is held: a process that waited while a repair renamed a
    /// new file over the path must not go on with the old one. A log this process may only
    /// read is opened for reading: it is read and followed, never mended, and an append
    /// to it fails naming why.
    static func lockedFile(_ path: String, creating: Bool = true) throws(EventLogError) -> SystemFile {
        while true {
            let existed = SystemFile.exists(path)
            let file = try SystemFile(readingIfNotWritable: path, flags: creating ? O_CREAT : 0)
            try file.lock(exclusive: true)
            if !existed { SystemFile.syncDirectory(of: path) }
            if try SystemFile.identity(of: path) == file.identity() { return file }
            file.unlock()
        }
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

        /// The byte offset that reading has reached, and the file's size when it started.
        var offset: Int { reader.offset }
        var size: Int { reader.size }

        /// Whether a torn tail can be cut and a missing newline added: the file was opened
        /// for writing (its exclusive lock is held by whoever calls ``finish(mending:)``).
        var canMend: Bool { file.notWritable == nil }

        /// Reads what is left and returns the log's state. With `mending` (the exclusive
        /// lock held), a torn tail is moved to the side file and cut off, and a last record
        /// without its newline gets one; without, both are left as they are, and the torn
        /// tail counts as not yet written.
        mutating func finish(mending: Bool) throws(EventLogError) -> (state: State, tornTail: LogReader.TornTail?) {
            while try next() != nil {}
            var size = reader.size
            var missingNewline = false
            if let torn = reader.tornTail {
                if mending {
                    let bytes = try file.read(at: torn.offset, count: reader.size - torn.offset)
                    try FileEventLog.moveAside([bytes], besideLogAt: file.path, like: file)
                    try file.truncate(to: torn.offset)
                    try file.sync()
                }
                size = torn.offset
            } else if let last = reader.lastByte, last != 0x0A, size > start.offset {
                // A complete last record (or a blank line) without its newline: finish the
                // line, so that the next record starts one of its own.
                if mending {
                    try file.write([0x0A], at: size)
                    try file.sync()
                    size += 1
                } else {
                    missingNewline = true
                }
            }
            // Blank lines after the last record (before a torn tail, too, which is cut but
            // leaves them): the records appended next start lower.
            let count = Int(start.position) + offsets.count
            let keptLines = reader.tornTail.map { $0.line - 1 } ?? reader.lineCount
            let extra = keptLines - count
            if extra != (lineShifts.last?.extra ?? 0) { lineShifts.append((count + 1, extra)) }
            var state = State(file: file, identity: try file.identity(), size: size, missingNewline: missingNewline,
                              base: Int(start.position), offsets: offsets,
                              lineShifts: lineShifts, commands: commands, prefixCommands: prefixCommands,
                              prefixEnd: start.offset)
            state.mark = try PrefixMark(file, size: size)
            return (state, reader.tornTail)
        }
    }

    /// Reads what other processes committed since `state` was read (the file must be
    /// locked, shared or exclusive), adds it to `state` and returns its records. With
    /// `mending` (exclusive), a torn tail is cut off as on opening.
    ///
    /// - Complexity: O(1) (one `fstat`) when nothing was appended; O(*t*) for *t* new bytes.
    private static func catchUp(_ state: inout State, file: SystemFile, path: String,
                                mending: Bool) throws(EventLogError) -> [Record] {
        var size = try file.size()
        if state.missingNewline, size > state.size {
            // A writer finished the last line first; the records after it start on the next.
            if try file.read(at: state.size, count: 1) == [0x0A] {
                state.size += 1
                state.missingNewline = false
                state.mark = try PrefixMark(file, size: state.size)
            }
        }
        if size == state.size { return [] }
        guard size > state.size else {
            throw .invalidLine(path: path, line: state.lineCount, reason:
                "the log is \(size) bytes long, shorter than the \(state.size) bytes of records already read: "
                    + "something other than Timeline cut it; run `timeline verify`")
        }
        if state.missingNewline && mending {
            try file.write([0x0A], at: state.size)
            try file.sync()
            state.size += 1
            state.missingNewline = false
            state.mark = try PrefixMark(file, size: state.size)
            size += 1
        }
        let start = LogReader.Start(position: Int64(state.count), line: state.lineCount, offset: state.size)
        var loading = try Loading(file, path: path, after: start, prefixCommands: CommandTable())
        var records: [Record] = []
        while let chunk = try loading.next() { records += chunk }
        let (tail, _) = try loading.finish(mending: mending)
        state.offsets.append(contentsOf: tail.offsets)
        for (id, range) in tail.commands {
            state.commands[id] = (state.commands[id]?.lowerBound ?? range.lowerBound)..<range.upperBound
        }
        for shift in tail.lineShifts where shift.extra != (state.lineShifts.last?.extra ?? 0) {
            state.lineShifts.append(shift)
        }
        state.size = tail.size
        state.missingNewline = tail.missingNewline
        state.mark = tail.mark
        return records
    }

    /// Takes the file's lock, notices a replaced log (reading the new file, holding its
    /// lock, before it throws ``EventLogError/replaced(path:)``), and reads what other
    /// processes committed; then runs `body` with the lock still held.
    private func withCaughtUp<T>(
        _ state: inout State, exclusive: Bool,
        _ body: (inout State, SystemFile, [Record]) throws(EventLogError) -> T
    ) throws(EventLogError) -> T {
        guard let file = state.file else { throw .closed(path: path) }
        try file.lock(exclusive: exclusive)
        defer { file.unlock() }
        if SystemFile.identity(of: path) != state.identity {
            let replacement = try Self.lockedFile(path, creating: false)
            defer { replacement.unlock() }
            var loading = try Loading(replacement, path: path, after: LogReader.Start(), prefixCommands: CommandTable())
            state = try loading.finish(mending: loading.canMend).state
            throw .replaced(path: path)
        }
        // The same file may hold another log now (`cp backup.jsonl log.jsonl`, or a log
        // cut by hand and written again): reading on would apply another log's tail onto
        // what was read. Whatever the file holds now is read from its start instead.
        if try !state.mark.holds(in: file, size: state.size) {
            var loading = try Loading(file, path: path, after: LogReader.Start(), prefixCommands: CommandTable())
            state = try loading.finish(mending: exclusive && loading.canMend).state
            throw .replaced(path: path)
        }
        let newer = try Self.catchUp(&state, file: file, path: path, mending: exclusive && file.notWritable == nil)
        return try body(&state, file, newer)
    }

    /// The file log's point that `saved` describes when it fits the log in `file`, or why not.
    private static func usable(
        _ saved: LogResumePoint, file: SystemFile
    ) throws(EventLogError) -> (point: ResumePoint?, problem: String?) {
        let point: ResumePoint
        let identity: FileIdentity
        switch decode(saved) {
        case .failure(let failure): return (nil, failure.reason)
        case .success(let decoded): (point, identity) = decoded
        }
        guard identity == (try file.identity()) else { return (nil, "it was made for another log file") }
        if let problem = try verify(point, file: file) { return (nil, problem) }
        return (point, nil)
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
    package func resumePoint(at position: Int64) throws(EventLogError) -> LogResumePoint? {
        let identity = state.withLock { $0.identity }
        return try fileResumePoint(at: position).map { Self.encode($0, identity: identity) }
    }

    /// Why reading on from `point` would not continue this log: it was made for another
    /// file, or the line that ends at its offset is not the record it saw; `nil` when it fits.
    package func resumeProblem(at point: LogResumePoint) throws(EventLogError) -> String? {
        let outcome: Result<String?, EventLogError> = state.withLock { state in
            guard let file = state.file else { return .failure(.closed(path: path)) }
            return Result { () throws(EventLogError) in try Self.usable(point, file: file).problem }
        }
        return try outcome.get()
    }

    /// The file log's own resume point at `position` (see ``resumePoint(at:)``).
    func fileResumePoint(at position: Int64) throws(EventLogError) -> ResumePoint? {
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
    package static func read(path: String) throws(EventLogError) -> LogReader.Contents {
        let file = try SystemFile(path: path, flags: O_RDONLY)
        let bytes = try file.readAll()
        do { return try LogReader().read(bytes) } catch {
            throw .invalidLine(path: path, line: error.line, reason: error.reason)
        }
    }

    /// The position of the last record.
    package var position: Int64 { state.withLock { Int64($0.count) } }

    /// Appends a batch durably, decided under the log's lock: one write, then fsync; see
    /// ``EventLog/append(after:options:catchingUp:deciding:)``.
    ///
    /// A batch with a record whose line would be longer than the reader accepts is
    /// refused with ``EventLogError/recordTooLong(length:limit:)``, and nothing is written.
    package func append<Failure: Error>(
        after known: Int64, options: AppendOptions,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: () throws(Failure) -> [Fact]
    ) throws(AppendFailure<Failure>) -> AppendResult {
        let outcome: Result<AppendResult, AppendFailure<Failure>> = state.withLock { state in
            do throws(EventLogError) {
                return try withCaughtUp(&state, exclusive: true) { (state, file, newer) throws(EventLogError) in
                    try file.requireWritable()
                    let count = state.count
                    if known < Int64(count) {
                        let start = Int(max(0, known))
                        var records = newer
                        if start != count - newer.count {
                            if start < state.base { try Self.readPrefix(&state, file: file) }
                            records = try Self.records(in: start..<count, file: file, state: state)
                        }
                        do throws(Failure) { try catchingUp(records) } catch { return .failure(.refused(error)) }
                    }
                    if let id = options.commandID, let earlier = try Self.records(forCommandID: id, file: file, state: &state) {
                        return .success(AppendResult(records: earlier, wasDuplicate: true))
                    }
                    if let expected = options.expectedPosition, expected != Int64(count) {
                        return .failure(.log(.conflict(expected: expected, actual: Int64(count))))
                    }
                    let facts: [Fact]
                    do throws(Failure) { facts = try deciding() } catch { return .failure(.refused(error)) }
                    guard !facts.isEmpty else { return .success(AppendResult(records: [], wasDuplicate: false)) }
                    return .success(try write(facts, options: options, file: file, state: &state))
                }
            } catch {
                return .failure(.log(error))
            }
        }
        return try outcome.get()
    }

    /// Appends several batches in one hold of the lock, with one write and one sync; see
    /// ``BatchAppending/appendEach(after:count:catchingUp:deciding:)``. Meant for batches
    /// of a command's size (a replica's submissions), encoded in one buffer.
    package func appendEach<Failure: Error>(
        after known: Int64, count: Int,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: (Int) throws(Failure) -> PlannedBatch?
    ) throws(AppendFailure<Failure>) -> [Record] {
        let outcome: Result<[Record], AppendFailure<Failure>> = state.withLock { state in
            do throws(EventLogError) {
                return try withCaughtUp(&state, exclusive: true) { (state, file, newer) throws(EventLogError) in
                    try file.requireWritable()
                    if known < Int64(state.count) {
                        let start = Int(max(0, known))
                        var records = newer
                        if start != state.count - newer.count {
                            if start < state.base { try Self.readPrefix(&state, file: file) }
                            records = try Self.records(in: start..<state.count, file: file, state: state)
                        }
                        do throws(Failure) { try catchingUp(records) } catch { return .failure(.refused(error)) }
                    }
                    let planned: [[Record]]
                    do throws(AppendFailure<Failure>) {
                        planned = try planBatches(
                            after: Int64(state.count), count: count,
                            isTaken: { (id) throws(EventLogError) in
                                try Self.records(forCommandID: id, file: file, state: &state) != nil
                            },
                            check: { (batch) throws(EventLogError) in try encoder.refuseLinesTooLong(in: batch) },
                            catchingUp: catchingUp, deciding: deciding)
                    } catch {
                        return .failure(error)
                    }
                    guard !planned.isEmpty else { return .success([]) }
                    var bytes: [UInt8] = []
                    var lineStarts: [Int] = []
                    for records in planned {
                        for record in records {
                            lineStarts.append(state.size + bytes.count)
                            encoder.encode(record, into: &bytes)
                        }
                    }
                    do throws(EventLogError) {
                        try file.write(bytes, at: state.size)
                        try file.sync()
                    } catch {
                        let undone = Result { () throws(EventLogError) in
                            try file.truncate(to: state.size)
                            try file.sync()
                        }
                        if case .failure = undone, case .io(_, let operation, let code) = error {
                            throw .appendMayHaveLanded(path: path, operation: operation, code: code)
                        }
                        throw error
                    }
                    var first = 0
                    for records in planned {
                        if let id = records[0].commandID {
                            state.commands[CommandKey(id)] = state.count..<(state.count + records.count)
                        }
                        state.offsets.append(contentsOf: Array(lineStarts[first..<(first + records.count)]))
                        first += records.count
                    }
                    state.size += bytes.count
                    state.mark = try PrefixMark(file, size: state.size)
                    return .success(planned.flatMap { $0 })
                }
            } catch {
                return .failure(.log(error))
            }
        }
        return try outcome.get()
    }

    /// Writes a batch after the log's last record, durably, and notes where its lines are.
    /// On a failure nothing of the batch stays; when even undoing it fails, the error says
    /// that the batch may be in the log.
    private func write(_ facts: [Fact], options: AppendOptions, file: SystemFile,
                       state: inout State) throws(EventLogError) -> AppendResult {
        let batch = RecordBatch(facts: facts, after: Int64(state.count), options: options)
        // A command's batch is encoded in one buffer, kept for the next; a big one in parts.
        let inOneBuffer = facts.count < Self.recordsPerEncodedPart
        // A line too long is refused before anything is written: once a group of a big
        // batch is written, only truncating takes it back.
        try encoder.refuseLinesTooLong(in: batch)
        var lineStarts: [Int] = []
        lineStarts.reserveCapacity(facts.count)
        var written = 0
        if inOneBuffer {
            state.buffer.removeAll(keepingCapacity: true)
            for offset in facts.indices {
                lineStarts.append(state.size + state.buffer.count)
                encoder.encode(batch, at: offset, into: &state.buffer)
            }
        }
        let writer = inOneBuffer ? nil : GroupWriter(file: file)
        do {
            if let writer {
                // A big batch (an import's) is encoded a group of parts at a time, on every
                // processor, and each group is written, on a thread of its own, while the
                // next is encoded, the disk told to start on it: the sync below then waits
                // for the last group, not for the whole batch. No buffer of the whole batch
                // is kept, only the group being written and the one being encoded.
                for groupStart in stride(from: 0, to: facts.count, by: Self.recordsPerWrittenGroup) {
                    let group = groupStart..<min(groupStart + Self.recordsPerWrittenGroup, facts.count)
                    let groupOffset = state.size + written
                    let parts = encodedParts(of: batch, group)
                    for part in parts {
                        lineStarts += part.starts.lazy.map { $0 + state.size + written }
                        written += part.bytes.count
                    }
                    try writer.write(parts.map(\.bytes), at: groupOffset)
                }
                try writer.finish()
            } else {
                try file.write(state.buffer, at: state.size)
                written = state.buffer.count
            }
        } catch {
            // No write of the batch may land after the truncation.
            writer?.waitForAll()
            // Part of the batch may be in the file: an unfinished batch, which the next
            // writer cuts off as a torn tail (to the side file) if it stays.
            try? file.truncate(to: state.size)
            throw error
        }
        do {
            try file.sync()
        } catch {
            // The whole batch was written but may not be durable. Take it back; if that
            // fails too, the batch may well be in the log, and a retry would append it
            // twice: the error must say so.
            let undone = Result { () throws(EventLogError) in
                try file.truncate(to: state.size)
                try file.sync()
            }
            if case .failure = undone {
                guard case .io(_, let operation, let code) = error else { throw error }
                throw .appendMayHaveLanded(path: path, operation: operation, code: code)
            }
            throw error
        }
        state.size += written
        state.mark = try PrefixMark(file, size: state.size)
        if let id = options.commandID {
            state.commands[CommandKey(id)] = state.count..<(state.count + facts.count)
        }
        state.offsets.append(contentsOf: lineStarts)
        // A command's records are returned as they are (most hold the caller's array of one
        // fact); a big batch's are made from the facts only if they are read.
        return inOneBuffer ? AppendResult(records: batch.records, wasDuplicate: false) : AppendResult(appended: batch)
    }

    /// How many records each part of a big batch's lines holds (an import's, not a
    /// command's); a smaller batch is encoded in one buffer, kept for the next.
    package static let recordsPerEncodedPart = 16_384

    /// How many records of a big batch are encoded, at the same time, before they are
    /// written: about 10 MB of lines, a part or more for each processor of a small machine.
    package static let recordsPerWrittenGroup = 4 * recordsPerEncodedPart

    /// Writes the groups of a big batch's lines in order, on one thread of its own, while
    /// the caller encodes the next group: the copy into the kernel's cache was a third of an
    /// import's writing, with the other processor idle. One thread makes every write, so
    /// the writes are made in order, one group at a time, as by the caller.
    private final class GroupWriter: Sendable {
        private struct State {
            var groups: [(parts: [[UInt8]], offset: Int)] = []
            /// The first write that failed; the groups after it are not written.
            var failure: EventLogError?
            var ended = false
        }
        private let file: SystemFile
        private let state = Mutex(State())
        /// Signalled for each group handed over, and once more when there are no more.
        private let handedOver = DispatchSemaphore(value: 0)
        /// Signalled when the writer can take a group: one group waits at most.
        private let room = DispatchSemaphore(value: 0)
        /// Signalled when the writer has ended.
        private let writerEnded = DispatchSemaphore(value: 0)

        init(file: SystemFile) {
            self.file = file
            // Made at 0 and raised: a semaphore must never end below the value it was made with.
            room.signal()
            // A queue of its own, not a global one: its thread is not one of the few that
            // the encoding's concurrentPerform shares, which this loop would take from it.
            DispatchQueue(label: "timeline.log.group-writer").async { [self] in
                while true {
                    handedOver.wait()
                    guard let group = state.withLock({ $0.groups.isEmpty ? nil : $0.groups.removeFirst() }) else { break }
                    if state.withLock({ $0.failure == nil }) {
                        do throws(EventLogError) { try writeNow(group.parts, at: group.offset) } catch {
                            state.withLock { $0.failure = error }
                        }
                    }
                    room.signal()
                }
                writerEnded.signal()
            }
        }

        private func writeNow(_ parts: [[UInt8]], at offset: Int) throws(EventLogError) {
            var end = offset
            for part in parts {
                try file.write(part, at: end)
                end += part.count
            }
            file.startWriting(at: offset, count: end - offset)
        }

        /// Hands over a group's parts, to be written from `offset` once the group before is
        /// written; throws the failure of a group before it.
        func write(_ parts: [[UInt8]], at offset: Int) throws(EventLogError) {
            room.wait()
            let failure = state.withLock { state in
                if state.failure == nil { state.groups.append((parts, offset)) }
                return state.failure
            }
            if let failure {
                room.signal()
                throw failure
            }
            handedOver.signal()
        }

        /// Waits until every group handed over is written, and throws the first failure.
        func finish() throws(EventLogError) {
            waitForAll()
            if let error = state.withLock({ $0.failure }) { throw error }
        }

        /// Tells the writer that no group follows and waits until it has ended (at once
        /// when it has).
        func waitForAll() {
            let ending = state.withLock { state in
                defer { state.ended = true }
                return !state.ended
            }
            guard ending else { return }
            handedOver.signal()
            writerEnded.wait()
        }
    }

    /// The lines of the records of `batch` at `offsets`, in parts encoded on every
    /// processor, each with where its lines start in it. The lines' lengths were checked
    /// (``RecordEncoder/refuseLinesTooLong(in:)``).
    private func encodedParts(of batch: RecordBatch, _ offsets: Range<Int>) -> [(bytes: [UInt8], starts: [Int])] {
        let encoder = encoder
        let count = (offsets.count + Self.recordsPerEncodedPart - 1) / Self.recordsPerEncodedPart
        return concurrentMap(count) { part in
            let range = (offsets.lowerBound + part * offsets.count / count)
                ..< (offsets.lowerBound + (part + 1) * offsets.count / count)
            var bytes: [UInt8] = []
            // Room for lines of a typical length, so that the part is rarely copied as it grows.
            bytes.reserveCapacity(range.count * 192)
            var starts: [Int] = []
            starts.reserveCapacity(range.count)
            for offset in range {
                starts.append(bytes.count)
                encoder.encode(batch, at: offset, into: &bytes)
            }
            return (bytes: bytes, starts: starts)
        }
    }

    /// The records after `position`, read back from the file.
    ///
    /// For a log opened from a resume point, the first call for a position before that
    /// point also reads the records before it, once.
    /// - Complexity: O(*k*) for the *k* records returned.
    package func records(after position: Int64) throws(EventLogError) -> [Record] {
        let outcome: Result<[Record], EventLogError> = state.withLock { state in
            Result { () throws(EventLogError) in
                try withCaughtUp(&state, exclusive: false) { (state, file, newer) throws(EventLogError) in
                    let start = Int(max(0, min(position, Int64(state.count))))
                    if start == state.count - newer.count { return newer }
                    if start < state.base { try Self.readPrefix(&state, file: file) }
                    return try Self.records(in: start..<state.count, file: file, state: state)
                }
            }
        }
        return try outcome.get()
    }

    /// The committed records after `position` and their bytes exactly as the file holds
    /// them (blank lines included), ending with a newline: what a replica's mirror copies.
    /// - Complexity: O(*k*) for the *k* bytes after `position`.
    package func committedLines(after position: Int64) throws(EventLogError) -> (records: [Record], bytes: [UInt8]) {
        let outcome: Result<(records: [Record], bytes: [UInt8]), EventLogError> = state.withLock { state in
            Result { () throws(EventLogError) in
                try withCaughtUp(&state, exclusive: false) { (state, file, _) throws(EventLogError) in
                    let start = Int(max(0, min(position, Int64(state.count))))
                    guard start < state.count else { return ([], []) }
                    if start < state.base { try Self.readPrefix(&state, file: file) }
                    let offset = state.offsets[start - state.base]
                    var bytes = try file.read(at: offset, count: state.size - offset)
                    if bytes.last != 0x0A { bytes.append(0x0A) }
                    return (try Self.records(in: start..<state.count, file: file, state: state), bytes)
                }
            }
        }
        return try outcome.get()
    }

    /// Hands the records after `position` to `body` a chunk at a time (a few MiB of the
    /// log each), in order, until `body` returns `false`: a replay never holds the whole
    /// log. The records are those of the log when the call starts.
    /// - Complexity: O(*n*) for the *n* bytes after `position`.
    package func forEachChunk(after position: Int64, _ body: ([Record]) -> Bool) throws(EventLogError) {
        let outcome: Result<(SystemFile, LogReader.Start, Int), EventLogError> = state.withLock { state in
            // What others committed is read first (its records are read again below, a
            // chunk at a time: a whole-log read reads the log once more anyway).
            let caughtUp = Result { () throws(EventLogError) in
                try withCaughtUp(&state, exclusive: false) { (_, _, _) throws(EventLogError) in }
            }
            if case .failure(let error) = caughtUp { return .failure(error) }
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
    package func records(forCommandID id: String) throws(EventLogError) -> [Record]? {
        let outcome: Result<[Record]?, EventLogError> = state.withLock { state in
            Result { () throws(EventLogError) in
                try withCaughtUp(&state, exclusive: false) { (state, file, _) throws(EventLogError) in
                    try Self.records(forCommandID: id, file: file, state: &state)
                }
            }
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
    package func close() {
        state.withLock { $0.file = nil }
    }

    /// Closes the log and, when its file is still empty, removes it; returns whether it did.
    ///
    /// For a command that created the log and then failed (a full disk), so that it leaves
    /// no empty log behind. The file is removed under its lock, and only while the path
    /// still names it: a process waiting for that lock then finds the path gone and makes
    /// a new file (see ``lockedFile(_:creating:)``), as after a repair's rename.
    package func closeRemovingIfEmpty() -> Bool {
        state.withLock { state in
            defer { state.file = nil }
            guard let file = state.file, (try? file.lock(exclusive: true)) != nil else { return false }
            defer { file.unlock() }
            guard SystemFile.identity(of: path) == state.identity, (try? file.size()) == 0,
                  unlink(path) == 0 else { return false }
            SystemFile.syncDirectory(of: path)
            return true
        }
    }
}

extension RecordEncoder {
    /// Throws ``EventLogError/recordTooLong(length:limit:)`` for the first record of
    /// `batch` whose line would be longer than the reader accepts, on every processor:
    /// only a record whose bound (``RecordEncoder/lineLengthBound(of:recordedAt:commandID:)``)
    /// is over the limit is encoded to tell.
    /// - Complexity: O(*n*) for *n* facts, plus the length of the lines encoded.
    package func refuseLinesTooLong(in batch: RecordBatch) throws(EventLogError) {
        let limit = LogReader.maximumLineLength
        let (recordedAt, commandID) = (batch.options.recordedAt, batch.options.commandID)
        let parts = (batch.count + FileEventLog.recordsPerEncodedPart - 1) / FileEventLog.recordsPerEncodedPart
        // Each part's first line too long (its length), in the parts' order.
        let found = concurrentMap(parts) { part -> Int? in
            for offset in (part * batch.count / parts)..<((part + 1) * batch.count / parts) {
                guard RecordEncoder.lineLengthBound(of: batch.facts[offset], recordedAt: recordedAt,
                                                    commandID: commandID, submission: batch.options.submission)
                        > limit + 1 else { continue }
                var line: [UInt8] = []
                encode(batch, at: offset, into: &line)
                if line.count - 1 > limit { return line.count - 1 }
            }
            return nil
        }
        if let length = found.lazy.compactMap({ $0 }).first {
            throw .recordTooLong(length: length, limit: limit)
        }
    }

    /// Appends the line of the record of `batch` at `offset` to `bytes`, without making the record.
    fileprivate func encode(_ batch: RecordBatch, at offset: Int, into bytes: inout [UInt8]) {
        encode(batch.facts[offset], position: batch.position(at: offset), recordedAt: batch.options.recordedAt,
               commandID: batch.options.commandID, batchRemainder: batch.remainder(at: offset),
               submission: batch.options.submission, into: &bytes)
    }
}

/// The length and checksum of the last bytes of what a log has read of its file (as a
/// resume point keeps those of its last line), to tell at each later read that the file
/// still begins with them: a file overwritten in place by another log, or cut and written
/// again, keeps its inode and may well be longer.
struct PrefixMark: Sendable, Hashable {
    /// How many bytes before the end of what was read are checked: a few records' lines,
    /// read again from the page cache at each catch-up.
    static let window = 1024

    /// How many bytes end at the size read (fewer than ``window`` only in a smaller file).
    var length = 0
    /// Their ``CRC32C``.
    var checksum: UInt32 = 0

    init() {}

    /// The mark of the bytes of `file` that end at `size`.
    init(_ file: SystemFile, size: Int) throws(EventLogError) {
        length = min(size, Self.window)
        checksum = length == 0 ? 0 : CRC32C.checksum(try file.read(at: size - length, count: length))
    }

    /// Whether `file` still has these bytes ending at `size`.
    func holds(in file: SystemFile, size: Int) throws(EventLogError) -> Bool {
        guard length > 0 else { return true }
        guard try file.size() >= size else { return false }
        let bytes = try file.read(at: size - length, count: length)
        return bytes.count == length && CRC32C.checksum(bytes) == checksum
    }
}
