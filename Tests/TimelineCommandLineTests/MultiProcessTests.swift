import Foundation
import Testing
import TimelineCore
import TimelineProjections
import TimelineTestSupport
@testable import TimelineCommandLine
import SystemShim

/// A row of `timeline watch --json` or `replay --json`, compared member by member.
typealias JSONRow = NSDictionary

/// One line of `timeline watch --json`, decoded.
struct WatchLine {
    var isReset: Bool
    var from: Int64
    var to: Int64
    var rows: [JSONRow] = []
    var removals: [Int] = []
    var insertions: [(index: Int, row: JSONRow)] = []
    var moves: [(from: Int, to: Int)] = []
    var updates: [(index: Int, row: JSONRow)] = []

    struct Malformed: Error, CustomStringConvertible {
        var line: Substring
        var description: String { "not a line of `timeline watch --json`: \(line)" }
    }

    init(_ line: Substring) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let type = object["type"] as? String, let from = (object["from"] as? NSNumber)?.int64Value,
              let to = (object["to"] as? NSNumber)?.int64Value else { throw Malformed(line: line) }
        self.from = from
        self.to = to
        isReset = type == "reset"
        func indexedRows(_ name: String) throws -> [(index: Int, row: JSONRow)] {
            guard let items = object[name] as? [[String: Any]] else { throw Malformed(line: line) }
            return try items.map { item in
                guard let index = item["index"] as? Int, let row = item["row"] as? NSDictionary else {
                    throw Malformed(line: line)
                }
                return (index, row)
            }
        }
        if isReset {
            guard type == "reset", let rows = object["rows"] as? [NSDictionary] else { throw Malformed(line: line) }
            self.rows = rows
            return
        }
        guard type == "change", let removals = object["removals"] as? [Int],
              let moves = object["moves"] as? [[Int]], moves.allSatisfy({ $0.count == 2 }) else {
            throw Malformed(line: line)
        }
        self.removals = removals
        self.moves = moves.map { ($0[0], $0[1]) }
        insertions = try indexedRows("insertions")
        updates = try indexedRows("updates")
    }

    /// The rows after this line, given the rows before it: removals and move sources in
    /// descending old order, then insertions and move destinations in ascending new
    /// order, then updates by index. Nil, with a reason, where an index is out of range or
    /// used twice.
    func applied(to old: [JSONRow]) -> Result<[JSONRow], IndexProblem> {
        if isReset { return .success(rows) }
        let sources = removals + moves.map(\.from)
        guard Set(sources).count == sources.count else { return .failure(IndexProblem("an old index used twice")) }
        guard sources.allSatisfy({ old.indices.contains($0) }) else {
            return .failure(IndexProblem("an old index out of range"))
        }
        var rows = old
        for index in sources.sorted(by: >) { rows.remove(at: index) }
        let placed = (insertions + moves.map { ($0.to, old[$0.from]) }).sorted { $0.0 < $1.0 }
        guard Set(placed.map(\.0)).count == placed.count else { return .failure(IndexProblem("a new index used twice")) }
        for (index, row) in placed {
            guard index >= 0, index <= rows.count else { return .failure(IndexProblem("a new index out of range")) }
            rows.insert(row, at: index)
        }
        for (index, row) in updates {
            guard rows.indices.contains(index) else { return .failure(IndexProblem("an update out of range")) }
            rows[index] = row
        }
        return .success(rows)
    }

    struct IndexProblem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// The rows `replay --json` prints for `view` after the first `upto` records.
func expectedRows(_ records: [Record], upto: Int64, view: ViewDefinition, now: Instant) throws -> [JSONRow] {
    let projection = TimelineProjection(records: records.prefix(Int(upto)), views: [view], now: now)
    let text = RowPrinter(rows: projection.rows(view) ?? RowList(), sections: Array(projection.sections(view))).json()
    return try text.split(separator: "\n").map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary)
    }
}

/// An acknowledged send of `timeline-stress … shared`: the last position of its batch and its command id.
struct Acknowledged: Hashable {
    var position: Int64
    var commandID: String

