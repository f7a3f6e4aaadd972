import Synchronization
import SystemShim

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
    /// What the log knows of its file, behind ``state``.
    ///
    /// Two locks, taken in this order:
    /// - the `Mutex` ``state`` lets one call of this object at a time read or change any
    ///   of these fields;
    /// - the file's `flock`, taken inside it by each call that reads what other processes
    ///   committed (``withCaughtUp(_:exclusive:_:)``): shared to read, exclusive to append or
    ///   to mend the file (cut a torn tail, add a missing newline). Opening holds the
    ///   exclusive lock while it reads.
    ///
    /// Between calls:
    /// - The first `size` bytes of the file are read: committed records and blank lines,
    ///   never a torn tail. Timeline does not rewrite them in place (a repair renames a new
    ///   file over the path), so reading them needs the `Mutex` alone; each catch-up checks
    ///   that the path still names this file (`identity`) and that the file still holds
    ///   them (`mark`).
    /// - The records are the positions 1 through `count`; `offsets[i]` is where the line of
    ///   the record at position `base + i + 1` starts. `commands` holds 0-based ranges of
    ///   those positions (index `p - 1` for position `p`).
    /// - `base > 0` only while the prefix of a log opened from a resume point (`openedAt`)
    ///   is not read: its command ids are in `prefixCommands`, its bytes end at
    ///   `prefixEnd`. ``readPrefix(_:file:)`` reads it and sets `base` to 0.
    /// - `file` is `nil` once the log is closed; `buffer` is kept only for its capacity.
    struct State {
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
    /// The torn tail opening found, if the last write had been interrupted: cut off and
    /// moved to the side file, or left as it is and not read (``tornTailOutcome``).
    package let tornTail: LogReader.TornTail?
    /// What opening did with ``tornTail``.
    package let tornTailOutcome: TornTailOutcome

    /// What opening a log does with a torn tail it finds.
    package enum TornTailOutcome: Hashable, Sendable {
        /// Moved to the side file (``sideFilePath(for:)``) and cut off.
        case cut
        /// Left in the log and not read: this process cannot write the log.
        case leftReadOnly
        /// Left in the log and not read: the side file could not take it (the error says
        /// why, a full disk most often); the next write tries again, and refuses while it
        /// cannot save it.
        case leftUnsaved(EventLogError)
    }

    /// The line of the file that holds the record at `position` (from 1; blank lines
    /// counted), or `nil` for a position the log has not read.
    package func lineNumber(ofRecord position: Int64) -> Int? {
        state.withLock { state in
            position >= 1 && position <= Int64(state.count) ? state.lineNumber(ofRecord: Int(position)) : nil
        }
    }
    let state: Mutex<State>
    let encoder = RecordEncoder()

    init(path: String, state: sending State, tornTail: LogReader.TornTail?, tornTailOutcome: TornTailOutcome) {
        self.path = path
        self.tornTail = tornTail
        self.tornTailOutcome = tornTailOutcome
        self.state = Mutex(state)
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
                    + "something other than Timeline cut it; verify the log")
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
    func withCaughtUp<T>(
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
            state = try loading.finish(mending: loading.canMend, mayLeave: true).state
            throw .replaced(path: path)
        }
        // The same file may hold another log now (`cp backup.jsonl log.jsonl`, or a log
        // cut by hand and written again): reading on would apply another log's tail onto
        // what was read. Whatever the file holds now is read from its start instead.
        if try !state.mark.holds(in: file, size: state.size) {
            var loading = try Loading(file, path: path, after: LogReader.Start(), prefixCommands: CommandTable())
            state = try loading.finish(mending: exclusive && loading.canMend, mayLeave: true).state
            throw .replaced(path: path)
        }
        let newer = try Self.catchUp(&state, file: file, path: path, mending: exclusive && file.notWritable == nil)
        return try body(&state, file, newer)
    }

    /// The position of the last record.
    package var position: Int64 { state.withLock { Int64($0.count) } }

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
