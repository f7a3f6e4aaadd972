import TimelineCore

/// Why the store refused a command or an import, or could not open its log.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The command breaks a domain rule; nothing was appended.
    case rejected(Rejection)
    /// The log failed (conflict, in use, I/O, an invalid line).
    case log(EventLogError)
    /// A record in the log breaks a domain rule, so the log cannot be used; `line` is the
    /// line of a log file that holds it (blank lines counted), when the log is a file.
    case invalidRecord(position: Int64, line: Int?, reason: String)
    /// A fact given to an import (`importFacts`) breaks a domain rule in the
    /// state after the store's records and the facts before it; nothing was appended.
    ///
    /// `index` counts the facts given from 0; `line` is where the caller said the fact came
    /// from (a line of the foreign log), if it said; `type` is the fact's type.
    case importRefused(index: Int, line: Int?, type: FactType, rejection: Rejection)
    /// An import (`importFacts`) was given another number of lines than of
    /// facts; nothing was appended.
    case linesDoNotMatchFacts(lines: Int, facts: Int)
    /// An undo, redo or revert is refused (a later change touched the same things, or there
    /// is nothing to undo); nothing was appended.
    case undoRefused(UndoRefusal)
    /// A command id already in the log was given to other commands than the ones it was
    /// sent with (its records are at `positions`, of these types); nothing was appended.
    /// The same commands sent again with it append nothing (a retry); others need an id of
    /// their own.
    case commandIDInUse(commandID: String, positions: ClosedRange<Int64>, types: [FactType])

    /// The same error with the line of `file` that holds its record, for a refused record.
    func naming(lineIn file: FileEventLog) -> StoreError {
        guard case .invalidRecord(let position, nil, let reason) = self else { return self }
        return .invalidRecord(position: position, line: file.lineNumber(ofRecord: position), reason: reason)
    }

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .rejected(let rejection): rejection.description
        case .log(let error): error.description
        case .invalidRecord(let position, let line?, let reason): "line \(line) (record \(position)): \(reason)"
        case .invalidRecord(let position, nil, let reason): "record \(position): \(reason)"
        case .importRefused(let index, let line, let type, let rejection):
            "import refused at fact index \(index)\(line.map { " (line \($0))" } ?? ""): "
                + "\(type.rawValue): \(rejection); nothing imported"
        case .undoRefused(let refusal): refusal.description
        case .linesDoNotMatchFacts(let lines, let facts):
            "import given \(lines) lines for \(facts) facts; give one line per fact; nothing imported"
        case .commandIDInUse(let id, let positions, let types):
            "the command id \(IdentifierText.quoted(id)) was sent with another command "
                + "(\(positions.count == 1 ? "record \(positions.lowerBound)" : "records \(positions.lowerBound)–\(positions.upperBound)"): "
                + "\(types.map(\.rawValue).joined(separator: ", "))); a command id names one command: give this one "
                + "another id; nothing appended"
        }
    }
}