    static func parse(_ output: [Substring]) -> [Acknowledged] {
        output.compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let position = Int64(parts[0]) else { return nil }
            return Acknowledged(position: position, commandID: String(parts[1]))
        }
    }
}

/// Checks that every acknowledged batch is in `records` exactly once: the records that
/// carry its command id are one whole batch, ending at the acknowledged position.
func expectEachOnce(_ acknowledged: [Acknowledged], in records: [Record], sourceLocation: SourceLocation = #_sourceLocation) {
    var byCommand: [String: [Record]] = [:]
    for record in records { if let id = record.commandID { byCommand[id, default: []].append(record) } }
    #expect(Set(acknowledged.map(\.position)).count == acknowledged.count, "a position acknowledged twice",
            sourceLocation: sourceLocation)
    for send in acknowledged {
        let batch = byCommand[send.commandID] ?? []
        #expect(batch.last?.position == send.position, "\(send): the log has \(batch.map(\.position))",
                sourceLocation: sourceLocation)
        #expect(batch.first.map { $0.batchRemainder + 1 } == batch.count, "\(send): not one whole batch",
                sourceLocation: sourceLocation)
        #expect(zip(batch, batch.dropFirst()).allSatisfy { $0.position + 1 == $1.position },
                sourceLocation: sourceLocation)
    }
}

@Suite("Many processes on one log", .serialized)
struct MultiProcessTests {
    static let now = "2026-11-29T12:00:00Z"

    /// Six views, as `watch` options and as the projection's definitions.
    static let views: [(arguments: [String], view: ViewDefinition)] = [
        ([], ViewDefinition()),
        (["--order", "desc", "--sections", "year"], ViewDefinition(order: .descending, sections: .year)),
        (["--ongoing", "last"], ViewDefinition(placement: .last)),
        (["--ongoing", "first", "--sections", "month"], ViewDefinition(placement: .first, sections: .month)),
        (["--timeline", "shared"], ViewDefinition(filter: .timeline(TimelineID("shared")))),
        (["--sections", "decade", "--order", "desc", "--ongoing", "last"],
         ViewDefinition(placement: .last, order: .descending, sections: .decade)),
    ]

