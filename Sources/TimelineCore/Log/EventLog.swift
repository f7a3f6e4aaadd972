import Synchronization

/// An append-only log of records: the only source of truth.
///
/// Appends are atomic per batch and assign contiguous positions 1, 2, 3, …; an append may
/// state the position it expects the log to be at, and a command id makes a resend
/// idempotent. Implementations are safe to share between threads, and a log may be
/// shared by several processes (a file) or machines (a database): every appender decides
/// under the log's lock, against every record committed before its own.
///
/// To implement a log: ``append(after:options:catchingUp:deciding:)``, the three reads,
/// and ``watch(_:)``; for checkpoints, ``resumePoint(at:)`` and ``resumeProblem(at:)``. The
/// rest comes from extensions.
public protocol EventLog: AnyObject, Sendable {
    /// The position of the last committed record this log object has seen, 0 for an empty log.
    var position: Int64 { get }

    /// Appends the facts that `deciding` returns as one batch, all or nothing, holding the
    /// log's lock from before the catch-up until the batch is durable.
    ///
    /// In order, under the lock: the records committed after `known` (by other processes)
    /// are handed to `catchingUp` (perhaps in several calls, in order; not at all when
    /// there are none); a batch of `options.commandID` already in the log is returned with
    /// ``AppendResult/wasDuplicate`` set and nothing is decided; a log not at
    /// `options.expectedPosition` throws ``EventLogError/conflict(expected:actual:)``;
    /// then `deciding` returns the facts, which are appended durably. No facts: nothing is
    /// appended and the result holds no records. An error thrown by either closure ends the
    /// call with that error and appends nothing.
    ///
    /// - Throws: ``AppendFailure/log(_:)`` for the log's errors (``EventLogError/replaced(path:)``
    ///   when the log was replaced, by a repair, while this call waited: rebuild from
    ///   position 0 and try again), ``AppendFailure/refused(_:)`` for a closure's.
    func append<Failure: Error>(
        after known: Int64, options: AppendOptions,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: () throws(Failure) -> [Fact]
    ) throws(AppendFailure<Failure>) -> AppendResult

    /// The committed records after `position`, in order (catch-up reading): for a log
    /// other processes write, this includes what they appended.
    ///
    /// - Throws: ``EventLogError/replaced(path:)`` when the log was replaced since it was
    ///   last read; the log then reads the new one, from position 0.
    func records(after position: Int64) throws(EventLogError) -> [Record]

    /// The records a command with this id appended, or `nil` if no such command is in the log.
    func records(forCommandID id: String) throws(EventLogError) -> [Record]?

    /// Hands the records after `position` to `body` a part at a time, in order, until
    /// `body` returns `false`: for replaying a long log without holding it whole.
    func forEachChunk(after position: Int64, _ body: ([Record]) -> Bool) throws(EventLogError)

    /// Calls `changed` (on a thread of the log's) whenever records may have been committed
    /// or the log replaced, by this process or another, until the returned watch is
    /// cancelled or released. It is a hint, not data: read with ``records(after:)``.
    /// Learning of a change costs no polling (file notifications, a database's `LISTEN`).
    func watch(_ changed: @escaping @Sendable () -> Void) throws(EventLogError) -> LogWatch

    /// Where the log stands at `position`, to save with a checkpoint; `nil` when `position`
    /// is inside an atomic batch or beyond the end, or when this kind of log does not resume.
    func resumePoint(at position: Int64) throws(EventLogError) -> LogResumePoint?

    /// Why reading on from `point` would not continue the log as it was when the point was
    /// made (another log, or this one changed, shortened or replaced since), or `nil` when
    /// ``records(after:)`` of the point's position reads exactly the records after it.
    func resumeProblem(at point: LogResumePoint) throws(EventLogError) -> String?

    /// Releases what the log holds (a file, a connection); later calls fail with
    /// ``EventLogError/closed(path:)``.
    func close()
}

extension EventLog {
    /// `nil`: this log does not resume from checkpoints, and a store on it replays it whole.
    public func resumePoint(at position: Int64) throws(EventLogError) -> LogResumePoint? { nil }

    /// Refuses every point: this log does not resume from checkpoints.
    public func resumeProblem(at point: LogResumePoint) throws(EventLogError) -> String? {
        "this kind of log does not resume from a checkpoint"
    }

    /// Holds nothing to release.
    public func close() {}

    /// Hands all the records after `position` to `body` at once.
    public func forEachChunk(after position: Int64, _ body: ([Record]) -> Bool) throws(EventLogError) {
        _ = body(try records(after: position))
    }

