/// One entry of the log: its position, its metadata and the fact it records.
///
/// A record the store writes holds exactly one fact. A record of an old schema version
/// is upcast when read and may then stand for several of today's facts, which are
/// always applied together, at the record's position.
public struct Record: Hashable, Sendable {
    /// The record's position in the log (its `seq`): 1, 2, 3, … with no gaps.
    public var position: Int64
    /// The facts the record stands for, in order; one for every record the store writes.
    public var facts: [Fact]
    /// When the record was appended (its `at`), if the log says.
    public var recordedAt: DateValue?
    /// The id of the command that produced the record (its `cmd`), for idempotent resends.
    public var commandID: String?
    /// How many records of the same atomic batch follow this one (its `more`, 0 for the last).
    public var batchRemainder: Int
    /// The nonce of the device's submission whose outcome this record is (its `sub`), in a
    /// shared log that replicas sync through; `nil` elsewhere.
    public var submission: String?
    /// The first position of the batch this record's batch undoes (its `undo`), written by a
    /// shared log on an undo that a replica sent, whose command id is the device's `D:n`;
    /// `nil` elsewhere (a plain log marks an undo by its command id, `undo:N`).
    public var undoes: Int64?

    /// Creates a record.
    public init(
        position: Int64,
        facts: [Fact],
        recordedAt: DateValue? = nil,
        commandID: String? = nil,
        batchRemainder: Int = 0,
        submission: String? = nil,
        undoes: Int64? = nil
    ) {
        self.position = position
        self.facts = facts
        self.recordedAt = recordedAt
        self.commandID = commandID
        self.batchRemainder = batchRemainder
        self.submission = submission
        self.undoes = undoes
    }

    /// Creates a record of one fact.
    package init(
        position: Int64,
        fact: Fact,
        recordedAt: DateValue? = nil,
        commandID: String? = nil,
        batchRemainder: Int = 0,
        submission: String? = nil,
        undoes: Int64? = nil
    ) {
        self.init(position: position, facts: [fact], recordedAt: recordedAt, commandID: commandID,
                  batchRemainder: batchRemainder, submission: submission, undoes: undoes)
    }

    /// The first position of the batch that this record's batch undoes: its `undo`, or the
    /// earlier position its command id names (``UndoMarker``); `nil` for a batch that is no
    /// undo, and for a rejection, which changes nothing.
    package var undoneBatch: Int64? {
        if case .commandRejected? = facts.first { return nil }
        if let undoes { return undoes }
        // A command id naming this record or a later one was not written by an undo.
        return UndoMarker.undonePosition(commandID).flatMap { $0 < position ? $0 : nil }
    }

    /// The fact schema version the store writes (a record's `v`).
    package static let currentVersion = 1
}
