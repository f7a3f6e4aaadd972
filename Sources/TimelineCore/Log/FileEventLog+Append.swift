import Synchronization

extension FileEventLog {
    /// Appends a batch durably, decided under the log's lock: one write, then fsync; see
    /// ``EventLog/append(after:options:catchingUp:deciding:)``.
    ///
    /// A batch with a record whose line would be longer than the reader accepts is
    /// refused with ``EventLogError/recordTooLong(length:limit:)``, and nothing is written.
    package func append<Failure: Error>(
        after known: Int64, options: AppendOptions,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: () throws(Failure) -> [Fact]
    ) throws(AppendFailure<Failure>) -> AppendResult {
        let outcome: Result<AppendResult, AppendFailure<Failure>> = state.withLock { state in
            do throws(EventLogError) {
                return try withCaughtUp(&state, exclusive: true) { (state, file, newer) throws(EventLogError) in
                    try file.requireWritable()
                    let count = state.count
                    if known < Int64(count) {
                        let start = Int(max(0, known))
                        var records = newer
                        if start != count - newer.count {
                            if start < state.base { try Self.readPrefix(&state, file: file) }
                            records = try Self.records(in: start..<count, file: file, state: state)
                        }
                        do throws(Failure) { try catchingUp(records) } catch { return .failure(.refused(error)) }
                    }
                    if let id = options.commandID, let earlier = try Self.records(forCommandID: id, file: file, state: &state) {
                        return .success(AppendResult(records: earlier, wasDuplicate: true))
                    }
                    if let expected = options.expectedPosition, expected != Int64(count) {
                        return .failure(.log(.conflict(expected: expected, actual: Int64(count))))
                    }
                    let facts: [Fact]
                    do throws(Failure) { facts = try deciding() } catch { return .failure(.refused(error)) }
                    guard !facts.isEmpty else { return .success(AppendResult(records: [], wasDuplicate: false)) }
                    return .success(try write(facts, options: options, file: file, state: &state))
                }
            } catch {
                return .failure(.log(error))
            }
        }
        return try outcome.get()
    }

    /// Appends several batches in one hold of the lock, with one write and one sync; see
    /// ``BatchAppending/appendEach(after:count:catchingUp:deciding:)``. Meant for batches
    /// of a command's size (a replica's submissions), encoded in one buffer.
    package func appendEach<Failure: Error>(
        after known: Int64, count: Int,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: (Int) throws(Failure) -> PlannedBatch?
    ) throws(AppendFailure<Failure>) -> [Record] {
        let outcome: Result<[Record], AppendFailure<Failure>> = state.withLock { state in
            do throws(EventLogError) {
                return try withCaughtUp(&state, exclusive: true) { (state, file, newer) throws(EventLogError) in
                    try file.requireWritable()
                    if known < Int64(state.count) {
                        let start = Int(max(0, known))
                        var records = newer
                        if start != state.count - newer.count {
                            if start < state.base { try Self.readPrefix(&state, file: file) }
                            records = try Self.records(in: start..<state.count, file: file, state: state)
                        }
                        do throws(Failure) { try catchingUp(records) } catch { return .failure(.refused(error)) }
                    }
                    let planned: [[Record]]
                    do throws(AppendFailure<Failure>) {
                        planned = try planBatches(
                            after: Int64(state.count), count: count,
                            isTaken: { (id) throws(EventLogError) in
                                try Self.records(forCommandID: id, file: file, state: &state) != nil
                            },
                            check: { (batch) throws(EventLogError) in try encoder.refuseLinesTooLong(in: batch) },
                            catchingUp: catchingUp, deciding: deciding)
                    } catch {
                        return .failure(error)
                    }
                    guard !planned.isEmpty else { return .success([]) }
                    var bytes: [UInt8] = []
                    var lineStarts: [Int] = []
                    for records in planned {
                        for record in records {
                            lineStarts.append(state.size + bytes.count)
                            encoder.encode(record, into: &bytes)
                        }
                    }
                    do throws(EventLogError) {
                        try file.write(bytes, at: state.size)
                        try file.sync()
                    } catch {
                        let undone = Result { () throws(EventLogError) in
                            try file.truncate(to: state.size)
                            try file.sync()
                        }
                        if case .failure = undone, case .io(_, let operation, let code) = error {
                            throw .appendMayHaveLanded(path: path, operation: operation, code: code)
                        }
                        throw error
                    }
                    var first = 0
                    for records in planned {
                        if let id = records[0].commandID {
                            state.commands[CommandKey(id)] = state.count..<(state.count + records.count)
                        }
                        state.offsets.append(contentsOf: Array(lineStarts[first..<(first + records.count)]))
                        first += records.count
                    }
                    state.size += bytes.count
                    state.mark = try PrefixMark(file, size: state.size)
                    return .success(planned.flatMap { $0 })
                }
            } catch {
                return .failure(.log(error))
            }
        }
        return try outcome.get()
    }

