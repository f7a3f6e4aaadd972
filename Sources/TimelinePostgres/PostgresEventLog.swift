#if PostgreSQL
import CLibPQ
import Synchronization
import TimelineCore

/// An event log in a PostgreSQL database: the same records as ``FileEventLog`` writes, one
/// row per record, many logs in one database.
///
/// Tables (created if missing): `timeline_logs` (a row per log: its id, name and head
/// position), `timeline_records` (`log`, `position`, `line`: the record's JSON line, as the
/// file log writes it, checksum included), `timeline_commands` (`log`, `command`, the
/// batch's first and last position; unique per log).
///
/// - An append locks its log's row (`SELECT … FOR UPDATE`), reads what others committed
///   since its caller's position, checks the command id and the expected position, lets
///   the caller decide, then inserts the batch with one statement, moves the head and
///   commits: one transaction. So one log's appends are ordered by that row lock (positions
///   are contiguous, and a reader never sees position n+1 before n), and appends to other
///   logs lock other rows.
/// - ``appendEach(after:count:catchingUp:deciding:)`` (a replica's push) does the same for
///   many batches: one transaction, the lines of all in one statement.
/// - Right after the commit, in the same round trip, a `NOTIFY` on the channel named like
///   the log tells followers; ``watch(_:)`` listens to it.
/// - Every libpq call runs on the calling thread with the connection's lock held: it
///   blocks that thread, as a file log's `fsync` does.
public final class PostgresEventLog: EventLog, RawLineReading, BatchAppending {
    private struct State {
        var connection: PostgresConnection?
        /// The last position this object has seen committed.
        var seen: Int64
    }

    /// Where the log is.
    public let location: PostgresLocation
    /// The log's row id in `timeline_logs`.
    private let id: Int32
    /// The connection, and what this object has seen. A `Mutex` hands the connection to one
    /// thread at a time, as libpq requires.
    private let state: Mutex<State>
    private let encoder = RecordEncoder()
    /// How a commit notifies the log's channel.
    private let notifying: Notifying

    /// How many rows one read fetches at most: reading a long log never holds it whole
    /// in libpq's memory.
    static let chunkRows = 20_000

    /// Opens the log named in `url` (`postgresql://USER@HOST:PORT/DATABASE?log=NAME`),
    /// creating the tables and the log if missing, unless `creating` is `false`: then a
    /// log that is not there is refused with ``noSuchLog`` and nothing is created.
    public convenience init(url: String, creating: Bool = true) throws(EventLogError) {
        try self.init(location: PostgresLocation(url: url), notifying: .afterCommit, creating: creating)
    }

    /// Opens the log at `location`, creating the tables and the log if missing, unless
    /// `creating` is `false` (see ``init(url:creating:)``).
    public convenience init(location: PostgresLocation, creating: Bool = true) throws(EventLogError) {
        try self.init(location: location, notifying: .afterCommit, creating: creating)
    }

    /// The message of the ``EventLogError/database(log:message:)`` that opening without
    /// creating throws for a log that is not in the database.
    public static let noSuchLog = "there is no such log in this database"

    /// How an append tells followers of its commit.
    package enum Notifying: Sendable {
        /// `NOTIFY` right after the commit, in the same round trip, in a transaction of
        /// its own that does not wait for its commit record's flush. PostgreSQL holds a
        /// database-wide lock from a notifying transaction's pre-commit until its commit
        /// is done, flush included: notifying inside the appending transaction would
        /// queue the commits of every log one behind another (no group commit). A server
        /// crash between the two transactions loses the notification, but then every
        /// follower loses its connection too, and catches up when it reconnects.
        case afterCommit
        /// `NOTIFY` inside the appending transaction (for measuring what that costs).
        case inTransaction
        /// No `NOTIFY` (for measuring; followers learn of nothing).
        case never
    }

    /// Opens the log named in `url`, its appends notifying as `notifying` says (for
    /// measuring what notifying costs).
    package convenience init(url: String, notifying: Notifying) throws(EventLogError) {
        try self.init(location: PostgresLocation(url: url), notifying: notifying)
    }

