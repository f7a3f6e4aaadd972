#if PostgreSQL
import CLibPQ
import TimelineCore

/// One libpq connection, closed when released.
///
/// libpq allows one thread at a time on a connection (`PGconn` is not `Sendable`), so each
/// connection has one owner: a log's `Mutex`, which lends it to one thread at a time, or
/// a follower's thread, the only one that uses it. `@unchecked Sendable` is safe under that
/// rule; it is needed because a log calls its caller's (non-`Sendable`) closures while it
/// holds the connection under its lock, which the compiler cannot tell from sharing it.
final class PostgresConnection: @unchecked Sendable {
    private(set) var handle: OpaquePointer
    /// The name of the log in messages (the URL without its password).
    let logName: String
    private let location: PostgresLocation
    /// Whether the prepared statements of this session exist (a reset forgets them).
    var prepared: Set<String> = []

    /// Connects, or throws with libpq's reason (passwords scrubbed).
    init(_ location: PostgresLocation) throws(EventLogError) {
        self.location = location
        logName = location.displayName
        guard let handle = PQconnectdb(location.connectionString) else {
            throw .database(log: location.displayName, message: "could not allocate a connection")
        }
        self.handle = handle
        // The server's notices (a ROLLBACK outside a transaction, …) are not for the user:
        // libpq would print them on standard error.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        if PQstatus(handle) != CONNECTION_OK {
            // Every property is set: `deinit` finishes the handle.
            let message = Self.message(handle)
            throw .database(log: location.displayName, message: "cannot connect: " + location.scrub(message))
        }
    }

    deinit { PQfinish(handle) }

    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// The socket to wait on for the server's messages.
    var socket: Int32 { PQsocket(handle) }

    /// Connects again after the server closed the connection or restarted.
    func reset() throws(EventLogError) {
        prepared = []
        PQreset(handle)
        if isBroken { throw failure("cannot reconnect") }
    }

    /// An error for `what`, with the connection's last message.
    func failure(_ what: String) -> EventLogError {
        .database(log: logName, message: what + ": " + location.scrub(Self.message(handle)))
    }

    private static func message(_ handle: OpaquePointer) -> String {
        let text = readable(String(cString: PQerrorMessage(handle)))
        return text.isEmpty ? "no reason given" : text
    }

    /// libpq's text as one message line: its lines (a hint on a line of its own, indented
    /// by a tab) joined by spaces, so that a message built around it does not read as
    /// two, and no whitespace at either end.
    static func readable(_ text: String) -> String {
        var lines: [Substring] = []
        for line in text.replacing("\t", with: " ").split(whereSeparator: \.isNewline) {
            var line = line.drop(while: \.isWhitespace)
            while line.last?.isWhitespace == true { line = line.dropLast() }
            if !line.isEmpty { lines.append(line) }
        }
        return lines.joined(separator: " ")
    }

    /// Frees the notifications libpq has queued (a connection that does not listen gets
    /// none, but they must not pile up if it ever does); the count.
    @discardableResult
    func drainNotifications() -> Int {
        var count = 0
        while let notification = PQnotifies(handle) {
            count += 1
            PQfreemem(notification)
        }
        return count
    }

    /// Runs `sql` (one statement or several, without parameters) and returns each
    /// statement's result; a failed statement throws, with the server's message.
    func run(_ sql: String) throws(EventLogError) -> [QueryResult] {
        let results = try runEach(sql)
        if let problem = results.lazy.compactMap(\.problem).first {
            throw .database(log: logName, message: location.scrub(problem))
        }
        if isBroken { throw failure("connection lost") }
        return results
    }

    /// Runs `sql` and returns each statement's result, failed ones included (after an
    /// error the server skips the rest of the string); throws only when it cannot be sent.
    func runEach(_ sql: String) throws(EventLogError) -> [QueryResult] {
        defer { drainNotifications() }
        guard PQsendQuery(handle, sql) == 1 else { throw failure("cannot send a query") }
        var results: [QueryResult] = []
        while let raw = PQgetResult(handle) { results.append(QueryResult(raw)) }
        return results
    }

    /// Runs the statement prepared as `name` (preparing it with `sql` first if this session
    /// has not) with `values`, sent in text form except those whose `binary` is set.
    func run(prepared name: String, sql: String, types: [UInt32], values: [[UInt8]?], binary: [Bool])
        throws(EventLogError) -> QueryResult {
        defer { drainNotifications() }
        if !prepared.contains(name) {
            let raw = types.withUnsafeBufferPointer { types in
                PQprepare(handle, name, sql, Int32(types.count), types.baseAddress)
            }
            let result = QueryResult(raw)
            if let problem = result.problem { throw .database(log: logName, message: location.scrub(problem)) }
            prepared.insert(name)
        }
        let lengths = values.map { Int32($0?.count ?? 0) }
        let formats = binary.map { Int32($0 ? 1 : 0) }
        // Text values are sent with their length too; libpq reads the length only for
        // binary ones, so text values end with a NUL.
        let buffers: [[UInt8]?] = zip(values, binary).map { value, isBinary in
            guard let value else { return nil }
            return isBinary ? value : value + [0]
        }
        let raw = withPointers(buffers) { pointers in
            PQexecPrepared(handle, name, Int32(values.count), pointers, lengths, formats, 0)
        }
        let result = QueryResult(raw)
        if let problem = result.problem { throw .database(log: logName, message: location.scrub(problem)) }
        return result
    }

    /// Quotes `text` as an SQL string literal for this connection.
    func literal(_ text: String) throws(EventLogError) -> String {
        guard let quoted = PQescapeLiteral(handle, text, text.utf8.count) else { throw failure("cannot quote a value") }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }
}

