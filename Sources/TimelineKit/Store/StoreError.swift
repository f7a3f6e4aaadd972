import TimelineCore

/// Why the store refused a command or could not open its log.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The command breaks a domain rule; nothing was appended.
    case rejected(Rejection)
    /// The log failed (conflict, in use, I/O, an invalid line).
    case log(EventLogError)
    /// A record in the log breaks a domain rule, so the log cannot be used.
    case invalidRecord(position: Int64, reason: String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .rejected(let rejection): rejection.description
        case .log(let error): error.description
        case .invalidRecord(let position, let reason): "record \(position): \(reason)"
        }
    }
}
