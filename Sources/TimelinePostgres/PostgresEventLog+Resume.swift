#if PostgreSQL
import Synchronization
import TimelineCore

extension PostgresEventLog {
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
}
#endif
