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
    struct State {
        var connection: PostgresConnection?
        /// The last position this object has seen committed.
        var seen: Int64
    }

    /// Where the log is.
    public let location: PostgresLocation
    /// The log's row id in `timeline_logs`.
    let id: Int32
    /// The connection, and what this object has seen. A `Mutex` hands the connection to one
    /// thread at a time, as libpq requires.
    let state: Mutex<State>
    let encoder = RecordEncoder()
    /// How a commit notifies the log's channel.
    let notifying: Notifying

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
    func connection(_ state: inout State) throws(EventLogError) -> PostgresConnection {
        guard let connection = state.connection else { throw .closed(path: location.displayName) }
        if connection.isBroken { try connection.reset() }
        return connection
    }

    /// Runs `body`; when it fails because the connection was lost (the server restarted
    /// or dropped it since the last call), connects again and runs it once more. Only
    /// for work that is safe to repeat: reads, and an append's first round trip, before
    /// it writes anything.
    static func again<T>(_ connection: PostgresConnection,
                         _ body: () throws(EventLogError) -> T) throws(EventLogError) -> T {
        do throws(EventLogError) { return try body() } catch {
            guard connection.isBroken else { throw error }
            try connection.reset()
            return try body()
        }
    }

    /// The records of a result whose columns are a position and a line, in order; the
    /// positions must follow each other.
    func decode(_ result: QueryResult) throws(EventLogError) -> [Record] {
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
#endif