    /// Appends `facts` as one batch, all or nothing, wherever the log is (or at
    /// `options.expectedPosition`), without looking at what others appended: for imports
    /// and tests. A store decides against the log with ``append(after:options:catchingUp:deciding:)``.
    ///
    /// When `options.commandID` names a batch already in the log, nothing is appended and
    /// the earlier records are returned with ``AppendResult/wasDuplicate`` set.
    package func append(_ facts: [Fact], options: AppendOptions) throws(EventLogError) -> AppendResult {
        let result: AppendResult
        do {
            result = try append(after: .max, options: options, catchingUp: { (_: [Record]) throws(Never) in },
                                deciding: { () throws(Never) in facts })
        } catch {
            switch error {
            case .log(let failure): throw failure
            case .refused(let never): switch never {}
            }
        }
        if !result.wasDuplicate && result.records.isEmpty { throw .emptyBatch }
        return result
    }
}

/// Why an append failed: the log's error, or one thrown by the caller's catch-up or decision.
public enum AppendFailure<Failure: Error>: Error {
    /// The log could not be read or appended to.
    case log(EventLogError)
    /// The caller's `catchingUp` or `deciding` closure threw.
    case refused(Failure)
}

/// A log's watch on its changes; ``cancel()`` it, or release it, to stop.
public final class LogWatch: Sendable {
    private let stop: Mutex<(@Sendable () -> Void)?>

    /// Creates a watch that calls `stop` once, when cancelled or released (for log implementers).
    public init(stop: @escaping @Sendable () -> Void) { self.stop = Mutex(stop) }

    /// Stops the watch; no call of its `changed` closure starts after this returns.
    public func cancel() {
        let stop = self.stop.withLock { stop in
            defer { stop = nil }
            return stop
        }
        stop?()
    }

    deinit { cancel() }
}

/// How to append a batch: the position expected, the command id, the time recorded.
public struct AppendOptions: Sendable, Hashable {
    /// The position the log must be at, or `nil` to append wherever it is.
    public var expectedPosition: Int64?
    /// The command's id: a batch with an id already in the log is not appended again.
    public var commandID: String?
    /// When the batch was recorded; written as each record's `at`.
    public var recordedAt: DateValue?
    /// The nonce of the device submission the batch is the outcome of; written as each
    /// record's `sub` (section 10 of the design).
    public var submission: String?
    /// For an undo a replica sent: the first position of the batch it undoes; written as
    /// each record's `undo` (``Record/undoes``).
    public var undoes: Int64?

    /// Creates append options.
    public init(expectedPosition: Int64? = nil, commandID: String? = nil, recordedAt: DateValue? = nil,
                submission: String? = nil, undoes: Int64? = nil) {
        self.expectedPosition = expectedPosition
        self.commandID = commandID
        self.recordedAt = recordedAt
        self.submission = submission
        self.undoes = undoes
    }
}

/// What an append wrote (or, for a resent command, what it had written before).
public struct AppendResult: Sendable, Hashable {
    /// The records, as made by the log, or made from their facts when first asked for.
    private enum Storage: Sendable {
        case made([Record])
        case described(DescribedRecords)
    }

    private var storage: Storage

    /// The batch's records, in order (none when the decision was to append nothing).
    ///
    /// - Complexity: O(1); for a big batch that a file log appended (an import's), whose
    ///   records are made from its facts when first asked for, O(*k*) the first time.
    public var records: [Record] {
        get {
            switch storage {
            case .made(let records): records
            case .described(let described): described.records
            }
        }
        set { storage = .made(newValue) }
    }

    /// Whether the command id was already in the log, so nothing new was written.
    public var wasDuplicate: Bool

    /// Creates an append result.
    public init(records: [Record], wasDuplicate: Bool) {
        self.storage = .made(records)
        self.wasDuplicate = wasDuplicate
    }

    /// The result of appending `batch`, its records not made until they are asked for.
    package init(appended batch: RecordBatch) {
        self.storage = .described(DescribedRecords(batch))
        self.wasDuplicate = false
    }

    /// How many records the batch has, without making them.
    /// - Complexity: O(1).
    package var count: Int {
        switch storage {
        case .made(let records): records.count
        case .described(let described): described.batch.count
        }
    }

    /// The positions of the batch's records, without making them; `nil` for no records.
    /// - Complexity: O(1).
    package var positions: ClosedRange<Int64>? {
        switch storage {
        case .made(let records):
            guard let first = records.first?.position, let last = records.last?.position else { return nil }
            return first...last
        case .described(let described):
            return described.batch.positions
        }
    }

    /// Results are equal when their records and ``wasDuplicate`` are.
    public static func == (lhs: AppendResult, rhs: AppendResult) -> Bool {
        lhs.wasDuplicate == rhs.wasDuplicate && lhs.records == rhs.records
    }

    /// Hashes the records and ``wasDuplicate``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(records)
        hasher.combine(wasDuplicate)
    }
}

/// A batch's records, made from its description once, on the first call that needs them,
/// and kept: a result may be copied and read from any thread.
private final class DescribedRecords: Sendable {
    let batch: RecordBatch
    private let made = Mutex<[Record]?>(nil)

    init(_ batch: RecordBatch) { self.batch = batch }

    var records: [Record] {
        made.withLock { made in
            if let made { return made }
            let records = batch.records
            made = records
            return records
        }
    }
}