    /// Writes a batch after the log's last record, durably, and notes where its lines are.
    /// On a failure nothing of the batch stays; when even undoing it fails, the error says
    /// that the batch may be in the log.
    private func write(_ facts: [Fact], options: AppendOptions, file: SystemFile,
                       state: inout State) throws(EventLogError) -> AppendResult {
        let batch = RecordBatch(facts: facts, after: Int64(state.count), options: options)
        // A command's batch is encoded in one buffer, kept for the next; a big one in parts.
        let inOneBuffer = facts.count < Self.recordsPerEncodedPart
        // A line too long is refused before anything is written: once a group of a big
        // batch is written, only truncating takes it back.
        try encoder.refuseLinesTooLong(in: batch)
        var lineStarts: [Int] = []
        lineStarts.reserveCapacity(facts.count)
        var written = 0
        if inOneBuffer {
            state.buffer.removeAll(keepingCapacity: true)
            for offset in facts.indices {
                lineStarts.append(state.size + state.buffer.count)
                encoder.encode(batch, at: offset, into: &state.buffer)
            }
        }
        let writer = inOneBuffer ? nil : GroupWriter(file: file)
        do {
            if let writer {
                // A big batch (an import's) is encoded a group of parts at a time, on every
                // processor, and each group is written, on a thread of its own, while the
                // next is encoded, the disk told to start on it: the sync below then waits
                // for the last group, not for the whole batch. No buffer of the whole batch
                // is kept, only the group being written and the one being encoded.
                for groupStart in stride(from: 0, to: facts.count, by: Self.recordsPerWrittenGroup) {
                    let group = groupStart..<min(groupStart + Self.recordsPerWrittenGroup, facts.count)
                    let groupOffset = state.size + written
                    let parts = encodedParts(of: batch, group)
                    for part in parts {
                        lineStarts += part.starts.lazy.map { $0 + state.size + written }
                        written += part.bytes.count
                    }
                    try writer.write(parts.map(\.bytes), at: groupOffset)
                }
                try writer.finish()
            } else {
                try file.write(state.buffer, at: state.size)
                written = state.buffer.count
            }
        } catch {
            // No write of the batch may land after the truncation.
            writer?.waitForAll()
            // Part of the batch may be in the file: an unfinished batch, which the next
            // writer cuts off as a torn tail (to the side file) if it stays.
            try? file.truncate(to: state.size)
            throw error
        }
        do {
            try file.sync()
        } catch {
            // The whole batch was written but may not be durable. Take it back; if that
            // fails too, the batch may well be in the log, and a retry would append it
            // twice: the error must say so.
            let undone = Result { () throws(EventLogError) in
                try file.truncate(to: state.size)
                try file.sync()
            }
            if case .failure = undone {
                guard case .io(_, let operation, let code) = error else { throw error }
                throw .appendMayHaveLanded(path: path, operation: operation, code: code)
            }
            throw error
        }
        state.size += written
        state.mark = try PrefixMark(file, size: state.size)
        if let id = options.commandID {
            state.commands[CommandKey(id)] = state.count..<(state.count + facts.count)
        }
        state.offsets.append(contentsOf: lineStarts)
        // A command's records are returned as they are (most hold the caller's array of one
        // fact); a big batch's are made from the facts only if they are read.
        return inOneBuffer ? AppendResult(records: batch.records, wasDuplicate: false) : AppendResult(appended: batch)
    }