/// Calls `body` with C pointers to each buffer (NULL for `nil`), valid during the call.
private func withPointers<R>(_ buffers: [[UInt8]?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafePointer<CChar>?] = []
    pointers.reserveCapacity(buffers.count)
    func next(_ index: Int) -> R {
        guard index < buffers.count else { return body(pointers) }
        guard let buffer = buffers[index] else {
            pointers.append(nil)
            return next(index + 1)
        }
        return buffer.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                pointers.append(chars.baseAddress)
                return next(index + 1)
            }
        }
    }
    return next(0)
}

/// A statement's result, freed when released.
final class QueryResult {
    let raw: OpaquePointer?

    init(_ raw: OpaquePointer?) { self.raw = raw }

    deinit { if let raw { PQclear(raw) } }

    /// The server's error, or `nil` when the statement succeeded.
    var problem: String? {
        guard let raw else { return "no result (out of memory or connection lost)" }
        switch PQresultStatus(raw) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY, PGRES_COPY_IN, PGRES_COPY_OUT: return nil
        default:
            // The server's primary message, detail and hint, without the statement it
            // quotes (`LINE 1: SELECT …`): the tool's SQL is nothing a person can act on.
            func field(_ code: Character) -> String? {
                guard let value = PQresultErrorField(raw, Int32(code.asciiValue ?? 0)) else { return nil }
                let text = PostgresConnection.readable(String(cString: value))
                return text.isEmpty ? nil : text
            }
            if let primary = field("M") {
                return primary + (field("D").map { ". " + $0 } ?? "") + (field("H").map { " (" + $0 + ")" } ?? "")
            }
            let text = PostgresConnection.readable(String(cString: PQresultErrorMessage(raw)))
            return text.isEmpty ? "the statement failed" : text
        }
    }

    /// The SQLSTATE code of an error (`23505` for a unique violation).
    var sqlState: String? {
        guard let raw, let code = PQresultErrorField(raw, Int32(UInt8(ascii: "C"))) else { return nil }
        return String(cString: code)
    }

    var rowCount: Int { raw.map { Int(PQntuples($0)) } ?? 0 }

    /// The command's tag: `COMMIT`, or `ROLLBACK` for a commit of a failed transaction.
    var commandStatus: String { raw.map { String(cString: PQcmdStatus($0)) } ?? "" }

    /// The text of a value (`nil` for NULL).
    func text(row: Int, column: Int) -> String? {
        guard let raw, PQgetisnull(raw, Int32(row), Int32(column)) == 0 else { return nil }
        return String(cString: PQgetvalue(raw, Int32(row), Int32(column)))
    }

    /// The bytes of a value, in place, valid while this result lives.
    func bytes(row: Int, column: Int) -> UnsafeRawBufferPointer {
        guard let raw, let value = PQgetvalue(raw, Int32(row), Int32(column)) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: value, count: Int(PQgetlength(raw, Int32(row), Int32(column))))
    }
}
#endif
