import Synchronization

extension FileEventLog {
    /// Where a log was at some position, saved (in a checkpoint) so that the log can be
    /// reopened reading only the records after it: see ``open(path:resumingAt:consume:)``.
    ///
    /// It names the byte offset just after the line of the record at ``position``, the
    /// length and CRC-32C of that line (so that opening can check that the record ending
    /// there is the one that was there), how many lines come before the offset (for line
    /// numbers in messages), and the command ids of the records up to ``position``.
    package struct ResumePoint: Sendable, Hashable {
        /// The position of the last record before the point (0: the start of the log).
        package var position: Int64
        /// The byte offset just after the newline of the record at ``position``.
        package var offset: Int
        /// How many lines (records and blank lines) come before ``offset``.
        package var lineCount: Int
        /// The length of the line of the record at ``position``, its newline included
        /// (0 when ``position`` is 0).
        package var lastLineLength: Int
        /// The CRC-32C of that line's bytes, its newline included.
        package var lastLineChecksum: UInt32
        /// The command ids of the records up to ``position``.
        package var commands: CommandTable

        /// Creates a resume point from its parts (as a checkpoint saved them).
        package init(position: Int64, offset: Int, lineCount: Int, lastLineLength: Int, lastLineChecksum: UInt32,
                    commands: CommandTable) {
            self.position = position
            self.offset = offset
            self.lineCount = lineCount
            self.lastLineLength = lastLineLength
            self.lastLineChecksum = lastLineChecksum
            self.commands = commands
        }

        /// Why the point cannot describe any log, or `nil` when its parts agree.
        var inconsistency: String? {
            if position < 0 { return "negative position \(position)" }
            if position == 0 && offset != 0 { return "position 0 at byte \(offset), not at the start" }
            if lineCount < position { return "\(lineCount) lines cannot hold \(position) records" }
            if (position == 0) != (lastLineLength == 0) {
                return "a last line of \(lastLineLength) bytes does not fit position \(position)"
            }
            if lastLineLength < 0 || lastLineLength > offset || lastLineLength > LogReader.maximumLineLength + 1 {
                return "a last line of \(lastLineLength) bytes does not fit offset \(offset)"
            }
            for entry in commands.entries {
                guard entry.firstPosition >= 1, entry.count >= 1, entry.firstPosition - 1 + Int64(entry.count) <= position,
                      entry.offset >= 0, entry.offset < offset else {
                    return "command entry at position \(entry.firstPosition) lies outside the first \(position) records"
                }
            }
            return nil
        }
    }

    /// The command ids of a log's records, by a 64-bit hash of the id: compact to save and
    /// to load, and a lookup reads the records back to compare the real id, so two ids
    /// with the same hash never mix.
    package struct CommandTable: Sendable, Hashable {
        /// One command: the hash of its id and where its records are.
        package struct Entry: Sendable, Hashable {
            /// ``CommandTable/hash(_:)`` of the command id.
            package var hash: UInt64
            /// The position of the command's first record.
            package var firstPosition: Int64
            /// How many records the command's batch holds.
            package var count: Int32
            /// The byte offset where the line of the first record starts.
            package var offset: Int

            /// Creates an entry.
            package init(hash: UInt64, firstPosition: Int64, count: Int32, offset: Int) {
                self.hash = hash
                self.firstPosition = firstPosition
                self.count = count
                self.offset = offset
            }
        }

        /// The entries, in ascending order of hash.
        package let entries: [Entry]

        /// An empty table.
        package init() { entries = [] }

        /// A table of `entries`, or `nil` if they are not in ascending order of hash.
        /// - Complexity: O(*n*).
        package init?(sortedEntries entries: [Entry]) {
            for i in entries.indices.dropFirst() where entries[i - 1].hash > entries[i].hash { return nil }
            self.entries = entries
        }

        /// A table of `entries` in any order.
        /// - Complexity: O(*n* log *n*).
        package init(unsorted entries: [Entry]) {
            self.entries = entries.sorted { $0.hash < $1.hash }
        }

        /// The entries whose hash is `hash(id)`: the candidates for the command `id`.
        /// - Complexity: O(log *n*).
        func candidates(for id: String) -> ArraySlice<Entry> {
            let key = Self.hash(id)
            let low = entries.partitioningIndex { $0.hash >= key }
            var end = low
            while end < entries.count, entries[end].hash == key { end += 1 }
            return entries[low..<end]
        }

        /// The stable hash of a command id (``StableHash``).
        /// - Complexity: O(*m*) for an id of *m* bytes.
        package static func hash(_ id: String) -> UInt64 { StableHash.of(id) }
    }