    /// How many records each part of a big batch's lines holds (an import's, not a
    /// command's); a smaller batch is encoded in one buffer, kept for the next.
    package static let recordsPerEncodedPart = 16_384

    /// How many records of a big batch are encoded, at the same time, before they are
    /// written: about 10 MB of lines, a part or more for each processor of a small machine.
    package static let recordsPerWrittenGroup = 4 * recordsPerEncodedPart

    /// The lines of the records of `batch` at `offsets`, in parts encoded on every
    /// processor, each with where its lines start in it. The lines' lengths were checked
    /// (``RecordEncoder/refuseLinesTooLong(in:)``).
    private func encodedParts(of batch: RecordBatch, _ offsets: Range<Int>) -> [(bytes: [UInt8], starts: [Int])] {
        let encoder = encoder
        let count = (offsets.count + Self.recordsPerEncodedPart - 1) / Self.recordsPerEncodedPart
        return concurrentMap(count) { part in
            let range = (offsets.lowerBound + part * offsets.count / count)
                ..< (offsets.lowerBound + (part + 1) * offsets.count / count)
            var bytes: [UInt8] = []
            // Room for lines of a typical length, so that the part is rarely copied as it grows.
            bytes.reserveCapacity(range.count * 192)
            var starts: [Int] = []
            starts.reserveCapacity(range.count)
            for offset in range {
                starts.append(bytes.count)
                encoder.encode(batch, at: offset, into: &bytes)
            }
            return (bytes: bytes, starts: starts)
        }
    }
}

extension RecordEncoder {
    /// Throws ``EventLogError/recordTooLong(length:limit:)`` for the first record of
    /// `batch` whose line would be longer than the reader accepts, on every processor:
    /// only a record whose bound (``RecordEncoder/lineLengthBound(of:recordedAt:commandID:)``)
    /// is over the limit is encoded to tell.
    /// - Complexity: O(*n*) for *n* facts, plus the length of the lines encoded.
    package func refuseLinesTooLong(in batch: RecordBatch) throws(EventLogError) {
        let limit = LogReader.maximumLineLength
        let (recordedAt, commandID) = (batch.options.recordedAt, batch.options.commandID)
        let parts = (batch.count + FileEventLog.recordsPerEncodedPart - 1) / FileEventLog.recordsPerEncodedPart
        // Each part's first line too long (its length), in the parts' order.
        let found = concurrentMap(parts) { part -> Int? in
            for offset in (part * batch.count / parts)..<((part + 1) * batch.count / parts) {
                guard RecordEncoder.lineLengthBound(of: batch.facts[offset], recordedAt: recordedAt,
                                                    commandID: commandID, submission: batch.options.submission)
                        > limit + 1 else { continue }
                var line: [UInt8] = []
                encode(batch, at: offset, into: &line)
                if line.count - 1 > limit { return line.count - 1 }
            }
            return nil
        }
        if let length = found.lazy.compactMap({ $0 }).first {
            throw .recordTooLong(length: length, limit: limit)
        }
    }

    /// Appends the line of the record of `batch` at `offset` to `bytes`, without making the record.
    fileprivate func encode(_ batch: RecordBatch, at offset: Int, into bytes: inout [UInt8]) {
        encode(batch.facts[offset], position: batch.position(at: offset), recordedAt: batch.options.recordedAt,
               commandID: batch.options.commandID, batchRemainder: batch.remainder(at: offset),
               submission: batch.options.submission, undoes: batch.options.undoes, into: &bytes)
    }
}
