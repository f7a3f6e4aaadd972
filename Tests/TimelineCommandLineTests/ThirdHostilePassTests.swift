import Foundation
import Testing
import TimelineTestSupport

/// What the third hostile pass found, each tried as a user would meet it.
@Suite("The third hostile pass")
struct ThirdHostilePassTests {
    /// A store of records 1 `life`, 2 `born`, 3-4 `berlin` (one batch of an event added
    /// with an open range).
    func store(in directory: TemporaryDirectory, name: String = "store.jsonl") async throws -> String {
        let log = directory.path(name)
        for step in [["create-timeline", "--timeline", "life", "--name", "Life"],
                     ["add-event", "--timeline", "life", "--title", "Born", "--date", "1990", "--event", "born"],
                     ["add-event", "--timeline", "life", "--title", "Berlin", "--start", "2019-03", "--event", "berlin"]] {
            let run = try await timeline(step + ["--log", log])
            try #require(run.status == 0, "\(step): \(run)")
        }
        return log
    }

    // MARK: 7. export keeps batches and command ids

    /// `more` and `cmd` are part of the format: an export replayed with `--upto` inside a
    /// batch shows the state before the batch, as the log itself does, never half of it.
    @Test func exportKeepsBatchesWhole() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        let export = try await timeline(["export", "--log", log])
        try #require(export.status == 0, "\(export)")
        let lines = export.outputLines
        try #require(lines.count == 4)
        #expect(lines[2].hasSuffix(#""v":1,"more":1}"#), "\(lines[2])")
        #expect(!lines[3].contains("more") && !export.output.contains("crc"), "\(export.output)")
        let upto = try await shell("\"$TIMELINE\" export --log '\(log)' | \"$TIMELINE\" replay - --upto 3 --json")
        #expect(upto.status == 0, "\(upto)")
        #expect(upto.output == (try await timeline(["rows", "--log", log, "--upto", "3", "--json"])).output)
        #expect(!upto.output.contains("berlin"), "a range's start without its end never existed: \(upto.output)")
    }

    // MARK: 1, 2. a follower reads what the path names now

    /// A log of timeline `life` and single-date events with these titles (also their ids).
    static func log(_ titles: [String]) -> String {
        ([#"{"type":"timelineCreated","data":{"timeline":"life","name":"Life"}}"#]
            + titles.enumerated().map { number, title in
                #"{"type":"eventAdded","data":{"event":"\#(title)","timeline":"life","title":"\#(title)","date":"200\#(number)"}}"#
            }).joined(separator: "\n") + "\n"
    }

    /// The titles of the rows `watch --json` shows after its last line, and whether a
    /// reset came after its first line; `nil` while a line does not apply.
    static func shown(_ watcher: SpawnedProcess) -> (titles: [String], reset: Bool)? {
        var rows: [JSONRow] = []
        var reset = false
        for (number, text) in watcher.outputLines.enumerated() {
            guard let line = try? WatchLine(text), case .success(let next) = line.applied(to: rows) else { return nil }
            if number > 0 && line.isReset { reset = true }
            rows = next
        }
        return (rows.map { $0["title"] as? String ?? "?" }, reset)
    }

    /// Starts `watch --json` on `log`, changes the file with `script` (bash, in the
    /// directory), and expects watch to reset and show `titles`, as `rows` does, with no
    /// warning that asks for `timeline verify`.
    func expectWatchResets(log: String, to titles: [String], after script: String,
                           in directory: TemporaryDirectory,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let tool = try #require(toolURL)
        let watcher = try await startedWatch(tool, log: log, in: directory)
        defer { watcher.killNow() }
        let changed = try await shell(script, in: directory.url)
        try #require(changed.status == 0, "\(changed)", sourceLocation: sourceLocation)
        let reset = await eventually(until: .now + .seconds(30)) {
            Self.shown(watcher).map { $0.titles == titles && $0.reset } == true
        }
        #expect(reset, "watch shows \(String(describing: Self.shown(watcher))): \(watcher.outputLines); stderr: \(watcher.errors)",
                sourceLocation: sourceLocation)
        #expect(!watcher.errors.contains("timeline verify"), "\(watcher.errors)", sourceLocation: sourceLocation)
        let rows = try await timeline(["rows", "--log", log, "--json"], in: directory.url)
        #expect(rows.outputLines.count == titles.count, "rows: \(rows)", sourceLocation: sourceLocation)
    }

    /// `cp backup.jsonl log.jsonl` overwrites the log in place (same inode) with a longer
    /// one: watch resets to it, never applying its tail onto the old view (`[y, a]`).
    @Test func watchResetsWhenTheLogIsOverwrittenInPlaceByALongerOne() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("l.jsonl", Self.log(["a"]))
        try directory.write("o.jsonl", Self.log(["x", "y"]))
        try await expectWatchResets(log: log, to: ["x", "y"], after: "cp o.jsonl l.jsonl", in: directory)
    }

    /// A log cut by hand and written again: a reset to what it holds, not a warning that
    /// asks for `timeline verify` while verify says ok.
    @Test func watchResetsWhenTheLogIsCutAndGrowsAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("l.jsonl", Self.log(["a", "b"]))
        try await expectWatchResets(
            log: log, to: ["c", "d", "e"],
            after: "head -1 l.jsonl > cut && cat cut > l.jsonl && "
                + "\"$TIMELINE\" add-event --log l.jsonl --timeline life --title c --date 2001 --event c >/dev/null && "
                + "\"$TIMELINE\" add-event --log l.jsonl --timeline life --title d --date 2002 --event d >/dev/null && "
                + "\"$TIMELINE\" add-event --log l.jsonl --timeline life --title e --date 2003 --event e >/dev/null",
            in: directory)
    }

    /// A symbolic link re-pointed (`ln -sfn`): watch follows what the link names now.
    @Test func watchFollowsASymbolicLinkRepointed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("a.jsonl", Self.log(["a"]))
        try directory.write("b.jsonl", Self.log(["b", "c"]))
        try FileManager.default.createSymbolicLink(atPath: directory.path("link.jsonl"), withDestinationPath: "a.jsonl")
        try await expectWatchResets(log: directory.path("link.jsonl"), to: ["b", "c"],
                                    after: "ln -sfn b.jsonl link.jsonl", in: directory)
        // and goes on following the new target
        let tool = try #require(toolURL)
        let watcher = try await startedWatch(tool, log: directory.path("link.jsonl"), in: directory)
        defer { watcher.killNow() }
        let added = try await timeline(["add-event", "--log", directory.path("b.jsonl"), "--timeline", "life",
                                        "--title", "d", "--date", "2009", "--event", "d"])
        try #require(added.status == 0, "\(added)")
        let followed = await eventually(until: .now + .seconds(30)) {
            watcher.outputLines.last?.contains(#""title":"d""#) == true
        }
        #expect(followed, "\(watcher.outputLines)")
    }

    /// The log's directory removed and made again, with a log in it: watch resets to it.
    @Test func watchFollowsALogWhoseDirectoryWasRemovedAndMadeAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path("d"), withIntermediateDirectories: true)
        try directory.write("d/l.jsonl", Self.log(["a"]))
        try directory.write("o.jsonl", Self.log(["x", "y"]))
        try await expectWatchResets(log: directory.path("d/l.jsonl"), to: ["x", "y"],
                                    after: "rm -r d && sleep 0.2 && mkdir d && sleep 0.2 && cp o.jsonl d/l.jsonl",
                                    in: directory)
    }
}