    private init(location: PostgresLocation, notifying: Notifying, creating: Bool = true) throws(EventLogError) {
        self.location = location
        self.notifying = notifying
        let connection = try PostgresConnection(location)
        let name = try connection.literal(location.log)
        if !creating {
            // Only a command that creates a log may make its tables or its row: a read of
            // a mistyped name must leave the database as it was.
            let tables = try connection.run("SELECT to_regclass('timeline_logs') IS NOT NULL;")
            let found = tables.last?.text(row: 0, column: 0) == "t"
                ? try connection.run("SELECT id, head FROM timeline_logs WHERE name = \(name);") : []
            guard let row = found.last, row.rowCount == 1, let id = row.text(row: 0, column: 0).flatMap(Int32.init),
                  let head = row.text(row: 0, column: 1).flatMap(Int64.init) else {
                throw .database(log: location.displayName, message: Self.noSuchLog)
            }
            self.id = id
            state = Mutex(State(connection: connection, seen: head))
            return
        }
        // Two first opens at once would race to create the tables: a transaction-scoped
        // advisory lock (one fixed key, used for this only) makes them take turns.
        let results = try connection.run("""
            BEGIN;
            SET LOCAL client_min_messages = warning;
            SELECT pg_advisory_xact_lock(\(Self.schemaLockKey));
            CREATE TABLE IF NOT EXISTS timeline_logs (
                id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                name text NOT NULL UNIQUE,
                head bigint NOT NULL DEFAULT 0);
            CREATE TABLE IF NOT EXISTS timeline_records (
                log integer NOT NULL,
                position bigint NOT NULL,
                line text NOT NULL,
                PRIMARY KEY (log, position));
            CREATE TABLE IF NOT EXISTS timeline_commands (
                log integer NOT NULL,
                command text NOT NULL,
                first bigint NOT NULL,
                last bigint NOT NULL,
                PRIMARY KEY (log, command));
            INSERT INTO timeline_logs (name) VALUES (\(name)) ON CONFLICT (name) DO NOTHING;
            SELECT id, head FROM timeline_logs WHERE name = \(name);
            COMMIT;
            """)
        let row = results[results.count - 2]
        guard row.rowCount == 1, let id = row.text(row: 0, column: 0).flatMap(Int32.init),
              let head = row.text(row: 0, column: 1).flatMap(Int64.init) else {
            throw .database(log: location.displayName, message: "the log's row in timeline_logs is missing")
        }
        self.id = id
        state = Mutex(State(connection: connection, seen: head))
    }

    /// The key of the advisory lock that creating the tables takes ("timeline" in ASCII).
    private static let schemaLockKey: Int64 = 0x7469_6D65_6C69_6E65

    /// The channel a log's commits notify: the log's name (1–63 safe characters, so a
    /// valid quoted identifier).
    static func channel(of log: String) -> String { log }

    /// The position of the last committed record this object has seen.
    public var position: Int64 { state.withLock { $0.seen } }

    /// Closes the connection; later calls fail.
    public func close() {
        state.withLock { $0.connection = nil }
    }

    /// The open connection, reconnected if the server closed it (a restart, a dropped
    /// connection).
    private func connection(_ state: inout State) throws(EventLogError) -> PostgresConnection {
        guard let connection = state.connection else { throw .closed(path: location.displayName) }
        if connection.isBroken { try connection.reset() }
        return connection
    }

    /// Runs `body`; when it fails because the connection was lost (the server restarted
    /// or dropped it since the last call), connects again and runs it once more. Only
    /// for work that is safe to repeat: reads, and an append's first round trip, before
    /// it writes anything.
    private static func again<T>(_ connection: PostgresConnection,
                                 _ body: () throws(EventLogError) -> T) throws(EventLogError) -> T {
        do throws(EventLogError) { return try body() } catch {
            guard connection.isBroken else { throw error }
            try connection.reset()
            return try body()
        }
    }

