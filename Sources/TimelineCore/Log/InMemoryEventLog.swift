import Synchronization

/// An event log kept in memory: for tests, previews and front ends that persist elsewhere.
public final class InMemoryEventLog: EventLog {
    private struct State {
        var records: [Record] = []
        var commands: [String: Range<Int>] = [:]
    }

    private let state: Mutex<State>

    /// Creates a log holding `records` (positions must be 1, 2, 3, …).
    public init(records: [Record] = []) {
        var initial = State()
        initial.records = records
        for (offset, record) in records.enumerated() {
            if let id = record.commandID {
                let start = initial.commands[id]?.lowerBound ?? offset
                initial.commands[id] = start..<(offset + 1)
            }
        }
        state = Mutex(initial)
    }

    /// The position of the last record.
    public var position: Int64 { state.withLock { Int64($0.records.count) } }

    /// Appends a batch; see ``EventLog/append(_:options:)``.
    /// - Complexity: O(*k*) for a batch of *k* facts.
    public func append(_ facts: [Fact], options: AppendOptions) throws(EventLogError) -> AppendResult {
        let result: Result<AppendResult, EventLogError> = state.withLock { state in
            if let id = options.commandID, let range = state.commands[id] {
                return .success(AppendResult(records: Array(state.records[range]), wasDuplicate: true))
            }
            guard !facts.isEmpty else { return .failure(.emptyBatch) }
            let position = Int64(state.records.count)
            if let expected = options.expectedPosition, expected != position {
                return .failure(.conflict(expected: expected, actual: position))
            }
            let records = facts.enumerated().map { offset, fact in
                Record(position: position + Int64(offset) + 1, fact: fact, recordedAt: options.recordedAt,
                       commandID: options.commandID, batchRemainder: facts.count - offset - 1)
            }
            if let id = options.commandID {
                state.commands[id] = state.records.count..<(state.records.count + records.count)
            }
            state.records += records
            return .success(AppendResult(records: records, wasDuplicate: false))
        }
        return try result.get()
    }

    /// The records a command with this id appended, if any.
    /// - Complexity: O(*k*) for the *k* records returned.
    public func records(forCommandID id: String) throws(EventLogError) -> [Record]? {
        state.withLock { state in state.commands[id].map { Array(state.records[$0]) } }
    }

    /// The records after `position`.
    /// - Complexity: O(*k*) for the *k* records returned.
    public func records(after position: Int64) throws(EventLogError) -> [Record] {
        state.withLock { state in
            let start = Int(max(0, min(position, Int64(state.records.count))))
            return Array(state.records[start...])
        }
    }
}
