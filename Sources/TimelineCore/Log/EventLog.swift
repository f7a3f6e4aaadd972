/// An append-only log of records: the only source of truth.
///
/// Appends are atomic per batch and assign contiguous positions 1, 2, 3, …; an append may
/// state the position it expects the log to be at, and a command id makes a resend
/// idempotent. Implementations are safe to share between threads.
public protocol EventLog: AnyObject, Sendable {
    /// The position of the last record, 0 for an empty log.
    var position: Int64 { get }

    /// Appends `facts` as one batch, all or nothing, and returns the records written.
    ///
    /// When `options.commandID` names a batch already in the log, nothing is appended and
    /// the earlier records are returned with ``AppendResult/wasDuplicate`` set.
    func append(_ facts: [Fact], options: AppendOptions) throws(EventLogError) -> AppendResult

    /// The records after `position`, in order (catch-up reading).
    func records(after position: Int64) throws(EventLogError) -> [Record]

    /// The records a command with this id appended, or `nil` if no such command is in the log.
    func records(forCommandID id: String) throws(EventLogError) -> [Record]?

    /// Hands the records after `position` to `body` a part at a time, in order, until
    /// `body` returns `false`: for replaying a long log without holding it whole.
    func forEachChunk(after position: Int64, _ body: ([Record]) -> Bool) throws(EventLogError)
}

extension EventLog {
    /// Hands all the records after `position` to `body` at once.
    public func forEachChunk(after position: Int64, _ body: ([Record]) -> Bool) throws(EventLogError) {
        _ = body(try records(after: position))
    }
}

/// How to append a batch: the position expected, the command id, the time recorded.
public struct AppendOptions: Sendable, Hashable {
    /// The position the log must be at, or `nil` to append wherever it is.
    public var expectedPosition: Int64?
    /// The command's id: a batch with an id already in the log is not appended again.
    public var commandID: String?
    /// When the batch was recorded; written as each record's `at`.
    public var recordedAt: DateValue?

    /// Creates append options.
    public init(expectedPosition: Int64? = nil, commandID: String? = nil, recordedAt: DateValue? = nil) {
        self.expectedPosition = expectedPosition
        self.commandID = commandID
        self.recordedAt = recordedAt
    }
}

/// What an append wrote (or, for a resent command, what it had written before).
public struct AppendResult: Sendable, Hashable {
    /// The batch's records, in order.
    public var records: [Record]
    /// Whether the command id was already in the log, so nothing new was written.
    public var wasDuplicate: Bool

    /// Creates an append result.
    public init(records: [Record], wasDuplicate: Bool) {
        self.records = records
        self.wasDuplicate = wasDuplicate
    }
}
