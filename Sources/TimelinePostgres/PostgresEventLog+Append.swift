#if PostgreSQL
import Synchronization
import TimelineCore

extension PostgresEventLog {
    /// Appends a batch decided under the log's row lock, in one transaction; see
    /// ``EventLog/append(after:options:catchingUp:deciding:)``.
    ///
    /// When the connection is lost while the commit is under way, the error says that the
    /// batch may be in the log: a command id makes sending it again safe.
    public func append<Failure: Error>(
        after known: Int64, options: AppendOptions,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: () throws(Failure) -> [Fact]
    ) throws(AppendFailure<Failure>) -> AppendResult {
        let outcome: Result<AppendResult, AppendFailure<Failure>> = state.withLock { state in
            let connection: PostgresConnection
            do throws(EventLogError) { connection = try self.connection(&state) } catch { return .failure(.log(error)) }
            let result = append(connection, after: known, options: options, catchingUp: catchingUp, deciding: deciding)
            if case .success(let appended) = result, let last = appended.records.last?.position {
                state.seen = max(state.seen, last)
            }
            return result
        }
        return try outcome.get()
    }

    private func append<Failure: Error>(
        _ connection: PostgresConnection, after known: Int64, options: AppendOptions,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: () throws(Failure) -> [Fact]
    ) -> Result<AppendResult, AppendFailure<Failure>> {
        func rollback() { _ = try? connection.run("ROLLBACK") }
        let head: Int64, earlier: QueryResult?
        switch begin(connection, after: known, commandID: options.commandID, catchingUp: catchingUp) {
        case .success(let begun): (head, earlier) = begun
        case .failure(let failure): return .failure(failure)
        }
        if let earlier, earlier.rowCount > 0 {
            rollback()
            do throws(EventLogError) { return .success(AppendResult(records: try decode(earlier), wasDuplicate: true)) } catch {
                return .failure(.log(error))
            }
        }
        if let expected = options.expectedPosition, expected != head {
            rollback()
            return .failure(.log(.conflict(expected: expected, actual: head)))
        }
        let facts: [Fact]
        do throws(Failure) { facts = try deciding() } catch {
            rollback()
            return .failure(.refused(error))
        }
        guard !facts.isEmpty else {
            rollback()
            return .success(AppendResult(records: [], wasDuplicate: false))
        }
        let records = Record.batch(of: facts, after: head, options: options)
        do throws(EventLogError) {
            try write([records], after: head, connection: connection)
        } catch {
            rollback()
            return .failure(.log(error))
        }
        if let failure = commit(connection) { return .failure(.log(failure)) }
        return .success(AppendResult(records: records, wasDuplicate: false))
    }

    /// Begins an append's transaction in one round trip: locks the log's row (waiting for
    /// an append under way to commit), then reads, in the same transaction and after the
    /// lock, what was committed after `known` (handed to `catchingUp`) and the records of
    /// `commandID`. Returns the log's head and those records; on a failure the transaction
    /// is rolled back.
    private func begin<Failure: Error>(
        _ connection: PostgresConnection, after known: Int64, commandID: String?,
        catchingUp: ([Record]) throws(Failure) -> Void
    ) -> Result<(head: Int64, earlier: QueryResult?), AppendFailure<Failure>> {
        func rollback() { _ = try? connection.run("ROLLBACK") }
        var sql = "BEGIN; SELECT head FROM timeline_logs WHERE id = \(id) FOR UPDATE;"
        let catchUp = known < .max
        if catchUp {
            sql += " SELECT position, line FROM timeline_records WHERE log = \(id) AND position > \(max(0, known))"
                + " ORDER BY position;"
        }
        if let commandID {
            let quoted: String
            do throws(EventLogError) { quoted = try connection.literal(commandID) } catch { return .failure(.log(error)) }
            sql += " SELECT r.position, r.line FROM timeline_commands c JOIN timeline_records r"
                + " ON r.log = c.log AND r.position BETWEEN c.first AND c.last"
                + " WHERE c.log = \(id) AND c.command = \(quoted) ORDER BY r.position;"
        }
        let results: [QueryResult]
        do throws(EventLogError) {
            results = try Self.again(connection) { () throws(EventLogError) in try connection.run(sql) }
        } catch {
            rollback()
            return .failure(.log(error))
        }
        guard results.count >= 2, results[1].rowCount == 1, let head = results[1].text(row: 0, column: 0).flatMap(Int64.init)
        else {
            rollback()
            return .failure(.log(.database(log: location.displayName, message: "the log's row in timeline_logs is missing")))
        }
        if catchUp {
            do throws(AppendFailure<Failure>) {
                let newer: [Record]
                do throws(EventLogError) { newer = try decode(results[2]) } catch { throw .log(error) }
                if !newer.isEmpty {
                    do throws(Failure) { try catchingUp(newer) } catch { throw .refused(error) }
                }
            } catch {
                rollback()
                return .failure(error)
            }
        }
        return .success((head, commandID == nil ? nil : results.last))
    }

