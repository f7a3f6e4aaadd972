import Synchronization
import SystemShim

extension FileEventLog {
    /// Reads the records before the point the log was opened at (their offsets, line
    /// numbers and command ids), so that every position can be read.
    static func readPrefix(_ state: inout State, file: SystemFile) throws(EventLogError) {
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

    /// Reads the log at `path` without taking the writer's lock (replay, verify, a reader
    /// while a writer is at work). A torn tail is reported, not cut.
    package static func read(path: String) throws(EventLogError) -> LogReader.Contents {
        let file = try SystemFile(path: path, flags: O_RDONLY)
        let bytes = try file.readAll()
        do { return try LogReader().read(bytes) } catch {
            throw .invalidLine(path: path, line: error.line, reason: error.reason)
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
                    let records = try Self.records(in: start..<state.count, file: file, state: state, bytes: bytes)
                    if bytes.last != 0x0A { bytes.append(0x0A) }
                    return (records, bytes)
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
        var reader = try LogChunkReader(file, from: start, to: end)
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

    static func records(forCommandID id: String, file: SystemFile,
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

    /// The records at the 0-based indices `range`, read from `file` (or taken from `bytes`:
    /// the log's bytes from the first one's line to the end of the last one's, read already).
    /// - Complexity: O(*n*) for the *n* bytes read, on every processor for a long range.
    static func records(in range: Range<Int>, file: SystemFile, state: State,
                        bytes given: [UInt8]? = nil) throws(EventLogError) -> [Record] {
        guard !range.isEmpty else { return [] }
        let offsets = state.offsets, base = state.base
        let start = offsets[range.lowerBound - base]
        let end = range.upperBound < state.count ? offsets[range.upperBound - base] : state.size
        let bytes: [UInt8]
        if let given { bytes = given } else { bytes = try file.read(at: start, count: end - start) }
        let parts = range.count >= 1 << 16 ? max(1, ProcessInfoCount.active) : 1
        let path = file.path
        guard parts > 1 else {
            return try decode(range, of: bytes, from: start, end: end, offsets: offsets, base: base, path: path).get()
        }
        let decoded = concurrentMap(parts) { part in
            let lower = range.lowerBound + range.count * part / parts
            let upper = range.lowerBound + range.count * (part + 1) / parts
            return decode(lower..<upper, of: bytes, from: start, end: end, offsets: offsets, base: base, path: path)
        }
        var records: [Record] = []
        records.reserveCapacity(range.count)
        for part in decoded { records += try part.get() }
        return records
    }

    /// The records at `range` decoded from `bytes`, which hold the log from offset `start`
    /// to `end` (each record's line found through `offsets`).
    private static func decode(_ range: Range<Int>, of bytes: [UInt8], from start: Int, end: Int, offsets: RecordOffsets,
                               base: Int, path: String) -> Result<[Record], EventLogError> {
        var records: [Record] = []
        records.reserveCapacity(range.count)
        let decoder = RecordDecoder()
        var lineStart = offsets[range.lowerBound - base] - start
        for index in range {
            let lineEnd = (index + 1 < base + offsets.count ? offsets[index + 1 - base] : end) - start
            do {
                records.append(try decoder.decode(line: bytes[lineStart..<lineEnd], lineNumber: index + 1,
                                                  expectedPosition: Int64(index + 1)))
            } catch {
                return .failure(.invalidLine(path: path, line: error.line, reason: error.reason.description))
            }
            lineStart = lineEnd
        }
        return .success(records)
    }
}