    /// Every line a watcher printed, checked: the first is a reset, each `from` is the
    /// `to` before it, and the rows rebuilt from the change sets equal a fresh projection
    /// of the log up to that line's `to`. Returns the rows after its last line.
    static func checkWatcher(_ lines: [Substring], view: ViewDefinition, records: [Record], name: String) throws
        -> [JSONRow] {
        let now = try DateValue(parsing: Self.now).instant
        let decoded = try lines.map(WatchLine.init)
        try #require(decoded.first?.isReset == true, "\(name): the first line is not a reset")
        var rows: [JSONRow] = []
        var position: Int64?
        for (number, line) in decoded.enumerated() {
            if let position { #expect(line.from == position, "\(name), line \(number + 1): from \(line.from) after to \(position)") }
            #expect(line.to >= line.from && line.to <= Int64(records.count), "\(name), line \(number + 1)")
            switch line.applied(to: rows) {
            case .success(let next): rows = next
            case .failure(let problem):
                Issue.record("\(name), line \(number + 1): \(problem)")
                return rows
            }
            position = line.to
            let expected = try expectedRows(records, upto: line.to, view: view, now: now)
            #expect(rows as NSArray == expected as NSArray, "\(name), line \(number + 1): rows at \(line.to) differ")
        }
        return rows
    }

    /// Starts one `timeline watch --json` per view on `log`, each with its first line printed.
    static func startWatchers(_ tool: URL, log: String, scratch: String) async throws -> [SpawnedProcess] {
        let watchers = try views.enumerated().map { number, view in
            try SpawnedProcess(tool, ["watch", "--log", log, "--now", now, "--json"] + view.arguments,
                               name: "watch-\(number)", scratch: scratch)
        }
        let started = await eventually(until: .now + .seconds(60)) {
            watchers.allSatisfy { !$0.outputLines.isEmpty || !$0.isRunning }
        }
        for watcher in watchers {
            try #require(started && watcher.isRunning, "a watcher did not start: \(watcher.errors)")
        }
        return watchers
    }

    @Test func twoWritersAndSixFollowersAgreeWithAFreshReplayAtEveryChange() async throws {
        let tool = try #require(toolURL, "timeline not built")
        let stress = try #require(stressToolURL, "timeline-stress not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("shared.jsonl")
        let created = try await timeline(["create-timeline", "--log", log, "--timeline", "shared", "--name", "Shared"])
        try #require(created.status == 0, "\(created)")

        let watchers = try await Self.startWatchers(tool, log: log, scratch: directory.url.path)
        let writers = try [11, 12].map { seed in
            try SpawnedProcess(stress, [log, String(seed), "5", "60", "shared"], name: "writer-\(seed)",
                               scratch: directory.url.path)
        }
        for writer in writers {
            let ended = await writer.waitForExit(until: .now + .seconds(240))
            try #require(ended, "a writer did not finish")
            #expect(writer.exitStatus == 0, "\(writer.errors)")
        }
        let records = try FileEventLog.read(path: log).records
        let now = try DateValue(parsing: Self.now).instant
        // Every follower catches up with the log, then SIGINT ends it with status 0.
        for (watcher, view) in zip(watchers, Self.views) {
            let final = try expectedRows(records, upto: Int64(records.count), view: view.view, now: now)
            let caughtUp = await eventually(until: .now + .seconds(60)) {
                let lines = watcher.outputLines
                guard let last = lines.last, let line = try? WatchLine(last) else { return false }
                return line.to == Int64(records.count) || (try? Self.checkWatcher(
                    lines, view: view.view, records: records, name: "")).map { $0 as NSArray == final as NSArray } == true
            }
            #expect(caughtUp, "watch \(view.arguments) did not catch up")
            watcher.send(SIGINT)
        }
        for (watcher, view) in zip(watchers, Self.views) {
            let ended = await watcher.waitForExit(until: .now + .seconds(30))
            try #require(ended, "watch \(view.arguments) did not end on SIGINT")
            #expect(watcher.exitStatus == 0, "watch \(view.arguments): \(watcher.errors)")
            let rows = try Self.checkWatcher(watcher.outputLines, view: view.view, records: records,
                                             name: "watch \(view.arguments)")
            let final = try expectedRows(records, upto: Int64(records.count), view: view.view, now: now)
            #expect(rows as NSArray == final as NSArray, "watch \(view.arguments): final rows differ")
            #expect(watcher.outputLines.count > 1, "watch \(view.arguments) saw no change")
        }

        let acknowledged = writers.flatMap { Acknowledged.parse($0.outputLines) }
        #expect(acknowledged.count > 60, "too few sends acknowledged: \(acknowledged.count)")
        // Both writers got turns while the other was at work.
        let first = Set(Acknowledged.parse(writers[0].outputLines).map(\.position))
        let positions = acknowledged.map(\.position).sorted()
        #expect(zip(positions, positions.dropFirst()).contains { first.contains($0) != first.contains($1) })
        expectEachOnce(acknowledged, in: records)
        let verified = try await timeline(["verify", "--log", log])
        #expect(verified.status == 0, "\(verified)")
        // Both writers saved checkpoints: a store opened from the one left shows what a replay shows.
        #expect(FileManager.default.fileExists(atPath: log + ".checkpoint"))
        for view in Self.views {
            let rows = try await timeline(["rows", "--log", log, "--now", Self.now, "--json"] + view.arguments)
            let replayed = try await timeline(["replay", log, "--now", Self.now, "--json"] + view.arguments)
            #expect(rows.status == 0 && rows.output == replayed.output, "\(view.arguments): \(rows)")
        }
    }

    /// A log that cannot be read on (a line no writer of Timeline wrote) holds the view,
    /// and watch says why on standard error, once, instead of falling silent.
    @Test func watchSaysWhyTheViewStopsWhenTheLogCannotBeReadOn() async throws {
        let tool = try #require(toolURL, "timeline not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("watched.jsonl")
        let created = try await timeline(["create-timeline", "--timeline", "life", "--name", "Life", "--log", log])
        try #require(created.status == 0, "\(created)")
        let watcher = try await startedWatch(tool, log: log, in: directory)
        try appendForeign("garbage\n", to: log)
        let warned = await eventually(until: .now + .seconds(60)) { watcher.errors.contains("warning: the view waits until the log can be read on: ") }
        #expect(warned, "\(watcher.errors)")
        #expect(watcher.errors.contains("\(log): line 2: not valid JSON"), "\(watcher.errors)")
        #expect(watcher.isRunning && watcher.outputLines.count == 1)

        // The log renamed away: said too, not silence.
        try FileManager.default.moveItem(atPath: log, toPath: directory.path("elsewhere.jsonl"))
        let gone = await eventually(until: .now + .seconds(60)) {
            watcher.errors.contains("the view waits until the log can be read on: \(log): open failed: No such file or directory")
        }
        #expect(gone, "\(watcher.errors)")
    }

    @Test func watchPrintsAResetThenEachChangeFromAnotherProcessUntilInterrupted() async throws {
        let tool = try #require(toolURL, "timeline not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("watched.jsonl")
        for arguments in [["create-timeline", "--timeline", "life", "--name", "Life"],
                          ["add-event", "--event", "born", "--timeline", "life", "--title", "Born", "--date", "1990-04-12"]] {
            let run = try await timeline(arguments + ["--log", log])
            try #require(run.status == 0, "\(run)")
        }
        let watcher = try await startedWatch(tool, log: log, ["--sections", "year"], in: directory)
        let reset = try WatchLine(try #require(watcher.outputLines.first))
        #expect(reset.isReset && reset.from == 2 && reset.to == 2)
        #expect(reset.rows == [["event": "born", "timeline": "life", "title": "Born", "kind": "single",
                                "date": "1990-04-12", "section": "1990"] as NSDictionary])
        #expect(memberNames(ofJSONObjectLine: watcher.outputLines[0]) == ["type", "from", "to", "rows"])

