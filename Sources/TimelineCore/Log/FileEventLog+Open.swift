import SystemShim

extension FileEventLog {
    /// Opens (or creates) the log at `path` and reads it, holding the exclusive lock
    /// while it reads (so that a torn tail can be cut); other processes may open it too.
    ///
    /// - Throws: ``EventLogError/invalidLine(path:line:reason:)`` for a bad line before the end.
    package convenience init(path: String) throws(EventLogError) {
        let file = try Self.lockedFile(path)
        defer { file.unlock() }
        var loading = try Loading(file, path: path, after: LogReader.Start(), prefixCommands: CommandTable())
        let (state, tornTail) = try loading.finish(mending: loading.canMend, mayLeave: true)
        self.init(path: path, state: state, tornTail: tornTail, tornTailOutcome: loading.tornTailOutcome)
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
                var (state, tornTail) = try loading.finish(mending: loading.canMend, mayLeave: true)
                state.openedAt = point
                return Opening(log: FileEventLog(path: path, state: state, tornTail: tornTail, tornTailOutcome: loading.tornTailOutcome), start: point.position,
                               resumed: true,
                               resumeProblem: nil)
            }
        }
        var loading = try Loading(file, path: path, after: LogReader.Start(), prefixCommands: CommandTable())
        while let records = try loading.next() {
            consume(false, records)
            progress(loading.offset, loading.size)
        }
        let (state, tornTail) = try loading.finish(mending: loading.canMend, mayLeave: true)
        return Opening(log: FileEventLog(path: path, state: state, tornTail: tornTail, tornTailOutcome: loading.tornTailOutcome), start: 0, resumed: false,
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
    struct Loading {
        private let file: SystemFile
        private let start: LogReader.Start
        private let prefixCommands: CommandTable
        private var reader: LogChunkReader
        private var offsets = RecordOffsets()
        private var commands: [CommandKey: Range<Int>] = [:]
        private var lineShifts: [(position: Int, extra: Int)] = []

        init(_ file: SystemFile, path: String, after start: LogReader.Start,
             prefixCommands: CommandTable) throws(EventLogError) {
            self.file = file
            self.start = start
            self.prefixCommands = prefixCommands
            reader = try LogChunkReader(file, from: start)
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
        var size: Int { reader.end }

        /// Whether a torn tail can be cut and a missing newline added: the file was opened
        /// for writing (its exclusive lock is held by whoever calls ``finish(mending:)``).
        var canMend: Bool { file.notWritable == nil }
        /// What ``finish(mending:mayLeave:)`` did with a torn tail.
        private(set) var tornTailOutcome = TornTailOutcome.leftReadOnly

        /// Reads what is left and returns the log's state. With `mending` (the exclusive
        /// lock held), a torn tail is moved to the side file and cut off, and a last record
        /// without its newline gets one; without, both are left as they are, and the torn
        /// tail counts as not yet written. When the side file cannot take the tail (a full
        /// disk), it is left in the log if `mayLeave` (opening: what is read stays right,
        /// and no append can follow without cutting it first), else that is the error (an
        /// append, which would write over it).
        mutating func finish(mending: Bool, mayLeave: Bool = false)
            throws(EventLogError) -> (state: State, tornTail: LogReader.TornTail?) {
            while try next() != nil {}
            var size = reader.end
            var missingNewline = false
            if let torn = reader.tornTail {
                if mending {
                    let bytes = try file.read(at: torn.offset, count: reader.end - torn.offset)
                    var saved = false
                    do throws(EventLogError) {
                        try FileEventLog.moveAside([bytes], besideLogAt: file.path, like: file)
                        saved = true
                        try file.truncate(to: torn.offset)
                        try file.sync()
                        tornTailOutcome = .cut
                    } catch {
                        // Not saved, so not cut: the tail stays, read as not yet written.
                        if !mayLeave || saved { throw error }
                        tornTailOutcome = .leftUnsaved(error)
                    }
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

    /// Notes where the records of `contents` are — the offset of each line, the runs of
    /// records whose line numbers are shifted by blank lines, the records of each command
    /// id — for records whose first has the 0-based index `first`.
    static func note(_ contents: LogReader.Contents, first: Int, offsets: inout RecordOffsets,
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
}
