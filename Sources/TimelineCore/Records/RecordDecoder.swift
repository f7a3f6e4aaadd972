/// Reads lines of the log as records.
///
/// Each line is tried first on the fast paths, byte scanners for exactly the layout
/// ``RecordEncoder`` writes and for the plainest hand-written lines (known members only,
/// in any order, any whitespace), which build nothing but the record's strings; at the
/// first surprise the line is read again on the general path, which takes any valid
/// JSON object and explains what is wrong with a line it cannot accept.
/// Both paths give the same record for the same line.
///
/// Positions: the caller says which position it expects next (1 for the first line,
/// then one more than the last record's). A line without `seq` (hand-written) gets that
/// position; a line whose `seq` differs is an error, since positions run 1, 2, 3, …
/// with no gaps.
///
/// Checks, in order: UTF-8, JSON, the checksum (a line with `crc` must match it, a line
/// without one is accepted), the known members' types, the schema version (older
/// versions are upcast, newer ones are errors), then `type` and the fields of `data`.
///
/// A line is its bytes with or without the `\n` that ends it. How long a line may be is
/// the caller's business.
package struct RecordDecoder: Sendable {
    /// Creates a decoder.
    package init() {}

    /// Reads the line number `lineNumber` (1-based, for messages) as the record at
    /// `expectedPosition`.
    package func decode(
        line: UnsafeRawBufferPointer, lineNumber: Int, expectedPosition: Int64
    ) throws(RecordError) -> Record {
        try decodeLine(line, lineNumber: lineNumber).record(expectedPosition: expectedPosition, lineNumber: lineNumber)
    }

    /// Reads the line number `lineNumber` (1-based, for messages) as the record at
    /// `expectedPosition`.
    package func decode(
        line: ArraySlice<UInt8>, lineNumber: Int, expectedPosition: Int64
    ) throws(RecordError) -> Record {
        try line.withUnsafeBytes { bytes in
            Result { () throws(RecordError) in
                try decode(line: bytes, lineNumber: lineNumber, expectedPosition: expectedPosition)
            }
        }.get()
    }

    /// Reads the line number `lineNumber` (1-based, for messages) as the record at
    /// `expectedPosition`.
    package func decode(line: [UInt8], lineNumber: Int, expectedPosition: Int64) throws(RecordError) -> Record {
        try decode(line: line[...], lineNumber: lineNumber, expectedPosition: expectedPosition)
    }

    /// Reads the UTF-8 of `line` as the record at `expectedPosition`.
    package func decode(line: String, lineNumber: Int, expectedPosition: Int64) throws(RecordError) -> Record {
        try decode(line: Array(line.utf8), lineNumber: lineNumber, expectedPosition: expectedPosition)
    }

    /// Reads a line, fast path first, without placing it in the log.
    func decodeLine(_ line: UnsafeRawBufferPointer, lineNumber: Int) throws(RecordError) -> DecodedLine {
        if let decoded = decodeFast(line) { return decoded }
        return try decodeGeneral(line, lineNumber: lineNumber)
    }

    /// The fast paths alone: the line if it is in the store's layout or the plainest
    /// hand-written one, and valid; otherwise `nil` (never an error).
    func decodeFast(_ line: UnsafeRawBufferPointer) -> DecodedLine? {
        FastRecordScanner.scan(line) ?? FastRecordScanner.scanAnyOrder(line)
    }

    /// The general path alone: any valid JSON object, or the error that explains why
    /// the line is not a record.
    func decodeGeneral(_ line: UnsafeRawBufferPointer, lineNumber: Int) throws(RecordError) -> DecodedLine {
        do {
            return try GeneralRecordReader.read(line)
        } catch {
            throw RecordError(line: lineNumber, reason: error)
        }
    }
}
