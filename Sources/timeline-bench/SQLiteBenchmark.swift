import Foundation
import SystemShim
import TimelineCore
import TimelineKit
import TimelineProjections

/// Measurement 12: Timeline beside SQLite, the engine a user would pick instead (GRDB, Core
/// Data). The rows of the generated store go into an SQLite table with an index on the row
/// order (and one on the date), through the `sqlite3` command (Debian's `sqlite3` package;
/// nothing is linked into the package). Each side as an app holds it: an open store; one
/// `sqlite3` process fed statements through a pipe, in WAL mode with `synchronous=FULL`
/// (as durable as the store's fsync). Opening is from nothing on both sides: a store from
/// its checkpoint, a new `sqlite3` process (its start, about a millisecond, included).
struct SQLiteBenchmark {
    struct Result {
        /// Opening, then the first 100 rows of the timeline's view.
        var openTimeline = Samples(), openSQLite = Samples()
        /// The first 100 rows again, opened already.
        var firstRowsTimeline = Samples(), firstRowsSQLite = Samples()
        /// One durable insert, then the first rows as they are after it: the change set a
        /// store pushes, a query SQLite answers again.
        var changeTimeline = Samples(), changeSQLite = Samples()
        /// The rows of a range of dates (about a thousand rows).
        var rangeTimeline = Samples(), rangeSQLite = Samples()
        /// The records of the log, the rows in the table, and those of the measured timeline.
        var records = 0, rows = 0, timelineRows = 0
    }

    /// `sqlite3` on the `PATH`, if there is one.
    static func executable() -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/sqlite3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    let sqlite: String
    let storePath: String
    let records: Int
    let directory: TemporaryDirectory
    let runs: Int
    let log: @Sendable (String) -> Void

    static let firstRows = 100
    static let view = BenchViews.timeline
    static let timeline = WorkloadModel.viewTimeline.rawValue

