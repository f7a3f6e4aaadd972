import Foundation
import Testing
import TimelineCore
@testable import TimelineCommandLine

/// `revert` and `history` through the built `timeline` executable.
@Suite("timeline revert and history, end to end")
struct RevertAndHistoryTests {
    /// Runs each command on `log`, expecting success.
    func given(_ commands: [[String]], log: String) async throws {
        for command in commands {
            let run = try await timeline(command + ["--log", log])
            #expect(run.status == 0, "\(command): \(run)")
        }
    }

    /// A log of a timeline with two events (records 1-4), then the timeline removed (record 5).
    func lifeRemoved(in directory: TemporaryDirectory) async throws -> String {
        let log = directory.path("life.jsonl")
        try await given([
            ["create-timeline", "--timeline", "life", "--name", "My life"],
            ["add-event", "--timeline", "life", "--title", "Born", "--date", "1990", "--event", "e1"],
            ["add-event", "--timeline", "life", "--title", "Berlin", "--start", "2019", "--event", "e2"],
            ["remove-timeline", "--timeline", "life"],
        ], log: log)
        return log
    }

    func lineCount(_ path: String) throws -> Int {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count
    }

    /// A command line the tool advises pastes back as it is: each word quoted for the
    /// shell, a control character (a newline, a bidirectional override) spelled as an
    /// escape in ANSI-C quotes, never shown raw or escaped inside single quotes.
    @Test(arguments: ["plain-word", "My life", "it's", "two\nlines", "tab\there", "\u{202E}evil", "back\\slash'\u{7}"])
    func aShellWordPastesBackAsItIs(_ word: String) async throws {
        let quoted = shellWord(word)
        #expect(!quoted.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.value == 0x202E })
        let bash = URL(fileURLWithPath: "/bin/bash")
        guard FileManager.default.isExecutableFile(atPath: bash.path) else { return }
        // In any locale: control characters are spelt as their UTF-8 bytes.
        for environment in [[:], ["LC_ALL": "C"]] {
            let echoed = try await run(bash, ["-c", "printf %s \(quoted)"], environment: environment)
            #expect(echoed.output == word, "\(quoted) \(environment)")
        }
    }

