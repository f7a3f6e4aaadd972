import SystemShim

extension FileEventLog {
    /// What ``repair(path:)`` did: the records it kept and the lines it moved aside.
    package struct RepairReport: Hashable, Sendable {
        /// A line moved to the side file, with its number in the old log and the reason.
        package struct MovedLine: Hashable, Sendable, CustomStringConvertible {
            /// The line's number in the log before the repair.
            package var line: Int
            /// Why it could not stay.
            package var reason: String

            /// `line 7: checksum mismatch`.
            package var description: String { "line \(line): \(reason)" }
        }

        /// How many records the repaired log holds.
        package var kept: Int
        /// The lines moved aside, in order.
        package var moved: [MovedLine]
        /// The side file that holds the moved lines, byte for byte (`nil` when nothing moved).
        package var sideFile: String?
        /// Whether the log was (or, in a dry run, would be) rewritten: lines moved aside,
        /// records renumbered, or atomic batches the log could not be read with.
        package var rewritten: Bool
        /// Whether this was a dry run: nothing was changed.
        package var dryRun: Bool
    }

    /// The side file next to a log that receives the lines a repair moves out.
    package static func sideFilePath(for path: String) -> String { path + ".rejected" }

    /// Repairs the log at `path`, so that it opens again: every line that is not a valid
    /// record, whose fact the decider refuses, or whose `seq` repeats or goes back (a copied
    /// line), is appended byte for byte to the side file; the good records stay, in order,
    /// renumbered 1, 2, 3, … with fresh checksums (`seq` gaps and values out of range are
    /// mended); an atomic batch whose records are all kept stays one batch. A line that
    /// holds a complete record with a valid checksum followed by other
    /// bytes keeps its record, and only the bytes after it go aside. An atomic batch at the
    /// end whose last records are missing (a write cut short, never acknowledged) is moved
    /// aside whole, as opening the log would drop it. Nothing is deleted.
    ///
    /// The repair holds the log's exclusive lock for its whole run (it waits for an append
    /// in progress); writers that wait meanwhile append to the repaired log. The side file
    /// is made durable before the log is replaced (atomically, by rename), and the new file
    /// keeps the old one's mode and owner: when it cannot, the repair fails and changes
    /// nothing. A symbolic link is followed: its target is repaired, the link stays.
    /// With `dryRun`, the report says what would be done, and nothing is changed.
    package static func repair(path: String, dryRun: Bool = false) throws(EventLogError) -> RepairReport {
        let target = resolvedPath(path)
        let file = try lockedFile(target, creating: false)
        defer { file.unlock() }
        if !dryRun { try file.requireWritable() }
        let bytes = try file.readAll()
        let decoder = RecordDecoder()
        let encoder = RecordEncoder()
        var state = DomainState()
        var keptFacts: [Fact] = []
        var kept: [UInt8] = []
        // Each moved line with where its bytes are in the log.
        var moved: [(line: RepairReport.MovedLine, bytes: Range<Int>)] = []
        // The last atomic batch while its records are still to come: its size, what had
        // been kept before it, and its kept lines.
        /// The batch being read: how many records follow its first (its `more`, which may
        /// be as large as an `Int` holds), where it starts, and its lines.
        var openBatch: (following: Int, keptBytes: Int, position: Int64, lines: [(line: Int, bytes: Range<Int>)])?
        // The kept facts of the line or batch being read, written when it ends: as one atomic
        // batch again when every record of it was kept, each a batch of its own otherwise.
        var pending: [(fact: Fact, record: DecodedLine, seq: Int64, first: Bool)] = []
        // Undo links (`undo`, and the `undo:N` command id) name the first position of the
        // batch undone: renumbered with the records. From `firstMoved` on (the first position
        // that changed) the new position of each kept record's original `seq` is kept; a
        // link to a position from there that is not kept names a record moved aside.
        var firstMoved: Int64?
        var newPositions: [Int64: Int64] = [:]
        func relinked(_ target: Int64) -> Int64? {
            guard let firstMoved, target >= firstMoved else { return target }
            return newPositions[target]
        }
        // Whether a line was moved aside since the last line or batch was written: one
        // moved just before a batch's first kept record may have been its first record.
        var movedSinceLastBatch = false
        var position: Int64 = 0
        // The original position of the last kept line: its `seq`, or one more than the one
        // before for a line without `seq`.
        var lastSeq: Int64 = 0
        var lineNumber = 0
        var start = 0
        var renumbered = false
        bytes.withUnsafeBytes { raw in
            while start < raw.count {
                lineNumber += 1
                let newline = LogReader.firstNewline(in: raw, from: start)
                let end = newline ?? raw.count
                let next = newline.map { $0 + 1 } ?? raw.count
                defer { start = next }
                let line = UnsafeRawBufferPointer(rebasing: raw[start..<end])
                if LogReader.isBlank(line) { continue }
                /// `ended`: the line read as a record that ends its batch (`more` absent). Outside
                /// a batch it is a batch boundary: nothing moved before it belongs to the batch
                /// that follows, which stays whole.
                func reject(_ reason: String, ended: Bool = false) {
                    moved.append((RepairReport.MovedLine(line: lineNumber, reason: reason), start..<end))
                    movedSinceLastBatch = !(ended && openBatch == nil)
                }
                if line.count > LogReader.maximumLineLength {
                    reject("line is \(line.count) bytes long; at most \(LogReader.maximumLineLength) are allowed")
                    continue
                }
                var decoded: DecodedLine
                switch Result(catching: { () throws(RecordError) in try decoder.decodeLine(line, lineNumber: lineNumber) }) {
                case .success(let line): decoded = line
                case .failure(let error):
                    // A record whose checksum holds, followed by other bytes (a damaged
                    // newline): the record was acknowledged; only what follows it goes.
                    guard let length = LogReader.checksummedRecordLength(line), length < line.count,
                          case .success(let record) = Result(catching: { () throws(RecordError) in
                              try decoder.decodeLine(UnsafeRawBufferPointer(rebasing: line[..<length]), lineNumber: lineNumber)
                          }) else {
                        reject(error.reason.description)
                        continue
                    }
                    decoded = record
                    moved.append((RepairReport.MovedLine(line: lineNumber, reason:
                        "\(line.count - length) bytes after a complete record (the record is kept)"),
                                  (start + length)..<end))
                }
                if let seq = decoded.seq, seq <= lastSeq {
                    reject("seq \(seq) is out of order: it comes after seq \(lastSeq) (a repeated or misplaced line)",
                           ended: decoded.batchRemainder == 0)
                    continue
                }
                if let undone = decoded.undoes, undone >= decoded.seq ?? lastSeq + 1 {
                    reject(RecordError.Reason.undoNotBefore(undone, position: decoded.seq ?? lastSeq + 1).description,
                           ended: decoded.batchRemainder == 0)
                    continue
                }
                let facts = decoded.facts
                // Facts are checked and applied in place: trying each line on a copy of the
                // state would copy all of it per line, and make repair quadratic. Only when
                // a record of several facts (upcast) is refused after its first is the
                // state rebuilt, from the facts kept so far.
                var refusal: String?
                for (index, fact) in facts.enumerated() {
                    if case .failure(let error) = Result(catching: { () throws(Rejection) in try Decider.check(fact, in: state) }) {
                        refusal = "\(fact.type.rawValue): \(error.description)"
                        if index > 0 { state = keptFacts.reduce(into: DomainState()) { $0.apply($1) } }
                        break
                    }
                    state.apply(fact)
                }
                if let refusal {
                    reject(refusal, ended: decoded.batchRemainder == 0)
                    continue
                }
                keptFacts += facts
                // The facts of the batch read so far are written when it ends.
                if let seq = decoded.seq, seq != position + Int64(pending.count) + 1 { renumbered = true }
                lastSeq = decoded.seq ?? lastSeq + 1
                let originalSeq = lastSeq
                if openBatch == nil, decoded.batchRemainder > 0 {
                    openBatch = (decoded.batchRemainder, kept.count, position, [])
                }
                openBatch?.lines.append((lineNumber, start..<end))
                pending += facts.enumerated().map { ($1, decoded, originalSeq, $0 == 0) }
                guard decoded.batchRemainder == 0 else { continue }
                let whole = !movedSinceLastBatch && (openBatch.map { $0.lines.count - 1 == $0.following } ?? true)
                openBatch = nil
                movedSinceLastBatch = false
                for (index, fact) in pending.enumerated() {
                    position += 1
                    if fact.first {
                        if firstMoved == nil, fact.seq != position { firstMoved = position }
                        if firstMoved != nil { newPositions[fact.seq] = position }
                    }
                    let record = fact.record
                    var commandID = record.commandID
                    // Only a link to an earlier record is an undo's (``Record/undoneBatch``).
                    if let undone = UndoMarker.undonePosition(commandID), undone < fact.seq {
                        // A link to a record moved aside names nothing: it stays an id, no marker.
                        commandID = relinked(undone).map(UndoMarker.commandID(undoing:)) ?? "\(commandID!) (moved aside)"
                    }
                    encoder.encode(fact.fact, position: position, recordedAt: record.recordedAt, commandID: commandID,
                                   batchRemainder: whole ? pending.count - 1 - index : 0, submission: record.submission,
                                   undoes: record.undoes.flatMap(relinked), into: &kept)
                }
                pending.removeAll(keepingCapacity: true)
            }
        }
        if let batch = openBatch {
            // The log ends in a batch whose last records never came: its write was cut
            // short and never acknowledged. Opening the log would drop it whole; keeping
            // part of it would make a resend of its command return that part as done.
            kept.removeSubrange(batch.keptBytes...)  // nothing of it is written yet: its facts are pending
            position = batch.position
            let reason = "atomic batch of \(UInt64(batch.following) + 1) records has only \(batch.lines.count): "
                + "a write cut short"
            moved += batch.lines.map { (RepairReport.MovedLine(line: $0.line, reason: reason), $0.bytes) }
            moved.sort { $0.line.line < $1.line.line }
        }
        // A log the reader refuses for its batches alone (a batch broken in the middle) is
        // rewritten too: the records are kept, each a batch of its own.
        let readable = (try? LogReader().read(bytes)).map { $0.tornTail == nil } ?? false
        let rewrite = !moved.isEmpty || renumbered || !readable
        let side = sideFilePath(for: path)
        let report = RepairReport(kept: Int(position), moved: moved.map(\.line), sideFile: moved.isEmpty ? nil : side,
                                  rewritten: rewrite, dryRun: dryRun)
        guard rewrite, !dryRun else { return report }
        // The new log's temporary file a killed repair left (`PATH.tmp-PID-N`): as large as the log.
        DurableFile.removeTemporaries(of: target)
        try moveAside(moved.map { Array(bytes[$0.bytes]) }, besideLogAt: path, like: file)
        try SystemFile.writeAtomically(kept, to: target, like: file)
        return report
    }

