import Synchronization

/// An event log kept in memory: for tests, previews and front ends that persist elsewhere.
public final class InMemoryEventLog: EventLog {
    private struct State {
        /// The records, batch by batch: each appended batch is kept as the array returned
        /// for it, so that appending copies no record (with callgrind, copying each record
        /// into one array of all of them, and its facts and dates, was most of an
        /// append's 2,000 instructions, and growing that array copied every record).
        var batches: [[Record]] = []
        /// How many records come before each batch.
        var starts: [Int] = []
        /// How many records the log holds.
        var count = 0
        /// The offsets of each command's records.
        var commands: [CommandKey: Range<Int>] = [:]

        /// Adds a batch's records after the others (nothing for an empty batch).
        mutating func add(_ batch: [Record]) {
            guard !batch.isEmpty else { return }
            batches.append(batch)
            starts.append(count)
            count += batch.count
        }

        /// The records at `offsets` (0 is the first record).
        /// - Complexity: O(log *b* + *k*) for *b* batches and *k* records.
        func records(_ offsets: Range<Int>) -> [Record] {
            guard !offsets.isEmpty else { return [] }
            var result: [Record] = []
            result.reserveCapacity(offsets.count)
            // The last batch starting at or before the first offset.
            var batch = starts.partitioningIndex { $0 > offsets.lowerBound } - 1
            while batch < batches.count, starts[batch] < offsets.upperBound {
                let start = starts[batch]
                let within = Swift.max(offsets.lowerBound, start) - start
                let end = Swift.min(offsets.upperBound, start + batches[batch].count) - start
                result.append(contentsOf: batches[batch][within..<end])
                batch += 1
            }
            return result
        }
    }

    private let state: Mutex<State>

    /// Creates a log holding `records` (positions must be 1, 2, 3, …).
    public init(records: [Record] = []) {
        var initial = State()
        initial.add(records)
        for (offset, record) in records.enumerated() {
            if let id = record.commandID {
                let start = initial.commands[CommandKey(id)]?.lowerBound ?? offset
                initial.commands[CommandKey(id)] = start..<(offset + 1)
            }
        }
        state = Mutex(initial)
    }

    /// The position of the last record.
    public var position: Int64 { state.withLock { Int64($0.count) } }

    /// Appends a batch; see ``EventLog/append(_:options:)``.
    /// - Complexity: O(*k*) for a batch of *k* facts.
    public func append(_ facts: [Fact], options: AppendOptions) throws(EventLogError) -> AppendResult {
        let result: Result<AppendResult, EventLogError> = state.withLock { state in
            if let id = options.commandID, let range = state.commands[CommandKey(id)] {
                return .success(AppendResult(records: state.records(range), wasDuplicate: true))
            }
            guard !facts.isEmpty else { return .failure(.emptyBatch) }
            let position = Int64(state.count)
            if let expected = options.expectedPosition, expected != position {
                return .failure(.conflict(expected: expected, actual: position))
            }
            let records = Record.batch(of: facts, after: position, options: options)
            if let id = options.commandID {
                state.commands[CommandKey(id)] = state.count..<(state.count + records.count)
            }
            state.add(records)
            return .success(AppendResult(records: records, wasDuplicate: false))
        }
        return try result.get()
    }

    /// The records a command with this id appended, if any.
    /// - Complexity: O(log *b* + *k*) for the *k* records returned, of *b* batches.
    public func records(forCommandID id: String) throws(EventLogError) -> [Record]? {
        state.withLock { state in state.commands[CommandKey(id)].map { state.records($0) } }
    }

    /// The records after `position`.
    /// - Complexity: O(log *b* + *k*) for the *k* records returned, of *b* batches.
    public func records(after position: Int64) throws(EventLogError) -> [Record] {
        state.withLock { state in
            let start = Int(max(0, min(position, Int64(state.count))))
            return state.records(start..<state.count)
        }
    }
}
