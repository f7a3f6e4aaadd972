import Foundation
import Testing
import TimelineKit
import TimelineTestSupport
@testable import TimelineCommandLine

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

    // MARK: 3. a password is never in a message

    /// Every command, with a database URL that holds a password (in the userinfo, as
    /// `password=`, percent-encoded) and an invalid log name, given as --log, as
    /// $TIMELINE_LOG and as a FILE: no output names the password.
    @Test(arguments: [
        "postgresql://u:S3cr3t@127.0.0.1:1/db?log=bad!name",
        "postgres://u@127.0.0.1:1/db?password=S3cr3t&log=bad!name",
        "postgresql://u:S3%63r3t@127.0.0.1:1/db?log=bad!name",
        "POSTGRESQL://u:S3cr3t@127.0.0.1:1/db?log=bad!name",
        "postgresql://u:S3cr3t@127.0.0.1:1/db?log=a&log=b",
    ])
    func noMessageNamesThePassword(url: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for command in Catalogue.all.map({ $0.spec }) where command.name != "help" {
            var arguments = [command.name]
            for option in command.options where option.isRequired {
                arguments += [option.name, option.name == "--date" || option.name == "--start" || option.name == "--end"
                              ? "2001" : "x"]
            }
            let takesLog = command.option(named: "--log") != nil
            var runs: [(arguments: [String], environment: [String: String])] = []
            if takesLog {
                runs.append((arguments + ["--log", url], [:]))
                runs.append((arguments, ["TIMELINE_LOG": url]))
            }
            if !command.positionals.isEmpty { runs.append((arguments + [url], [:])) }
            if !takesLog && command.positionals.isEmpty { runs.append((arguments + [url], [:])) }
            for run in runs {
                let result = try await timeline(run.arguments, in: directory.url, environment: run.environment)
                let text = result.output + result.errors
                for secret in ["S3cr3t", "S3%63r3t"] {
                    #expect(!text.contains(secret), "\(run.arguments) \(run.environment): \(text)")
                }
                #expect(result.status != 0, "\(run.arguments): \(result)")
            }
        }
    }

    // MARK: 6. a command id makes sending again safe

    /// An import carries a command id made from its facts: importing the same file again
    /// appends nothing and says where the facts are.
    @Test func importingTheSameFactsAgainAppendsNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write("input.jsonl", Self.log(["a", "b"]))
        let log = directory.path("store.jsonl")
        let first = try await timeline(["import", input, "--log", log])
        #expect(first.status == 0 && first.output.hasPrefix("imported 3 facts"), "\(first)")
        let again = try await timeline(["import", input, "--log", log])
        #expect(again.status == 0, "\(again)")
        #expect(again.output.hasPrefix("already imported: the command id import-"), "\(again.output)")
        #expect(again.output.hasSuffix("(records 1-3); nothing appended\n"), "\(again.output)")
        let export = try await timeline(["export", "--log", log])
        #expect(export.outputLines.count == 3, "\(export.output)")
        #expect(export.outputLines.allSatisfy { $0.contains(#""cmd":"import-"#) }, "\(export.output)")
        // Other facts are another import.
        let other = try await timeline(["import", try directory.write("other.jsonl", Self.log(["c"]).replacing(
            #"{"type":"timelineCreated","data":{"timeline":"life","name":"Life"}}"# + "\n", with: "")), "--log", log])
        #expect(other.status == 0 && other.output.hasPrefix("imported 1 fact"), "\(other)")
        // A given id is used instead.
        let given = try await timeline(["import", input, "--log", directory.path("given.jsonl"), "--command-id", "mine"])
        #expect(given.status == 0, "\(given)")
        #expect(try directory.read("given.jsonl").contains(#""cmd":"mine""#))
    }

    /// A write command run again with the same --command-id appends nothing.
    @Test func aCommandRunAgainWithItsIdAppendsNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        let add = ["add-event", "--log", log, "--timeline", "life", "--title", "Trip", "--date", "2020",
                   "--command-id", "trip-1"]
        let first = try await timeline(add)
        #expect(first.status == 0 && first.output.hasSuffix("(record 5)\n"), "\(first)")
        let again = try await timeline(add)
        #expect(again.status == 0, "\(again)")
        #expect(again.output == "already done: the command id trip-1 is in \(log) (record 5); nothing appended\n")
        let rows = try await timeline(["rows", "--log", log, "--json"])
        #expect(rows.outputLines.filter { $0.contains("Trip") }.count == 1, "\(rows.output)")
        let bad = try await timeline(["remove-event", "--log", log, "--event", "born", "--command-id", " x"])
        #expect(bad.status == 2 && bad.errors.contains("invalid value \" x\" for --command-id"), "\(bad)")
    }

    /// An append whose outcome is unknown is said to be unknown, never "nothing imported",
    /// with the safe way on.
    @Test func anUnknownOutcomeIsSaidAsUnknown() {
        let runner = Runner(context: ToolContext(output: CapturedOutput(), errors: CapturedOutput()))
        let lost = StoreError.log(.commitOutcomeUnknown(log: "postgresql://db?log=x", reason: "server closed the connection"))
        let imported = runner.message(for: lost, path: "postgresql://db?log=x", command: "import", commandID: "import-1")
        #expect(imported.contains("it may be in the log or not (its outcome is unknown)"), "\(imported)")
        #expect(imported.contains("Run the same import again: it carries the command id import-1"), "\(imported)")
        #expect(!imported.contains("nothing imported"))
        let added = runner.message(for: lost, path: "p", command: "add-event", commandID: "c-1")
        #expect(added.contains("Run add-event again with --command-id c-1"), "\(added)")
        let landed = runner.message(for: .log(.appendMayHaveLanded(path: "p", operation: "fsync", code: 5)), path: "p",
                                    command: "add-event")
        #expect(landed.contains("unknown") && landed.contains("--command-id ID is never appended twice"), "\(landed)")
    }

    // MARK: 8. watch on a terminal

    /// On a terminal (`script` gives watch one), watch's table fits `$COLUMNS` and shows
    /// the kinds in colour, as rows does; its change lines fit too.
    @Test func watchOnATerminalFitsItsTablesAndColoursThem() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let long = String(repeating: "A long title ", count: 12)
        let log = try directory.write("l.jsonl", Self.log(["a"]).replacing(#""title":"a""#, with: #""title":"\#(long)""#))
        let script = "unset NO_COLOR; TERM=xterm COLUMNS=50 timeout 3 \"$TIMELINE\" watch --log '\(log)' --now 2026-01-01 & sleep 1; "
            + "\"$TIMELINE\" add-event --log '\(log)' --timeline life --title '\(long)' --date 2002 >/dev/null; wait"
        let run = try await shell("script -qec \(shellWord(script)) /dev/null", in: directory.url)
        let lines = run.output.split(whereSeparator: \.isNewline)
        let visible = lines.map { $0.replacing(/\u{1B}\[[0-9;]*m/, with: "") }
        #expect(visible.contains { $0.hasPrefix("single") }, "\(run.output)")
        #expect(visible.allSatisfy { DisplayWidth.of(String($0)) <= 50 }, "\(visible)")
        #expect(run.output.contains("\u{1B}["), "no colour: \(run.output)")
        #expect(visible.contains { $0.hasPrefix("+ ") }, "the change line: \(visible)")
    }

    // MARK: 9. the small ones

    /// Ctrl-\\ (SIGQUIT), SIGABRT and SIGSEGV sent to watch end it, as the signals'
    /// defaults do, with no crash report.
    @Test(arguments: [SIGQUIT, SIGABRT, SIGSEGV])
    func aQuitSignalEndsWatch(_ signal: Int32) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tool = try #require(toolURL)
        let log = try directory.write("l.jsonl", Self.log(["a"]))
        let watcher = try await startedWatch(tool, log: log, in: directory)
        defer { watcher.killNow() }
        watcher.send(signal)
        #expect(await watcher.waitForExit(until: .now + .seconds(20)), "watch goes on after signal \(signal)")
        #expect(watcher.terminatingSignal == signal)
        #expect(!watcher.errors.contains("Crash") && !watcher.errors.contains("crash"), "\(watcher.errors)")
    }

    @Test func smallOnesOfTheToolAnswerClearly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        // --upto too large for a position says so.
        let upto = try await timeline(["rows", "--log", log, "--upto", "99999999999999999999"])
        #expect(upto.status == 2 && upto.errors.contains("too large: at most 9223372036854775807"), "\(upto)")
        // A FIFO is not a store's log.
        let fifo = try await shell("mkfifo f && \"$TIMELINE\" rows --log f", in: directory.url)
        #expect(fifo.status == 1 && fifo.errors.contains("f is a FIFO, not a log file"), "\(fifo)")
        // An extension in capitals is still HTML.
        let page = try await timeline(["render", log, "--output", directory.path("x.HTML")])
        #expect(page.status == 0, "\(page)")
        let written = try directory.read("x.HTML")
        #expect(written.lowercased().hasPrefix("<!doctype html>"), "\(written.prefix(40))")
    }
}