    // MARK: append

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
        // One round trip: begin, lock the log's row (waiting for an append under way to
        // commit), then read, in the same transaction and after the lock, what was
        // committed after `known` and the records of the command id.
        var sql = "BEGIN; SELECT head FROM timeline_logs WHERE id = \(id) FOR UPDATE;"
        let catchUp = known < .max
        if catchUp {
            sql += " SELECT position, line FROM timeline_records WHERE log = \(id) AND position > \(max(0, known))"
                + " ORDER BY position;"
        }
        if let command = options.commandID {
            let quoted: String
            do throws(EventLogError) { quoted = try connection.literal(command) } catch { return .failure(.log(error)) }
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
            let newer: [Record]
            do throws(EventLogError) { newer = try decode(results[2]) } catch {
                rollback()
                return .failure(.log(error))
            }
            if !newer.isEmpty {
                do throws(Failure) { try catchingUp(newer) } catch {
                    rollback()
                    return .failure(.refused(error))
                }
            }
        }
        if options.commandID != nil, let earlier = results.last, earlier.rowCount > 0 {
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
        var sql = "BEGIN; SELECT head FROM timeline_logs WHERE id = \(id) FOR UPDATE;"
        let catchUp = known < .max
        if catchUp {
            sql += " SELECT position, line FROM timeline_records WHERE log = \(id) AND position > \(max(0, known))"
                + " ORDER BY position;"
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

    // MARK: reads

    private static let afterSQL = "SELECT position, line FROM timeline_records WHERE log = $1 AND position > $2"
        + " ORDER BY position LIMIT \(chunkRows)"

    /// The committed records after `position`, read a chunk of rows at a time.
    /// - Complexity: O(*k*) for the *k* records returned.
    public func records(after position: Int64) throws(EventLogError) -> [Record] {
        var all: [Record] = []
        try forEachChunk(after: position) { records in
            all += records
            return true
        }
        return all
    }

    /// Hands the committed records after `position` to `body` a chunk of rows at a time,
    /// in order, until `body` returns `false`. Each chunk is a query of its own: together
    /// they are a prefix of the log, since rows commit in position order.
    public func forEachChunk(after position: Int64, _ body: ([Record]) -> Bool) throws(EventLogError) {
        var last = max(0, position)
        while true {
            let records: [Record] = try state.withLock { state throws(EventLogError) in
                let connection = try self.connection(&state)
                let result = try Self.again(connection) { () throws(EventLogError) in
                    try connection.run(
                        prepared: "timeline_after", sql: Self.afterSQL, types: [23, 20],
                        values: [Array("\(id)".utf8), Array("\(last)".utf8)], binary: [false, false])
                }
                let records = try decode(result)
                if let end = records.last?.position { state.seen = max(state.seen, end) }
                return records
            }
            guard let end = records.last?.position else { return }
            last = end
            guard body(records), records.count == Self.chunkRows else { return }
        }
    }

    /// The whole log as JSON Lines, byte for byte the lines a file log holds for the same
    /// records (read it with ``LogReader``, write it to a file: it replays to the same rows).
    public func jsonLines() throws(EventLogError) -> [UInt8] {
        var bytes: [UInt8] = []
        var last: Int64 = 0
        while true {
            let (rows, end): (Int, Int64) = try state.withLock { state throws(EventLogError) in
                let connection = try self.connection(&state)
                let result = try Self.again(connection) { () throws(EventLogError) in
                    try connection.run(
                        prepared: "timeline_after", sql: Self.afterSQL, types: [23, 20],
                        values: [Array("\(id)".utf8), Array("\(last)".utf8)], binary: [false, false])
                }
                for row in 0..<result.rowCount {
                    bytes.append(contentsOf: result.bytes(row: row, column: 1))
                    bytes.append(0x0A)
                }
                let end = result.rowCount > 0 ? result.text(row: result.rowCount - 1, column: 0).flatMap(Int64.init) : nil
                return (result.rowCount, end ?? last)
            }
            last = end
            guard rows == Self.chunkRows else { return bytes }
        }
    }

    /// The committed records after `position` and their lines as the database stores them,
    /// each followed by a newline: what a replica's mirror copies byte for byte.
    /// - Complexity: O(*k*) for the *k* records returned.
    package func committedLines(after position: Int64) throws(EventLogError) -> (records: [Record], bytes: [UInt8]) {
        var records: [Record] = []
        var bytes: [UInt8] = []
        var last = max(0, position)
        while true {
            let count: Int = try state.withLock { state throws(EventLogError) in
                let connection = try self.connection(&state)
                let result = try Self.again(connection) { () throws(EventLogError) in
                    try connection.run(
                        prepared: "timeline_after", sql: Self.afterSQL, types: [23, 20],
                        values: [Array("\(id)".utf8), Array("\(last)".utf8)], binary: [false, false])
                }
                let chunk = try decode(result)
                for row in 0..<result.rowCount {
                    bytes.append(contentsOf: result.bytes(row: row, column: 1))
                    bytes.append(0x0A)
                }
                records += chunk
                if let end = chunk.last?.position { state.seen = max(state.seen, end) }
                return chunk.count
            }
            guard let end = records.last?.position, count == Self.chunkRows else { return (records, bytes) }
            last = end
        }
    }

    /// The records a command with this id appended, or `nil`.
    public func records(forCommandID id: String) throws(EventLogError) -> [Record]? {
        try state.withLock { state throws(EventLogError) -> [Record]? in
            let connection = try self.connection(&state)
            let result = try Self.again(connection) { () throws(EventLogError) in
                try connection.run(
                    prepared: "timeline_command",
                    sql: "SELECT r.position, r.line FROM timeline_commands c JOIN timeline_records r"
                        + " ON r.log = c.log AND r.position BETWEEN c.first AND c.last"
                        + " WHERE c.log = $1 AND c.command = $2 ORDER BY r.position",
                    types: [23, 25], values: [Array("\(self.id)".utf8), Array(id.utf8)], binary: [false, false])
            }
            let records = try decode(result)
            return records.isEmpty ? nil : records
        }
    }

    // MARK: resume points

    /// What the database says of the record at `position`: the database's id, and the
    /// record's line (without its newline) if there is one.
    private func saved(at position: Int64) throws(EventLogError) -> (database: String, line: [UInt8]?) {
        try state.withLock { state throws(EventLogError) -> (database: String, line: [UInt8]?) in
            let connection = try self.connection(&state)
            let result = try Self.again(connection) { () throws(EventLogError) in
                try connection.run(
                    prepared: "timeline_resume",
                    sql: "SELECT (SELECT oid FROM pg_database WHERE datname = current_database())::text,"
                        + " (SELECT line FROM timeline_records WHERE log = $1 AND position = $2)",
                    types: [23, 20], values: [Array("\(self.id)".utf8), Array("\(position)".utf8)],
                    binary: [false, false])
            }
            guard result.rowCount == 1, let database = result.text(row: 0, column: 0) else {
                throw .database(log: location.displayName, message: "the database's id is missing")
            }
            let line = result.text(row: 0, column: 1) == nil ? nil : Array(result.bytes(row: 0, column: 1))
            return (database, line)
        }
    }

    /// The identity a resume point of this log names: the database, the log's row and name.
    private func identity(database: String) -> [UInt8] {
        Array("\(database)/\(id)/\(location.log)".utf8)
    }

    /// Where the log stands at `position`, for a checkpoint: the database, the log, and the
    /// length and CRC-32C of the record's line, which must be the last of its batch.
    public func resumePoint(at position: Int64) throws(EventLogError) -> LogResumePoint? {
        guard position >= 0 else { return nil }
        let (database, line) = try saved(at: position)
        var writer = ByteWriter()
        writer.write(ResumePointKind.postgres.rawValue)
        let identity = identity(database: database)
        writer.write(UInt32(identity.count))
        writer.bytes += identity
        if position > 0 {
            guard let line else { return nil }
            let record: Record
            do { record = try RecordDecoder().decode(line: line, lineNumber: Int(position), expectedPosition: position) } catch {
                throw .invalidLine(path: location.displayName, line: Int(position), reason: "record \(position): \(error.reason)")
            }
            guard record.batchRemainder == 0 else { return nil }
            writer.write(UInt32(line.count))
            writer.write(CRC32C.checksum(line))
        }
        return LogResumePoint(position: position, bytes: writer.bytes)
    }

    /// Why `point` does not continue this log: made for another kind of log, another
    /// database or log, or the record at its position is not the one it saw.
    public func resumeProblem(at point: LogResumePoint) throws(EventLogError) -> String? {
        let (database, line) = try saved(at: point.position)
        var expected = [ResumePointKind.postgres.rawValue]
        let identity = identity(database: database)
        withUnsafeBytes(of: UInt32(identity.count).littleEndian) { expected += $0 }
        expected += identity
        guard point.bytes.starts(with: expected) else {
            return point.bytes.first == ResumePointKind.postgres.rawValue
                ? "it was made for another PostgreSQL log" : "it was made for another kind of log"
        }
        guard point.position > 0 else { return point.bytes.count == expected.count ? nil : "it is damaged" }
        guard let line else {
            return "the log has no record at position \(point.position): it was emptied or replaced"
        }
        withUnsafeBytes(of: UInt32(line.count).littleEndian) { expected += $0 }
        withUnsafeBytes(of: CRC32C.checksum(line).littleEndian) { expected += $0 }
        guard point.bytes == expected else {
            return "the record at position \(point.position) is not the one the checkpoint saw: the log was replaced"
        }
        return nil
    }

    /// The records of a result whose columns are a position and a line, in order; the
    /// positions must follow each other.
    private func decode(_ result: QueryResult) throws(EventLogError) -> [Record] {
        let count = result.rowCount
        guard count > 0 else { return [] }
        guard let first = result.text(row: 0, column: 0).flatMap(Int64.init) else {
            throw .database(log: location.displayName, message: "a record's position is missing")
        }
        var records: [Record] = []
        records.reserveCapacity(count)
        let decoder = RecordDecoder()
        for row in 0..<count {
            let position = first + Int64(row)
            do {
                records.append(try decoder.decode(line: result.bytes(row: row, column: 1), lineNumber: Int(position),
                                                  expectedPosition: position))
            } catch {
                throw .invalidLine(path: location.displayName, line: Int(position),
                                   reason: "record \(position): \(error.reason)")
            }
        }
        return records
    }

    // MARK: watch

    /// Calls `changed`, on a thread of its own, whenever a commit notifies the log's
    /// channel, and after a lost connection is made again; see ``EventLog/watch(_:)``.
    /// Returns once the watch listens: a catch-up read after that misses nothing.
    public func watch(_ changed: @escaping @Sendable () -> Void) throws(EventLogError) -> LogWatch {
        try PostgresFollower.start(location: location, changed: changed)
    }
}

extension EventLogError {
    /// The message of a database error (the whole description otherwise).
    var databaseMessage: String {
        if case .database(_, let message) = self { return message }
        return description
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