    func run() async throws -> Result {
        var result = Result()
        result.records = records
        let path = directory.file("sqlite-store.jsonl")
        for file in [path, path + ".checkpoint"] { try? FileManager.default.removeItem(atPath: file) }
        try FileManager.default.copyItem(atPath: storePath, toPath: path)
        log("sqlite: a full replay, to write the checkpoint and the table's rows")
        let rows: RowList
        do {
            let store = try TimelineStore(path: path, clock: ManualClock(BenchViews.now), views: [BenchViews.all])
            try await store.saveCheckpoint()
            rows = await store.snapshot(BenchViews.all).rows
            store.log.close()
        }
        result.rows = rows.count
        let database = directory.file("rows.sqlite")
        try writeTable(rows, to: database)

        // Ranks are the rows' places in the store's order, with room between them for the
        // rows inserted later; the range is about a thousand rows of the timeline's view.
        let ours = rows.filter { $0.timeline.rawValue == Self.timeline }
        result.timelineRows = ours.count
        let middle = ours.count / 2
        guard ours.count > 2_100, let from = ours[middle].date, let to = ours[middle + 1_000].date else {
            throw BenchFailure("the timeline \(Self.timeline) has too few dated rows for a range")
        }
        let query = "SELECT event, title, kind, date FROM rows WHERE timeline = '\(Self.timeline)' ORDER BY rank"
        let first = query + " LIMIT \(Self.firstRows);"
        let range = "SELECT event, title, kind, date FROM rows WHERE timeline = '\(Self.timeline)' AND date >= "
            + "'\(from.text)' AND date <= '\(to.text)' ORDER BY rank;"

        // Opening, from nothing, alternately.
        for run in 0..<runs {
            log("sqlite: opening, run \(run + 1) of \(runs)")
            result.openTimeline.append(nanoseconds: try await MonotonicClock.measureAsync {
                let store = try TimelineStore(path: path, clock: ManualClock(BenchViews.now), views: [Self.view])
                precondition(store.openingReport.checkpointPosition != nil, "the checkpoint was not used")
                let shown = await store.snapshot(Self.view).rows.prefix(Self.firstRows).count
                precondition(shown == Self.firstRows)
                store.log.close()
            })
            result.openSQLite.append(nanoseconds: try MonotonicClock.measure { () throws(BenchFailure) in
                let output = try SQLiteSession.runOnce(sqlite, database: database, first)
                guard output.split(separator: "\n").count == Self.firstRows else {
                    throw BenchFailure("sqlite3 answered \(output.prefix(200))")
                }
            }.nanoseconds)
        }

        // Opened already: the first rows, a change, a range.
        let store = try TimelineStore(path: path, clock: ManualClock(BenchViews.now), views: [Self.view])
        defer { store.log.close() }
        var changes = await store.changes(Self.view).makeAsyncIterator()
        _ = await changes.next()  // the current rows
        let session = try SQLiteSession(sqlite, database: database)
        defer { session.close() }
        _ = try session.answer("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;")
        let early = try DateValue(parsing: "1900-01-01")
        let samples = max(runs * 10, 30)
        for sample in 0..<samples {
            if sample % 10 == 0 { log("sqlite: opened, sample \(sample + 1) of \(samples)") }
            result.firstRowsTimeline.append(nanoseconds: await MonotonicClock.measureAsync {
                let shown = await store.snapshot(Self.view).rows.prefix(Self.firstRows).count
                precondition(shown == Self.firstRows)
            })
            result.firstRowsSQLite.append(nanoseconds: try MonotonicClock.measure { () throws(BenchFailure) in
                _ = try session.answer(first)
            }.nanoseconds)

            // An event dated before every other, so that it is among the first rows.
            let id = EventID("sqlite-\(sample)")
            result.changeTimeline.append(nanoseconds: try await MonotonicClock.measureAsync {
                _ = try await store.send(.addEvent(id, timeline: WorkloadModel.viewTimeline, title: "Inserted",
                                                   dates: .single(early)))
                _ = await changes.next()
            })
            let rank = -Double(sample + 1)
            result.changeSQLite.append(nanoseconds: try MonotonicClock.measure { () throws(BenchFailure) in
                _ = try session.answer("INSERT INTO rows VALUES (\(rank), '\(id.rawValue)', '\(Self.timeline)', "
                    + "'Inserted', 'single', '\(early.text)'); " + first)
            }.nanoseconds)

            var found = 0
            result.rangeTimeline.append(nanoseconds: await MonotonicClock.measureAsync {
                let rows = await store.snapshot(Self.view).rows
                // The view is in date order: the range's first row by bisection, then on.
                var low = rows.startIndex, high = rows.endIndex
                while low < high {
                    let mid = (low + high) / 2
                    if let date = rows[mid].date, date < from { low = mid + 1 } else { high = mid }
                }
                found = 0
                var index = low
                while index < rows.endIndex, let date = rows[index].date, date <= to {
                    found += 1
                    index += 1
                }
            })
            precondition(found >= 1_000, "the range holds \(found) rows")
            result.rangeSQLite.append(nanoseconds: try MonotonicClock.measure { () throws(BenchFailure) in
                _ = try session.answer(range)
            }.nanoseconds)
        }
        return result
    }