    /// Appends `lines` to the side file of the log at `path`, byte for byte, each followed
    /// by a newline, durably, unless the side file ends with them already; the side file
    /// gets the log's mode (and, where allowed, owner).
    static func moveAside(_ lines: [[UInt8]], besideLogAt path: String, like log: SystemFile) throws(EventLogError) {
        guard !lines.isEmpty else { return }
        var bytes: [UInt8] = []
        for line in lines {
            bytes += line
            if line.last != 0x0A { bytes.append(0x0A) }
        }
        let side = sideFilePath(for: path)
        let existed = SystemFile.exists(side)
        let sideFile = try SystemFile(path: side, flags: O_RDWR | O_CREAT | O_APPEND, mode: 0o600)
        if !existed {
            var info = stat()
            if fstat(log.descriptor, &info) == 0 {
                _ = fchown(sideFile.descriptor, info.st_uid, info.st_gid)
                _ = fchmod(sideFile.descriptor, info.st_mode & 0o777)
            }
        }
        let size = try sideFile.size()
        // Already its last lines: a repair killed after moving them aside, before replacing
        // the log (whose rerun moves the same lines again).
        if existed, size >= bytes.count, try sideFile.read(at: size - bytes.count, count: bytes.count) == bytes {
            try sideFile.sync()
            return
        }
        do {
            try sideFile.write(bytes, at: size)
            try sideFile.sync()
        } catch {
            // Nothing half moved stays (a full disk): the side file as it was, or none.
            if existed { _ = ftruncate(sideFile.descriptor, off_t(size)) } else { unlink(side) }
            throw error
        }
        if !existed { SystemFile.syncDirectory(of: side) }
    }

    /// The file a path names, symbolic links followed (the path itself when it cannot be resolved).
    static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