    /// Commits the open transaction and notifies the log's channel; the error, if it did
    /// not commit (or may have: ``EventLogError/commitOutcomeUnknown(log:reason:)``).
    private func commit(_ connection: PostgresConnection) -> EventLogError? {
        do throws(EventLogError) {
            let notify = "NOTIFY \"\(Self.channel(of: location.log))\""
            let committed = try connection.runEach(notifying == .afterCommit
                ? "COMMIT; BEGIN; SET LOCAL synchronous_commit TO off; \(notify); COMMIT" : "COMMIT")
            // A failed notification leaves its own transaction open (the rest of the
            // string is skipped after an error): end it.
            if committed.contains(where: { $0.problem != nil }) { _ = try? connection.run("ROLLBACK") }
            guard let first = committed.first else { throw connection.failure("no answer to COMMIT") }
            if let problem = first.problem { throw .database(log: location.displayName, message: problem) }
            guard first.commandStatus == "COMMIT" else {
                return .database(log: location.displayName, message: "the transaction was rolled back")
            }
            return nil
        } catch {
            guard connection.isBroken else { return error }
            return .commitOutcomeUnknown(log: location.displayName, reason: error.databaseMessage)
        }
    }

    /// Appends several batches in one transaction, the lines of all in one statement; see
    /// ``BatchAppending/appendEach(after:count:catchingUp:deciding:)``. A command id is
    /// looked up in the database once per planned batch.
    package func appendEach<Failure: Error>(
        after known: Int64, count: Int,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: (Int) throws(Failure) -> PlannedBatch?
    ) throws(AppendFailure<Failure>) -> [Record] {
        let outcome: Result<[Record], AppendFailure<Failure>> = state.withLock { state in
            let connection: PostgresConnection
            do throws(EventLogError) { connection = try self.connection(&state) } catch { return .failure(.log(error)) }
            let result = appendEach(connection, after: known, count: count, catchingUp: catchingUp, deciding: deciding)
            if case .success(let appended) = result, let last = appended.last?.position {
                state.seen = max(state.seen, last)
            }
            return result
        }
        return try outcome.get()
    }

    private func appendEach<Failure: Error>(
        _ connection: PostgresConnection, after known: Int64, count: Int,
        catchingUp: ([Record]) throws(Failure) -> Void,
        deciding: (Int) throws(Failure) -> PlannedBatch?
    ) -> Result<[Record], AppendFailure<Failure>> {
        func rollback() { _ = try? connection.run("ROLLBACK") }
        let head: Int64
        switch begin(connection, after: known, commandID: nil, catchingUp: catchingUp) {
        case .success(let begun): head = begun.head
        case .failure(let failure): return .failure(failure)
        }
        let planned: [[Record]]
        do throws(AppendFailure<Failure>) {
            planned = try planBatches(
                after: head, count: count,
                isTaken: { (command) throws(EventLogError) in
                    try self.isTaken(command, connection: connection)
                },
                check: { (batch) throws(EventLogError) in try encoder.refuseLinesTooLong(in: batch) },
                catchingUp: catchingUp, deciding: deciding)
        } catch {
            rollback()
            return .failure(error)
        }
        guard !planned.isEmpty else {
            rollback()
            return .success([])
        }
        do throws(EventLogError) {
            try write(planned, after: head, connection: connection)
        } catch {
            rollback()
            return .failure(.log(error))
        }
        if let failure = commit(connection) { return .failure(.log(failure)) }
        return .success(planned.flatMap { $0 })
    }