    /// The table `rows` (rank, event, timeline, title, kind, date), from CSV through
    /// `.import`, with its indexes made after the rows are in.
    private func writeTable(_ rows: RowList, to database: String) throws {
        log("sqlite: writing \(Formatting.count(rows.count)) rows into an SQLite table")
        try? FileManager.default.removeItem(atPath: database)
        let csv = directory.file("rows.csv")
        var text = ""
        text.reserveCapacity(rows.count * 64)
        func quoted(_ field: String) -> String { "\"" + field.replacing("\"", with: "\"\"") + "\"" }
        for (rank, row) in rows.enumerated() {
            text += "\(rank * 16),\(quoted(row.event.rawValue)),\(quoted(row.timeline.rawValue)),\(quoted(row.title)),"
                + "\(row.kind.rawValue),\(row.date?.text ?? "")\n"
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: csv))
        _ = try SQLiteSession.runOnce(sqlite, database: database, """
            CREATE TABLE rows (rank REAL NOT NULL, event TEXT NOT NULL, timeline TEXT NOT NULL, title TEXT NOT NULL,
                               kind TEXT NOT NULL, date TEXT);
            .mode csv
            .import \(csv) rows
            UPDATE rows SET date = NULL WHERE date = '';
            CREATE INDEX rows_in_order ON rows (timeline, rank);
            CREATE INDEX rows_by_date ON rows (timeline, date);
            PRAGMA journal_mode = WAL;
            """)
        try? FileManager.default.removeItem(atPath: csv)
    }

    /// This measurement's rows of the comparison table.
    static func add(_ result: Result, to comparison: inout ReportTable, size: String) {
        func row(_ name: String, _ ours: Samples, _ theirs: Samples, _ baseline: String) {
            comparison.add("12", name, size: size, Figure(.duration, ours), baseline: baseline,
                           Figure(.duration, theirs))
        }
        row("open + first \(firstRows) rows of a timeline (store from its checkpoint)", result.openTimeline,
            result.openSQLite, "SQLite: a new sqlite3 process, LIMIT \(firstRows)")
        row("first \(firstRows) rows, store open", result.firstRowsTimeline, result.firstRowsSQLite,
            "SQLite: the same query, database open")
        row("durable insert → first rows as they are (change set)", result.changeTimeline, result.changeSQLite,
            "SQLite: INSERT (WAL, synchronous=FULL), query again")
        row("rows of a range of dates (~1,000)", result.rangeTimeline, result.rangeSQLite,
            "SQLite: WHERE date BETWEEN, index on (timeline, date)")
    }

    /// The bars of the issue: ahead of SQLite on what follows a change; no worse than 2×
    /// on opening.
    static func targets(_ result: Result?) -> ReportTable {
        var targets = ReportTable.targets()
        let names = ["a durable insert → first rows: ahead of SQLite", "open + first rows: ≤ 2× SQLite"]
        guard let result else {
            for name in names { targets.add(name, measured: "not measured (no sqlite3 on the PATH)", met: nil) }
            return targets
        }
        let at = result.records >= 1_000_000 ? "" : " (at \(Formatting.size(result.records)) records)"
        for (name, ours, theirs, bound) in [(names[0], result.changeTimeline, result.changeSQLite, 1.0),
                                            (names[1], result.openTimeline, result.openSQLite, 2.0)] {
            let (factor, text) = Figure(.duration, ours).ratio(to: Figure(.duration, theirs))
            targets.add(name, measured: text + at, met: factor.isFinite ? factor <= bound : nil)
        }
        return targets
    }
}

/// One `sqlite3` process, kept open, fed statements on its standard input; each answer
/// read up to a marker line the statements are followed by.
final class SQLiteSession {
    private let process = Process()
    private let input = Pipe(), output = Pipe()
    private var buffer: [UInt8] = []
    static let marker = "--answered--"

    init(_ executable: String, database: String) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-batch", "-bail", database]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// What `sql` prints, once it has run.
    func answer(_ sql: String) throws(BenchFailure) -> String {
        let bytes = Array((sql + "\nSELECT '\(Self.marker)';\n").utf8)
        let written = bytes.withUnsafeBytes { write(input.fileHandleForWriting.fileDescriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw BenchFailure("sqlite3 took \(written) of \(bytes.count) bytes") }
        let end = Array((Self.marker + "\n").utf8)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if buffer.count >= end.count, buffer.suffix(end.count).elementsEqual(end) {
                let text = String(decoding: buffer.dropLast(end.count), as: UTF8.self)
                buffer.removeAll(keepingCapacity: true)
                return text
            }
            let count = chunk.withUnsafeMutableBytes { read(output.fileHandleForReading.fileDescriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BenchFailure("sqlite3 ended (\(String(decoding: buffer, as: UTF8.self)))") }
            buffer += chunk.prefix(count)
        }
    }

    func close() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Runs `sql` in a new `sqlite3` process on `database`, and returns what it printed.
    static func runOnce(_ executable: String, database: String, _ sql: String) throws(BenchFailure) -> String {
        let session: SQLiteSession
        do { session = try SQLiteSession(executable, database: database) } catch {
            throw BenchFailure("could not start \(executable): \(error)")
        }
        defer { session.close() }
        return try session.answer(sql)
    }
}
