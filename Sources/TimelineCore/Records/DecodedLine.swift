/// A line as read, before it is placed in the log: its `seq` may be absent.
///
/// Both of the reader's paths produce this; ``RecordDecoder`` turns it into a
/// ``Record`` at the position the caller expects.
struct DecodedLine: Hashable, Sendable {
    /// The line's `seq`, or `nil` when the line has none (hand-written lines).
    var seq: Int64?
    /// The facts the line stands for: one, or several for an upcast old record.
    var facts: [Fact]
    /// The line's `at`.
    var recordedAt: DateValue?
    /// The line's `cmd`.
    var commandID: String?
    /// The line's `more`, 0 when absent.
    var batchRemainder: Int
    /// The line's `sub`.
    var submission: String? = nil
    /// The line's `undo`.
    var undoes: Int64? = nil

    /// The record at `expectedPosition`; a line whose `seq` says otherwise is an error.
    func record(expectedPosition: Int64, lineNumber: Int) throws(RecordError) -> Record {
        if let seq, seq != expectedPosition {
            throw RecordError(line: lineNumber, reason: .unexpectedPosition(seq, expected: expectedPosition))
        }
        if let undoes, undoes >= expectedPosition {
            throw RecordError(line: lineNumber, reason: .undoNotBefore(undoes, position: expectedPosition))
        }
        return Record(position: expectedPosition, facts: facts, recordedAt: recordedAt, commandID: commandID,
                      batchRemainder: batchRemainder, submission: submission, undoes: undoes)
    }
}
