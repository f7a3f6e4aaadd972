import SystemShim

/// Reads a whole JSON Lines log: splits it into lines, decodes each record, checks that
/// positions run 1, 2, 3, … and that atomic batches are complete, and finds a torn tail.
///
/// A final line without a newline is read like any other when it is a complete record;
/// an incomplete one (not valid UTF-8 or not valid JSON: a record's line cut short) is a
/// *torn tail* (a crash in the middle of a write): it is reported in ``Contents/tornTail``
/// and not returned. So is an atomic batch whose last records never reached the file.
/// Any other bad line, a final one that is whole JSON included, makes the log invalid,
/// and reading stops at the first one with its line number and the reason.
///
/// Blank lines are skipped (they still count for line numbers).
package struct LogReader: Sendable {
    /// The longest line accepted, in bytes; a record of the longest title is far shorter.
    package static let maximumLineLength = 1 << 20

    /// A torn tail: bytes at the end of the log that are not a complete record or batch.
    package struct TornTail: Hashable, Sendable, CustomStringConvertible {
        /// The line number where the torn part starts.
        package var line: Int
        /// The byte offset where the torn part starts: the log's valid length.
        package var offset: Int
        /// How many bytes are torn.
        package var length: Int
        /// Why the tail is torn.
        package var reason: String
        /// Whether the torn part is an atomic batch that never finished (whole records
        /// without the rest of their batch), not a record cut short.
        package var isBatch = false
        /// For an unfinished batch: how many of its records are there, and how many not.
        package var presentRecords = 0
        package var missingRecords = 0

        /// For an unfinished batch, the bytes its whole would take at the length of its
        /// records so far, with a tenth more: what a reader of a log in chunks reads at
        /// once to hold it, instead of trying twice as much again and again (decoding
        /// the start of a million-record batch many times). `nil` for a record cut short.
        package var estimatedWholeBatchLength: Int? {
            guard isBatch, presentRecords > 0 else { return nil }
            let perRecord = Double(length) / Double(presentRecords)
            return length + Int(min(perRecord * Double(missingRecords) * 1.1, Double(Int.max / 4)))
        }

        /// `line 7: incomplete last record (35 bytes): …`, or `… incomplete last batch …`.
        package var description: String {
            "line \(line): incomplete last \(isBatch ? "batch" : "record") (\(length) bytes): \(reason)"
        }
    }

    /// What a log holds.
    package struct Contents: Sendable {
        /// The records, in order.
        package var records: [Record]
        /// The byte offset where each record's line starts (same order as `records`).
        package var offsets: [Int]
        /// The line number of each record.
        package var lineNumbers: [Int]
        /// The torn tail, if the log ends in one.
        package var tornTail: TornTail?
        /// The length of the valid part of the log, in bytes.
        package var validLength: Int
    }

    /// Why a log is invalid: the first bad line and the rule it breaks.
    package struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The line number, from 1.
        package var line: Int
        /// The byte offset where the line starts.
        package var offset: Int
        /// What is wrong with it.
        package var reason: String

        /// A failure of the line `line`, which starts at byte `offset`.
        package init(line: Int, offset: Int, reason: String) {
            self.line = line
            self.offset = offset
            self.reason = reason
        }

        /// `line 12: eventAdded: field "date": date "2019-13": month must be 01–12`.
        package var description: String { "line \(line): \(reason)" }
    }

    private let decoder = RecordDecoder()
    /// How many pieces to cut every log into, whatever its size (for tests); `nil`: one
    /// per processor for a large log.
    let pieceCount: Int?

    /// Creates a reader.
    package init() { pieceCount = nil }

    /// Creates a reader that cuts every log into `pieceCount` pieces (for tests).
    init(pieceCount: Int) { self.pieceCount = pieceCount }

    /// Where a part of a log starts: how many records and lines come before it, and its
    /// byte offset in the log (so that offsets, line numbers and positions are the log's).
    package struct Start: Sendable {
        /// How many records come before the part.
        package var position: Int64 = 0
        /// How many lines come before the part.
        package var line = 0
        /// The part's byte offset in the log.
        package var offset = 0

        /// The start of a log.
        package init() {}

        /// A part that starts after `position` records, `line` lines and `offset` bytes.
        package init(position: Int64, line: Int, offset: Int) {
            self.position = position
            self.line = line
            self.offset = offset
        }
    }

    /// Reads every record of `bytes`, the whole content of a log.
    ///
    /// A large log is split at line boundaries into one piece per processor, and the
    /// pieces' lines are decoded at the same time (decoding does not depend on a line's
    /// position); positions, batches and the torn tail are then checked in one pass in
    /// order, so the result and the first error reported are those of reading line by line.
    /// - Complexity: O(*n*) in the size of the log.
    package func read(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Contents {
        try read(bytes, after: Start())
    }

    /// Reads every record of `bytes`, the part of a log that starts at `base`, which must
    /// be the start of a line outside any atomic batch. Offsets, line numbers, positions
    /// and the torn tail are given in the whole log's terms.
    /// - Complexity: O(*n*) in the size of `bytes`.
    package func read(_ bytes: UnsafeRawBufferPointer, after base: Start) throws(Failure) -> Contents {
        var contents: Contents
        do { contents = try readPart(bytes, after: base) } catch {
            throw Failure(line: error.line, offset: error.offset + base.offset, reason: error.reason)
        }
        if base.offset != 0 {
            for i in contents.offsets.indices { contents.offsets[i] += base.offset }
            contents.validLength += base.offset
            contents.tornTail?.offset += base.offset
        }
        return contents
    }

    private func readPart(_ bytes: UnsafeRawBufferPointer, after base: Start) throws(Failure) -> Contents {
        var pieces = LogPieces.scan(bytes, decoder: decoder, pieceCount: pieceCount)
        var contents = Contents(records: [], offsets: [], lineNumbers: [], tornTail: nil, validLength: 0)
        contents.records.reserveCapacity(pieces.lineCount)
        contents.offsets.reserveCapacity(pieces.lineCount)
        contents.lineNumbers.reserveCapacity(pieces.lineCount)
        let count = bytes.count
        var lineNumber = base.line
        var batchStart: (index: Int, line: Int, offset: Int)?
        var expectedRemainder = 0
        reading: for piece in pieces.pieces.indices {
            // Each line is moved out of its piece (a blank left in its place), so that no
            // record is retained twice and the log is never held twice.
            var lines = pieces.take(piece)
            for index in lines.indices {
                let line = lines.withUnsafeMutableBufferPointer { buffer in
                    let slot = buffer.baseAddress! + index
                    let line = slot.move()
                    slot.initialize(to: LogPieces.Line(start: 0, next: 0, endsWithNewline: true, content: .blank))
                    return line
                }
                lineNumber += 1
                let start = line.start, next = line.next
                let decoded: DecodedLine
                switch line.content {
                case .blank:
                    if batchStart == nil { contents.validLength = next }
                    continue
                case .tooLong(let length):
                    if !line.endsWithNewline {
                        // An acknowledged record followed by junk is damage, however long.
                        let head = UnsafeRawBufferPointer(rebasing: bytes[start..<min(count, start + Self.maximumLineLength)])
                        if let record = Self.checksummedRecordLength(head) {
                            throw Failure(line: lineNumber, offset: start,
                                          reason: Self.damagedNewline(followedBy: count - start - record))
                        }
                        contents.tornTail = TornTail(line: lineNumber, offset: start, length: count - start,
                                                     reason: "longer than \(Self.maximumLineLength) bytes")
                        break reading
                    }
                    throw Failure(line: lineNumber, offset: start,
                                  reason: "line is \(length) bytes long; at most \(Self.maximumLineLength) are allowed")
                case .failure(let reason):
                    if !line.endsWithNewline, Self.mayBeCutShort(reason) {
                        // A whole record whose checksum holds was acknowledged: what follows
                        // it in place of its newline is damage, not a write cut short.
                        let rest = UnsafeRawBufferPointer(rebasing: bytes[start..<count])
                        if let length = Self.checksummedRecordLength(rest) {
                            throw Failure(line: lineNumber, offset: start,
                                          reason: Self.damagedNewline(followedBy: rest.count - length))
                        }
                        contents.tornTail = TornTail(line: lineNumber, offset: start, length: count - start,
                                                     reason: reason.description)
                        break reading
                    }
                    throw Failure(line: lineNumber, offset: start, reason: reason.description)
                case .decoded(let line):
                    decoded = line
                }
                let record: Record
                do {
                    record = try decoded.record(expectedPosition: base.position + Int64(contents.records.count + 1),
                                               lineNumber: lineNumber)
                } catch {
                    throw Failure(line: lineNumber, offset: start, reason: error.reason.description)
                }
                // Atomic batches: a record announcing `more` must be followed by the rest.
                if batchStart != nil {
                    guard record.batchRemainder == expectedRemainder else {
                        throw Failure(line: lineNumber, offset: start, reason:
                            "batch incomplete: expected a record with \"more\":\(expectedRemainder), found \(record.batchRemainder)")
                    }
                } else if record.batchRemainder > 0 {
                    batchStart = (contents.records.count, lineNumber, start)
                }
                contents.records.append(record)
                contents.offsets.append(start)
                contents.lineNumbers.append(lineNumber)
                if record.batchRemainder > 0 {
                    expectedRemainder = record.batchRemainder - 1
                } else {
                    batchStart = nil
                    contents.validLength = next
                }
            }
        }
        if let batch = batchStart {
            // The batch never finished: none of it counts.
            let torn = TornTail(line: batch.line, offset: batch.offset, length: count - batch.offset,
                                reason: "atomic batch of \(UInt64(contents.records.count - batch.index) + UInt64(expectedRemainder) + 1) records "
                                    + "has only \(contents.records.count - batch.index)", isBatch: true,
                                presentRecords: contents.records.count - batch.index,
                                missingRecords: expectedRemainder + 1)
            contents.records.removeSubrange(batch.index...)
            contents.offsets.removeSubrange(batch.index...)
            contents.lineNumbers.removeSubrange(batch.index...)
            contents.tornTail = torn
            contents.validLength = batch.offset
        } else if let torn = contents.tornTail {
            contents.validLength = torn.offset
        }
        return contents
    }

    /// Reads every record of `bytes`.
    package func read(_ bytes: [UInt8]) throws(Failure) -> Contents {
        try bytes.withUnsafeBytes { raw in Result { () throws(Failure) in try read(raw) } }.get()
    }

    /// Whether a last line failing for `reason` may be a write cut short. What a cut
    /// leaves is a proper prefix of a record's line, which is never a whole JSON value
    /// (the record's closing brace is its last byte): so only a line that is not valid
    /// UTF-8 or not valid JSON may be torn. A whole JSON value that breaks another rule
    /// is a bad line, and cutting it off would destroy it.
    static func mayBeCutShort(_ reason: RecordError.Reason) -> Bool {
        switch reason {
        case .invalidUTF8, .invalidJSON: true
        default: false
        }
    }

    /// Why a last line that begins with a whole, checksummed record and goes on with
    /// `extra` other bytes is damage: that record was acknowledged.
    static func damagedNewline(followedBy extra: Int) -> String {
        "a complete record is followed by \(extra) bytes instead of its newline: the line is damaged, not cut short"
    }

    /// The length of the complete record that `line` begins with, when it ends in a valid
    /// checksum (`,"crc":"xxxxxxxx"}`, the CRC-32C of every byte before `,"crc"`); `nil`
    /// otherwise.
    /// - Complexity: O(*n*) for each candidate `,"crc":"` in the line (one, in practice).
    static func checksummedRecordLength(_ line: UnsafeRawBufferPointer) -> Int? {
        let marker = Array(#","crc":""#.utf8)
        let n = line.count
        var i = 0
        while i + marker.count + 10 <= n {
            defer { i += 1 }
            guard line[i] == marker[0], (0..<marker.count).allSatisfy({ line[i + $0] == marker[$0] }) else { continue }
            let hex = i + marker.count
            guard line[hex + 8] == 0x22, line[hex + 9] == 0x7D else { continue }
            var stored: UInt32 = 0
            var valid = true
            for k in 0..<8 {
                let c = line[hex + k]
                let digit: UInt32
                switch c {
                case 0x30...0x39: digit = UInt32(c - 0x30)
                case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
                default: valid = false; digit = 0
                }
                stored = stored << 4 | digit
            }
            guard valid, CRC32C.checksum(UnsafeRawBufferPointer(rebasing: line[..<i])) == stored else { continue }
            return hex + 10
        }
        return nil
    }

    static func firstNewline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, 0x0A, bytes.count - start) else { return nil }
        return UnsafeRawPointer(found) - base
    }

    static func isBlank<C: Collection<UInt8>>(_ line: C) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }
}