    @Test func revertBringsARemovedTimelineBackWithItsEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await lifeRemoved(in: directory)
        let dryRun = try await timeline(["revert", "5", "--log", log, "--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun)")
        #expect(dryRun.output == """
            would revert record 5 with 3 commands (cmd undo:5):
              timeline create-timeline --timeline life --name 'My life' --log \(shellWord(log))
              timeline add-event --event e1 --timeline life --title Born --date 1990 --log \(shellWord(log))
              timeline add-event --event e2 --timeline life --title Berlin --start 2019 --log \(shellWord(log))
            (dry run: nothing appended)

            """)
        let json = try await timeline(["revert", "5", "--log", log, "--dry-run", "--json"])
        #expect(json.outputLines.first == #"{"command":"create-timeline","arguments":["--timeline","life","--name","My life"]}"#)
        #expect(try lineCount(log) == 5, "a dry run appends nothing")

        let revert = try await timeline(["revert", "5", "--log", log])
        #expect(revert.status == 0, "\(revert)")
        #expect(revert.output == "reverted record 5 (records 6-9, cmd undo:5)\n")
        let rows = try await timeline(["rows", "--log", log, "--json", "--now", "2026-01-01"])
        #expect(rows.outputLines == [
            #"{"event":"e1","timeline":"life","title":"Born","kind":"single","date":"1990"}"#,
            #"{"event":"e2","timeline":"life","title":"Berlin","kind":"start","date":"2019"}"#,
            #"{"event":"e2","timeline":"life","title":"Berlin","kind":"ongoing","date":null}"#,
        ])
        let again = try await timeline(["revert", "5", "--log", log])
        #expect(again.status == 1)
        #expect(again.errors.contains("revert refused: this batch was undone already, by record 6"), "\(again)")
        // Reverting the revert redoes the removal.
        let redo = try await timeline(["revert", "7", "--log", log, "--json"])
        #expect(redo.status == 0, "\(redo)")
        #expect(redo.outputLines.count == 1 && redo.output.contains(#""type":"timelineRemoved""#))
    }

    @Test func revertIsRefusedNamingTheLaterRecord() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await lifeRemoved(in: directory)
        try await given([["revert", "5"], ["retitle-event", "--event", "e1", "--title", "Birth"]], log: log)
        let refused = try await timeline(["revert", "2", "--log", log])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("revert refused: record 10 changed event e1 after this batch; revert that change first"),
                "\(refused)")
        #expect(try lineCount(log) == 10)
        let unknown = try await timeline(["revert", "99", "--log", log])
        #expect(unknown.status == 1 && unknown.errors.contains("no record 99: the log's records are 1-10"), "\(unknown)")
        let bad = try await timeline(["revert", "x", "--log", log])
        #expect(bad.status == 2 && bad.errors.contains("invalid SEQ 'x'"), "\(bad)")
    }

    /// A timeline, and an event `e1` born in 1990 on it.
    static let born = [
        ["create-timeline", "--timeline", "life", "--name", "Life"],
        ["add-event", "--timeline", "life", "--title", "Born", "--date", "1990", "--event", "e1"],
    ]

    @Test func revertOfABatchThatChangedNothingAppendsNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("life.jsonl")
        try await given(Self.born + [["move-event", "--event", "e1", "--timeline", "life"]], log: log)
        let run = try await timeline(["revert", "3", "--log", log])
        #expect(run.status == 0, "\(run)")
        #expect(run.output == "nothing to revert: record 3 changed nothing\n")
        #expect(try lineCount(log) == 3)
    }

    /// `history` only reads: on a log that ends in a torn tail it neither cuts the tail nor
    /// waits for the writer's lock, and answers from the whole log.
    /// An id no event can have is a mistake in the arguments (exit 2), not an empty history.
    @Test func historyOfAnIdThatBreaksTheRulesIsAUsageError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await lifeRemoved(in: directory)
        let run = try await timeline(["history", "--event", "", "--log", log])
        #expect(run.status == 2 && run.errors.contains("invalid value \"\" for --event: the id is empty"), "\(run)")
    }

    /// A negative SEQ is refused by SEQ's own rule, not as an unknown option.
    @Test func aNegativeSeqIsRefusedByItsRule() async throws {
        let run = try await timeline(["revert", "-1", "--log", "life.jsonl"])
        #expect(run.status == 2 && run.errors.contains("invalid SEQ '-1': expected the position of a record, 1 or more"),
                "\(run)")
    }

    /// An import reverted, then imported again: its command id is in the log, so nothing
    /// is appended, and the tool says it stands undone and how to bring it back (it once
    /// said only "already imported", while its events were gone). Redone, it says neither.
    @Test func importingAgainAfterARevertSaysItWasUndone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("life.jsonl"), input = directory.path("in.jsonl")
        try await given([["create-timeline", "--timeline", "life", "--name", "Life"]], log: log)
        try """
            {"type":"eventAdded","data":{"event":"a","timeline":"life","title":"A","date":"2001"}}
            {"type":"eventAdded","data":{"event":"b","timeline":"life","title":"B","date":"2002"}}

            """.write(toFile: input, atomically: true, encoding: .utf8)
        try await given([["import", input], ["revert", "2"]], log: log)
        let again = try await timeline(["import", input, "--log", log])
        #expect(again.status == 0 && again.output.contains("(records 2-3, undone by record 4); nothing appended\n")
                && again.output.contains("to bring it back: timeline revert 4 --log "), "\(again)")
        #expect(try lineCount(log) == 5)
        try await given([["revert", "4"]], log: log)
        let redone = try await timeline(["import", input, "--log", log])
        #expect(redone.status == 0 && redone.output.contains("(records 2-3); nothing appended")
                && !redone.output.contains("undone"), "\(redone)")
        // Undone again by undoing the redo: the revert in force is named, the one that works.
        // (records 4-5 undid the import, 6-7 redid it, 8-9 undo the redo)
        try await given([["revert", "6"]], log: log)
        let third = try await timeline(["import", input, "--log", log])
        #expect(third.output.contains("undone by record 8)") && third.output.contains("timeline revert 8 --log "), "\(third)")
        let json = try await timeline(["import", input, "--log", log, "--json"])
        #expect(json.status == 0 && json.errors.contains("undone by record 8; to bring it back: timeline revert 8"), "\(json)")
        try await given([["revert", "8"]], log: log)
        #expect(try await timeline(["rows", "--log", log]).output.contains("2002"))
    }

    /// SEQ is digits: a sign is refused, and a number past any position says so.
    @Test func seqIsDigitsOnly() async throws {
        let plus = try await timeline(["revert", "+3", "--log", "life.jsonl"])
        #expect(plus.status == 2 && plus.errors.contains("invalid SEQ '+3': expected the position of a record"), "\(plus)")
        let huge = try await timeline(["revert", "9223372036854775808", "--log", "life.jsonl"])
        #expect(huge.status == 2 && huge.errors.contains("it is larger than any position a log can have"), "\(huge)")
        let zero = try await timeline(["revert", "00", "--log", "life.jsonl"])
        #expect(zero.status == 2 && zero.errors.contains("expected the position of a record, 1 or more"), "\(zero)")
    }

    @Test func historyLeavesATornTailAsItIs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("life.jsonl")
        try await given(Self.born, log: log)
        #expect(FileManager.default.fileExists(atPath: log + ".checkpoint"))
        let handle = try #require(FileHandle(forWritingAtPath: log))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"seq":3,"type":"eventRet"#.utf8))
        try handle.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: log))
        let run = try await timeline(["history", "--event", "e1", "--log", log, "--json"])
        #expect(run.status == 0 && run.outputLines.count == 1, "\(run)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == before, "history changed the log")
        #expect(!FileManager.default.fileExists(atPath: log + ".rejected"))
    }

    @Test func historyShowsEveryRecordThatTouchedTheEventInBothLives() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await lifeRemoved(in: directory)
        try await given([
            ["create-timeline", "--timeline", "life", "--name", "Life"],
            ["add-event", "--timeline", "life", "--title", "Born again", "--date", "1991", "--event", "e1"],
            ["add-event", "--timeline", "life", "--title", "Other", "--date", "2000", "--event", "e3"],
        ], log: log)
        let json = try await timeline(["history", "--event", "e1", "--log", log, "--json"])
        #expect(json.status == 0, "\(json)")
        #expect(json.outputLines.count == 3)
        let objects = try json.outputLines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["seq"] as? Int } == [2, 5, 7])
        #expect(objects.map { $0["type"] as? String } == ["eventAdded", "timelineRemoved", "eventAdded"])
        for line in json.outputLines { #expect(memberNames(ofJSONObjectLine: line) == ["seq", "type", "at", "cmd", "data"]) }
        #expect(objects[0]["cmd"] is NSNull && objects[0]["at"] is String)
        #expect(json.outputLines[2].hasSuffix(#""data":{"event":"e1","timeline":"life","title":"Born again","date":"1991"}}"#))
        let text = try await timeline(["history", "--event", "e1", "--log", log])
        #expect(text.outputLines.count == 3 && text.outputLines[1].hasPrefix("5  "))
        let none = try await timeline(["history", "--event", "nobody", "--log", log])
        #expect(none.status == 1 && none.errors.contains(#"no record touched event "nobody""#)
                && none.errors.contains("to list the events: timeline rows --log "), "\(none)")
    }
}