    /// The file log's resume point as the opaque point a checkpoint saves: its kind, the
    /// identity of the file it was made on, and its parts.
    static func encode(_ point: ResumePoint, identity: FileIdentity) -> LogResumePoint {
        var writer = ByteWriter()
        writer.write(ResumePointKind.file.rawValue)
        writer.write(identity.device)
        writer.write(identity.inode)
        writer.write(Int64(point.offset))
        writer.write(Int64(point.lineCount))
        writer.write(Int64(point.lastLineLength))
        writer.write(point.lastLineChecksum)
        writer.write(UInt32(point.commands.entries.count))
        for entry in point.commands.entries {
            writer.write(entry.hash)
            writer.write(entry.firstPosition)
            writer.write(entry.count)
            writer.write(Int64(entry.offset))
        }
        return LogResumePoint(position: point.position, bytes: writer.bytes)
    }

    /// The parts of a point ``encode(_:identity:)`` made, or why it is not one.
    static func decode(_ point: LogResumePoint) -> Result<(ResumePoint, FileIdentity), ResumeFailure> {
        point.bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            do throws(ByteReader.Failure) {
                guard try reader.read(UInt8.self) == ResumePointKind.file.rawValue else {
                    return .failure(ResumeFailure(reason: "it was made for another kind of log than a file"))
                }
                let identity = FileIdentity(device: try reader.read(UInt64.self), inode: try reader.read(UInt64.self))
                let offset = Int(try reader.read(Int64.self))
                let lineCount = Int(try reader.read(Int64.self))
                let lastLineLength = Int(try reader.read(Int64.self))
                let checksum = try reader.read(UInt32.self)
                let count = try reader.readCount(minimumSize: 28)
                var entries: [CommandTable.Entry] = []
                entries.reserveCapacity(count)
                for _ in 0..<count {
                    entries.append(CommandTable.Entry(
                        hash: try reader.read(UInt64.self), firstPosition: try reader.read(Int64.self),
                        count: try reader.read(Int32.self), offset: Int(try reader.read(Int64.self))))
                }
                guard reader.isAtEnd else { return .failure(ResumeFailure(reason: "it has bytes after its end")) }
                guard let commands = CommandTable(sortedEntries: entries) else {
                    return .failure(ResumeFailure(reason: "its command table is out of order"))
                }
                return .success((ResumePoint(position: point.position, offset: offset, lineCount: lineCount,
                                             lastLineLength: lastLineLength, lastLineChecksum: checksum,
                                             commands: commands), identity))
            } catch {
                return .failure(ResumeFailure(reason: "it is damaged: \(error.reason)"))
            }
        }
    }

    /// Why a saved point cannot be read as this log's.
    struct ResumeFailure: Error {
        var reason: String
    }

    /// A log opened by ``open(path:resumingAt:consume:)``; its records went to `consume`.
    package struct Opening: Sendable {
        /// The log, open for writing.
        package let log: FileEventLog
        /// The position the records read start after: the resume point's, or 0 when the
        /// whole log was read.
        package let start: Int64
        /// Whether the log was read from the resume point (only its tail), rather than whole.
        package let resumed: Bool
        /// Why the resume point was not used, when one was given: the log was read whole.
        package let resumeProblem: String?
    }

    /// The file log's point that `saved` describes when it fits the log in `file`, or why not.
    static func usable(
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
}