        // Another process's append arrives as one line, while the watcher runs.
        let added = try await timeline(["add-event", "--log", log, "--event", "school", "--timeline", "life",
                                        "--title", "School", "--start", "1996-09", "--end", "2008-06"])
        try #require(added.status == 0, "\(added)")
        let arrived = await eventually(until: .now + .seconds(60)) { watcher.outputLines.count >= 2 || !watcher.isRunning }
        #expect(arrived && watcher.isRunning, "the change did not arrive: \(watcher.errors)")
        let lines = watcher.outputLines
        try #require(lines.count == 2, "\(lines)")
        let change = try WatchLine(lines[1])
        #expect(!change.isReset && change.from == 2 && change.to == 4)
        #expect(memberNames(ofJSONObjectLine: lines[1]) == ["type", "from", "to", "removals", "insertions", "moves",
                                                             "updates"])
        #expect(change.removals.isEmpty && change.moves.isEmpty && change.updates.isEmpty)
        #expect(change.insertions.map(\.index) == [1, 2])
        #expect(change.insertions.map { $0.row["section"] as? String } == ["1996", "2008"])
        #expect(change.insertions.map { $0.row["kind"] as? String } == ["start", "end"])
        let records = try FileEventLog.read(path: log).records
        let rows = try Self.checkWatcher(lines, view: ViewDefinition(sections: .year), records: records, name: "watch")
        #expect(rows.count == 3)

        watcher.send(SIGINT)
        let ended = await watcher.waitForExit(until: .now + .seconds(30))
        try #require(ended, "watch did not end on SIGINT")
        #expect(watcher.exitStatus == 0, "\(watcher.errors)")
        #expect(watcher.errors.isEmpty, "\(watcher.errors)")
        #expect(watcher.outputLines.count == 2 && watcher.output.hasSuffix("\n"))
    }

    /// The first reset is the rows at the log's position, even when the last records left
    /// the view as it was and the view comes from the checkpoint, and the next change goes
    /// from there.
    @Test func watchStartsAtTheLogsPositionAndChainsFromIt() async throws {
        let tool = try #require(toolURL, "timeline not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("two.jsonl")
        for arguments in [["create-timeline", "--timeline", "home", "--name", "Home"],
                          ["add-event", "--event", "born", "--timeline", "home", "--title", "Born", "--date", "1990"],
                          ["rebuild"],
                          ["create-timeline", "--timeline", "work", "--name", "Work"]] {
            let run = try await timeline(arguments + ["--log", log])
            try #require(run.status == 0, "\(run)")
        }
        for options in [[], ["--timeline", "home"], ["--timeline", "hom"]] {
            let watcher = try await startedWatch(tool, log: log, options, in: directory)
            defer { watcher.killNow() }
            let reset = try WatchLine(try #require(watcher.outputLines.first))
            #expect(reset.isReset && reset.from == 3 && reset.to == 3, "\(options): \(watcher.outputLines)")
            // An unknown timeline is named, as rows names it, and the watch goes on.
            #expect(watcher.errors.contains("there is no timeline \"hom\"; did you mean 'home'?") == (options.last == "hom"),
                    "\(options): \(watcher.errors)")
            #expect(watcher.isRunning)
        }
        let watcher = try await startedWatch(tool, log: log, [], in: directory)
        defer { watcher.killNow() }
        let added = try await timeline(["add-event", "--log", log, "--event", "school", "--timeline", "home",
                                        "--title", "School", "--date", "1996"])
        try #require(added.status == 0, "\(added)")
        let arrived = await eventually(until: .now + .seconds(60)) { watcher.outputLines.count >= 2 || !watcher.isRunning }
        try #require(arrived && watcher.outputLines.count == 2, "\(watcher.outputLines) \(watcher.errors)")
        let change = try WatchLine(watcher.outputLines[1])
        #expect(!change.isReset && change.from == 3 && change.to == 4)
    }

    /// Commands that make their ids (`add-event` without `--event`, `create-timeline`
    /// without `--timeline`), started at once on one log: each gets an id of its own.
    /// An id another process took between reading the store and appending is made again.
    @Test func processesMakingIdsAtOnceEachGetTheirOwn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", generatedLog(events: 50))
        let script = """
            for i in 1 2 3 4 5 6 7 8; do
              ( "$TIMELINE" add-event --log store.jsonl --timeline life --title "T$i" --date 2001 > "add-$i.out" 2>&1
                echo $? > "add-$i.status" ) &
              ( "$TIMELINE" create-timeline --log store.jsonl --name "Trips" > "new-$i.out" 2>&1
                echo $? > "new-$i.status" ) &
            done
            wait
            cat add-*.status new-*.status | sort | uniq -c
            """
        let run = try await shell(script, in: directory.url)
        #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines) == "16 0", "\(run)")
        var events: Set<String> = [], timelines: Set<String> = []
        for i in 1...8 {
            let added = try directory.read("add-\(i).out"), created = try directory.read("new-\(i).out")
            if let id = added.split(separator: " ").dropFirst(2).first { events.insert(String(id)) }
            if let id = created.split(separator: " ").dropFirst(2).first { timelines.insert(String(id)) }
        }
        #expect(events.count == 8, "\(events)")
        #expect(timelines.count == 8, "\(timelines)")
        let rows = try await timeline(["rows", "--log", log, "--json"])
        #expect(rows.outputLines.count == 58)
    }

    @Test func watchOnAMissingLogExitsOne() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try await timeline(["watch", "--log", directory.path("missing.jsonl"), "--json"])
        #expect(run.status == 1, "\(run)")
        #expect(run.output.isEmpty)
        #expect(run.errors.contains("no log at"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("missing.jsonl")))
    }
}
