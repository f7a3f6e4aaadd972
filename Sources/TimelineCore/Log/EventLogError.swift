/// Why the log could not be opened, read or appended to; each message names the file and the rule.
public enum EventLogError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The log is not at the position the append expected.
    case conflict(expected: Int64, actual: Int64)
    /// Another process holds the log open for writing.
    case inUse(path: String)
    /// A system call failed.
    case io(path: String, operation: String, code: Int32)
    /// A line of the log is not a valid record (or breaks the order of positions).
    case invalidLine(path: String, line: Int, reason: String)
    /// The log was closed.
    case closed(path: String)
    /// A batch to append was empty.
    case emptyBatch
    /// The log file was replaced (by a repair), or changed in place so that it no longer
    /// begins with what this process read (a restore over it, a cut), since this process
    /// last read it; the log now reads what the path names from its start, and whatever
    /// was built from the old one must be rebuilt.
    case replaced(path: String)
    /// An append failed and so did undoing it: the batch may be in the log after all.
    case appendMayHaveLanded(path: String, operation: String, code: Int32)
    /// The connection to the log's database was lost while the batch was being committed:
    /// whether it is in the log is unknown. `reason` is what was lost and how.
    case commitOutcomeUnknown(log: String, reason: String)
    /// A record of the batch would be a line longer than the log accepts when read
    /// (``LogReader/maximumLineLength``), so the batch was not appended.
    case recordTooLong(length: Int, limit: Int)
    /// The log's database (PostgreSQL) refused or could not be reached; `message` is the
    /// server's or client library's explanation, without any password.
    case database(log: String, message: String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .conflict(let expected, let actual):
            "conflict: expected the log at position \(expected), but it is at \(actual)"
        case .inUse(let path):
            "log is in use: \(path) is open for writing by another process"
        case .io(let path, let operation, let code):
            "\(path): \(operation) failed: \(SystemError.message(code)) (errno \(code))"
        case .invalidLine(let path, let line, let reason):
            "\(path): line \(line): \(reason)"
        case .closed(let path):
            "\(path): the log is closed"
        case .emptyBatch:
            "nothing to append: the batch is empty"
        case .replaced(let path):
            "\(path) was replaced or changed in place while it was open: it is read again from its start"
        case .appendMayHaveLanded(let path, let operation, let code):
            "\(path): \(operation) failed: \(SystemError.message(code)) (errno \(code)), and undoing the append "
                + "failed too: the record may be in the log or not (its outcome is unknown). Read the log before "
                + "sending the command again; a command sent with a command id is never appended twice"
        case .commitOutcomeUnknown(let log, let reason):
            "\(log): \(reason); the connection was lost while the batch was being committed: it may be in the log "
                + "or not (its outcome is unknown). Read the log before sending the command again; a command sent with a command id is "
                + "never appended twice"
        case .recordTooLong(let length, let limit):
            "record too long: its line would be \(length) bytes; at most \(limit) are allowed"
        case .database(let log, let message):
            "\(log): \(message)"
        }
    }
}

extension EventLogError {
    /// Whether the append may or may not have landed: its outcome is unknown, and only
    /// reading the log (or sending it again with the same command id) tells.
    public var isOutcomeUnknown: Bool {
        switch self {
        case .appendMayHaveLanded, .commitOutcomeUnknown: true
        default: false
        }
    }

    /// The same error about `path` when it is about `other` (a temporary file that stands
    /// for it); any other error as it is.
    func naming(_ path: String, insteadOf other: String) -> EventLogError {
        guard case .io(other, let operation, let code) = self else { return self }
        return .io(path: path, operation: operation, code: code)
    }
}