    /// Whether a batch of this log has the command id `command`, in the open transaction.
    private func isTaken(_ command: String, connection: PostgresConnection) throws(EventLogError) -> Bool {
        let result = try connection.run(
            prepared: "timeline_command_taken",
            sql: "SELECT 1 FROM timeline_commands WHERE log = $1 AND command = $2",
            types: [23, 25], values: [Array("\(id)".utf8), Array(command.utf8)], binary: [false, false])
        if let problem = result.problem { throw .database(log: location.displayName, message: problem) }
        return result.rowCount > 0
    }

    /// Inserts the lines of `batches` (one statement: the lines as one array, the command
    /// ids as three more), records each batch's command id and moves the head, in the open
    /// transaction.
    private func write(_ batches: [[Record]], after head: Int64, connection: PostgresConnection) throws(EventLogError) {
        let total = batches.reduce(0) { $0 + $1.count }
        // Arrays in binary form: a header (dimensions, no nulls, element type, length,
        // first index), then each element's length and bytes.
        var lines: [UInt8] = []
        lines.reserveCapacity(20 + total * 200)
        for value: Int32 in [1, 0, 25, Int32(total), 1] { lines.appendBigEndian(value) }
        var commands: [[UInt8]] = []
        var firsts: [Int64] = []
        var position = head
        for records in batches {
            if let command = records.first?.commandID {
                commands.append(Array(command.utf8))
                firsts.append(position + 1)
            }
            for record in records {
                let lengthAt = lines.count
                lines.appendBigEndian(Int32(0))
                encoder.encode(record, into: &lines)
                lines.removeLast()  // the newline: a row holds the line without it
                let length = lines.count - lengthAt - 4
                // A line the file log's reader would refuse must never be acknowledged.
                if length > LogReader.maximumLineLength {
                    throw .recordTooLong(length: length, limit: LogReader.maximumLineLength)
                }
                withUnsafeBytes(of: Int32(length).bigEndian) { lines.replaceSubrange(lengthAt..<(lengthAt + 4), with: $0) }
            }
            if records.first?.commandID != nil { firsts.append(position + Int64(records.count)) }
            position += Int64(records.count)
        }
        var names: [UInt8] = []
        for value: Int32 in [1, 0, 25, Int32(commands.count), 1] { names.appendBigEndian(value) }
        for command in commands {
            names.appendBigEndian(Int32(command.count))
            names.append(contentsOf: command)
        }
        // `firsts` holds each command's first and last position, in turn.
        var ranges: [UInt8] = []
        for value: Int32 in [1, 0, 20, Int32(firsts.count), 1] { ranges.appendBigEndian(value) }
        for value in firsts {
            ranges.appendBigEndian(Int32(8))
            ranges.appendBigEndian(value)
        }
        let result = try connection.run(
            prepared: notifying == .inTransaction ? "timeline_append_notifying" : "timeline_append",
            sql: """
                WITH new AS (
                    INSERT INTO timeline_records (log, position, line)
                    SELECT $1, $2 + t.n, t.line FROM unnest($3::text[]) WITH ORDINALITY AS t(line, n)
                ), command AS (
                    INSERT INTO timeline_commands (log, command, first, last)
                    SELECT $1, c.command, ($5::int8[])[2 * c.n - 1], ($5::int8[])[2 * c.n]
                    FROM unnest($4::text[]) WITH ORDINALITY AS c(command, n)
                )
                UPDATE timeline_logs SET head = $2 + $6 WHERE id = $1 RETURNING \(notifying == .inTransaction ? "pg_notify($7, '')" : "$7")
                """,
            types: [23, 20, 1009, 1009, 1016, 20, 25],
            values: [Array("\(id)".utf8), Array("\(head)".utf8), lines, names, ranges,
                     Array("\(total)".utf8), Array(Self.channel(of: location.log).utf8)],
            binary: [false, false, true, true, true, false, false])
        guard result.rowCount == 1 else {
            throw .database(log: location.displayName, message: "the log's row in timeline_logs is missing")
        }
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: Int64) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    mutating func appendBigEndian(_ value: Int32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
#endif
