#if PostgreSQL
import Synchronization
import TimelineCore

extension PostgresEventLog {
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
}
#endif
