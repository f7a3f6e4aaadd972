import Synchronization

/// An event log kept in memory: for tests, previews and front ends that persist elsewhere.
public final class InMemoryEventLog: EventLog, BatchAppending {
    private struct State {
        /// The records, batch by batch: each appended batch is kept as the array returned
        /// for it, so that an append copies no record and no array of every record grows.
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

    /// Appends a batch decided under the log's lock; see
    /// ``EventLog/append(after:options:catchingUp:deciding:)``.
    /// - Complexity: O(*k*) for a batch of *k* facts, plus the records caught up.
    public func append<Failure: Error>(
        after known: Int64, options: AppendOptions,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: () throws(Failure) -> [Fact]
    ) throws(AppendFailure<Failure>) -> AppendResult {
        let result: Result<AppendResult, AppendFailure<Failure>> = state.withLock { state in
            let position = Int64(state.count)
            if known < position {
                let newer = state.records(Int(max(0, known))..<state.count)
                do throws(Failure) { try catchingUp(newer) } catch { return .failure(.refused(error)) }
            }
            if let id = options.commandID, let range = state.commands[CommandKey(id)] {
                return .success(AppendResult(records: state.records(range), wasDuplicate: true))
            }
            if let expected = options.expectedPosition, expected != position {
                return .failure(.log(.conflict(expected: expected, actual: position)))
            }
            let facts: [Fact]
            do throws(Failure) { facts = try deciding() } catch { return .failure(.refused(error)) }
            guard !facts.isEmpty else { return .success(AppendResult(records: [], wasDuplicate: false)) }
            let records = Record.batch(of: facts, after: position, options: options)
            if let id = options.commandID {
                state.commands[CommandKey(id)] = state.count..<(state.count + records.count)
            }
            state.add(records)
            return .success(AppendResult(records: records, wasDuplicate: false))
        }
        return try result.get()
    }

    /// Appends several batches in one hold of the lock; see
    /// ``BatchAppending/appendEach(after:count:catchingUp:deciding:)``.
    /// - Complexity: O(*k*) for the *k* facts appended, plus the records caught up.
    package func appendEach<Failure: Error>(
        after known: Int64, count: Int,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: (Int) throws(Failure) -> PlannedBatch?
    ) throws(AppendFailure<Failure>) -> [Record] {
        let result: Result<[Record], AppendFailure<Failure>> = state.withLock { state in
            if known < Int64(state.count) {
                let newer = state.records(Int(max(0, known))..<state.count)
                do throws(Failure) { try catchingUp(newer) } catch { return .failure(.refused(error)) }
            }
            // Planned first, added at the end: all or nothing.
            let commands = state.commands
            let planned: [[Record]]
            do throws(AppendFailure<Failure>) {
                planned = try planBatches(after: Int64(state.count), count: count,
                                          isTaken: { commands[CommandKey($0)] != nil }, check: { _ in },
                                          catchingUp: catchingUp, deciding: deciding)
            } catch {
                return .failure(error)
            }
            for records in planned {
                if let id = records[0].commandID {
                    state.commands[CommandKey(id)] = state.count..<(state.count + records.count)
                }
                state.add(records)
            }
            return .success(planned.flatMap { $0 })
        }
        return try result.get()
    }

    /// A watch that never fires: an in-memory log is written only in this process,
    /// through stores that publish their own appends (a second store on the same log
    /// learns of the first's records when it next appends).
    public func watch(_ changed: @escaping @Sendable () -> Void) throws(EventLogError) -> LogWatch {
        LogWatch {}
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
