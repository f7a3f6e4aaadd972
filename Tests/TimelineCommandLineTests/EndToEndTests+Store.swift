import Foundation
import Testing
import TimelineCore
@testable import TimelineCommandLine

extension EndToEndTests {
    // MARK: The store

    @Test func aStoreDrivenByCommandsListsWhatReplayOfItsExportLists() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("store.jsonl")
        let steps: [[String]] = [
            ["create-timeline", "--name", "My life"],
            ["create-timeline", "--timeline", "work", "--name", "Jobs"],
            ["create-timeline", "--name", "Scratch"],
            ["add-event", "--timeline", "my-life", "--title", "Born", "--date", "1990-04-12", "--event", "born"],
            ["add-event", "--timeline", "my-life", "--title", "School", "--start", "1996-09", "--end", "2008-06"],
            ["add-event", "--timeline", "my-life", "--title", "Berlin", "--start", "2019-03"],
            ["add-event", "--timeline", "work", "--title", "First job", "--date", "2008-09-01T09:00:00+02:00"],
            ["add-event", "--timeline", "scratch", "--title", "Draft", "--date", "2020"],
            ["set-range", "--event", "e4", "--start", "2008-09-01", "--end", "2012"],
            ["close-range", "--event", "e3", "--end", "2024-05"],
            ["reopen-range", "--event", "e3"],
            ["retitle-event", "--event", "e3", "--title", "Living in Berlin"],
            ["set-date", "--event", "e2", "--date", "1996-09-02"],
            ["move-event", "--event", "e4", "--timeline", "my-life"],
            ["move-event", "--id", "e4", "--timeline", "work"],
            ["rename-timeline", "--timeline", "work", "--name", "Work"],
            ["add-event", "--timeline", "work", "--title", "Mistake", "--date", "2030"],
            ["remove-event", "--event", "e6"],
            ["remove-timeline", "--timeline", "scratch"],
        ]
        // Made ids are e<events + 1>: "born" is the first event, so "School" is e2.
        for step in steps {
            let run = try await timeline(step + ["--log", log])
            #expect(run.status == 0, "\(step): \(run)")
            #expect(run.errors.isEmpty, "\(step)")
        }
        let verify = try await timeline(["verify", "--log", log])
        #expect(verify.output == "\(log): ok: 21 records, 21 facts, 2 timelines, 4 events\n")

        let export = try await timeline(["export", "--log", log])
        #expect(export.status == 0)
        #expect(!export.output.contains("crc"))
        #expect(export.outputLines.count == 21)
        let exported = try directory.write("exported.jsonl", export.output)

        let view = ["--json", "--now", "2026-11-29", "--sections", "year"]
        let rows = try await timeline(["rows", "--log", log] + view)
        let replay = try await timeline(["replay", exported] + view)
        #expect(rows.status == 0)
        #expect(rows.output == replay.output)
        #expect(rows.output == """
            {"event":"born","timeline":"my-life","title":"Born","kind":"single","date":"1990-04-12","section":"1990"}
            {"event":"e2","timeline":"my-life","title":"School","kind":"single","date":"1996-09-02","section":"1996"}
            {"event":"e4","timeline":"work","title":"First job","kind":"start","date":"2008-09-01","section":"2008"}
            {"event":"e4","timeline":"work","title":"First job","kind":"end","date":"2012","section":"2012"}
            {"event":"e3","timeline":"my-life","title":"Living in Berlin","kind":"start","date":"2019-03","section":"2019"}
            {"event":"e3","timeline":"my-life","title":"Living in Berlin","kind":"ongoing","date":null,"section":"2026"}

            """)

        let timelines = try await timeline(["timelines", "--log", log, "--json"])
        #expect(timelines.output == """
            {"timeline":"my-life","name":"My life","events":3,"ongoing":1,"earliest":"1990-04-12","latest":"2019-03"}
            {"timeline":"work","name":"Work","events":1,"ongoing":0,"earliest":"2008-09-01","latest":"2012"}

            """)

        // The exported log imported into a fresh store gives the same rows again.
        let copy = directory.path("copy.jsonl")
        let imported = try await timeline(["import", exported, "--log", copy])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.output == "imported 21 facts from \(exported) into \(copy) (records 1-21)\n")
        #expect(try await timeline(["rows", "--log", copy] + view).output == rows.output)
        // Importing it once more finds its command id in the log, and appends nothing.
        let twice = try await timeline(["import", exported, "--log", copy])
        #expect(twice.status == 0, "\(twice)")
        #expect(twice.output.hasPrefix("already imported: the command id import-"), "\(twice.output)")
        #expect(twice.output.hasSuffix(" is in \(copy) (records 1-21); nothing appended\n"), "\(twice.output)")
        // Under another command id, it conflicts with what is there, and appends nothing.
        let other = try await timeline(["import", exported, "--log", copy, "--command-id", "again"])
        #expect(other.status == 1)
        #expect(other.errors == "timeline: \(exported): line 1: timelineCreated: timeline \"my-life\" already exists "
            + "in \(copy); nothing imported\n")
        #expect(try await timeline(["verify", "--log", copy]).output.contains("ok: 21 records"))
    }

    /// A URL mistyped as a log is a usage error (exit 2) saying what a PostgreSQL URL looks
    /// like, and makes no file (`postgresql:x` made a file of that name).
    @Test func aMistypedURLIsAUsageError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let made = try await shell("\"$TIMELINE\" create-timeline --name X --log 'postgresql:x'", in: directory.url)
        #expect(made.status == 2 && made.errors.contains("--log postgresql:x is not a PostgreSQL URL: one begins "
            + "postgresql:// (for a log file of that name, give it as ./postgresql:x)"), "\(made)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
        let other = try await timeline(["rows", "--log", "mysql://user:secret@x/y"])
        #expect(other.status == 2 && other.errors.contains("--log mysql://user@x/y is a URL of another kind: only "
            + "postgresql:// URLs name database logs"), "\(other)")
        #expect(!other.errors.contains("secret"))
        let plain = try await shell("\"$TIMELINE\" create-timeline --name X --log ./postgresql:x", in: directory.url)
        #expect(plain.status == 0, "\(plain)")
    }

    /// A command id names one command: the same command run again with it appends nothing
    /// ("already done"); another command given it is refused (exit 1) and nothing is
    /// appended (it said "already done", exit 0, and the removal asked for was not done).
    @Test func aCommandIDGivenToAnotherCommandIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("x.jsonl")
        #expect(try await timeline(["create-timeline", "--log", log, "--timeline", "t", "--name", "T"]).status == 0)
        let add = ["add-event", "--log", log, "--timeline", "t", "--title", "first", "--date", "2000", "--command-id", "k1"]
        #expect(try await timeline(add).status == 0)
        let again = try await timeline(add)
        #expect(again.status == 0 && again.output == "already done: the command id k1 is in \(log) (record 2); nothing appended\n",
                "\(again)")
        let other = try await timeline(["remove-event", "--log", log, "--event", "e1", "--command-id", "k1"])
        #expect(other.status == 1, "\(other)")
        #expect(other.errors == "timeline: remove-event refused in \(log): the command id \"k1\" was sent with another "
            + "command (record 2: eventAdded); a command id names one command: give this one another id; nothing appended\n",
                "\(other)")
        #expect(try await timeline(["verify", "--log", log]).output.contains("ok: 2 records"))
    }

    /// A long name (names may have 1000 characters, ids 255 bytes) makes a short id, cut
    /// after a whole word; a name of one long word is cut anywhere.
    @Test func aLongNameMakesAnIdThatFits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let long = String(repeating: "Ab ", count: 300)
        let made = "ab" + String(repeating: "-ab", count: 20)
        let longName = try await timeline(["create-timeline", "--name", long, "--json"], in: directory.url)
        #expect(longName.status == 0 && longName.output.contains(#""timeline":"\#(made)""#), "\(longName)")
        let longAgain = try await timeline(["create-timeline", "--name", long, "--json"], in: directory.url)
        #expect(longAgain.status == 0 && longAgain.output.contains(#""timeline":"\#(made)-2""#), "\(longAgain)")
        let word = try await timeline(["create-timeline", "--name", String(repeating: "x", count: 900), "--json"],
                                      in: directory.url)
        #expect(word.status == 0 && word.output.contains(#""timeline":"\#(String(repeating: "x", count: 64))""#),
                "\(word)")
    }

    @Test func storeCommandsConfirmAndPrintGeneratedIDs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let created = try await timeline(["create-timeline", "--name", "Home & Away!"], in: directory.url)
        #expect(created.output == "created timeline home-away \"Home & Away!\" (record 1)\n")
        #expect(FileManager.default.fileExists(atPath: directory.path("timeline.jsonl")), "./timeline.jsonl by default")
        let again = try await timeline(["create-timeline", "--name", "home away"], in: directory.url)
        #expect(again.output == "created timeline home-away-2 \"home away\" (record 2)\n")
        // Letters with accents, and other scripts, give ids in ASCII letters, not dashes.
        for (name, id) in [("Café in Valparaíso", "cafe-in-valparaiso"), ("Straße", "strasse"), ("Москва", "moskva")] {
            let made = try await timeline(["create-timeline", "--name", name, "--log", directory.path("scripts.jsonl")])
            #expect(made.status == 0 && made.output.hasPrefix("created timeline \(id) "), "\(made)")
        }
        let added = try await timeline(["add-event", "--timeline", "home-away", "--title", "Moved", "--start", "2019",
                                        "--json"], in: directory.url)
        #expect(added.status == 0)
        let lines = added.outputLines
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix(#"{"seq":3,"type":"eventAdded","data":{"event":"e1","timeline":"home-away","#)
                == true)
        #expect(lines.last?.hasPrefix(#"{"seq":4,"type":"rangeSet","data":{"event":"e1","start":"2019","end":null}"#)
                == true)
        let next = try await timeline(["add-event", "--timeline", "home-away", "--title", "Back", "--date", "2021"],
                                      in: directory.url)
        #expect(next.output == "added event e2 to timeline home-away: 2021 (record 5)\n")
        // A name or title is confirmed as it was recorded: trimmed.
        let padded = try await timeline(["rename-timeline", "--timeline", "home-away-2", "--name", "  Away  "], in: directory.url)
        #expect(padded.output == "renamed timeline home-away-2 to \"Away\" (record 6)\n")
        let retitled = try await timeline(["retitle-event", "--event", "e2", "--title", " Back home\n"], in: directory.url)
        #expect(retitled.output == "retitled event e2 \"Back home\" (record 7)\n")
        // Control characters and bidirectional overrides read as in the tables, escaped
        // the same way (never as raw bytes that break or reorder the line).
        let odd = "Say \"hi\"\u{1}\u{202E}x"
        let renamed = try await timeline(["rename-timeline", "--timeline", "home-away-2", "--name", odd], in: directory.url)
        #expect(renamed.output == #"renamed timeline home-away-2 to "Say \"hi\"\u{1}\u{202e}x" (record 8)"# + "\n")
        let listed = try await timeline(["timelines"], in: directory.url)
        #expect(listed.output.contains(#"Say "hi"\u{1}\u{202e}x"#), "\(listed)")
    }

    /// A made event id is `e<count + 1>`, or further on while that is taken, whatever
    /// ids the log already holds.
    @Test func madeEventIDsStepPastTakenOnes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var text = #"{"type":"timelineCreated","data":{"timeline":"t","name":"T"}}"# + "\n"
        for id in ["e1", "e3", "e4", "e7"] {
            text += #"{"type":"eventAdded","data":{"event":"\#(id)","timeline":"t","title":"\#(id)","date":"2000"}}"# + "\n"
        }
        let log = try directory.write("store.jsonl", text)
        var made: [String] = []
        for _ in 0..<3 {
            let added = try await timeline(["add-event", "--timeline", "t", "--title", "New", "--date", "2001",
                                            "--log", log])
            #expect(added.status == 0, "\(added)")
            made.append(String(added.output.split(separator: " ")[2]))
        }
        // 4 events: e5 is free. 5: e6. 6: e7 is taken, e8 is free.
        #expect(made == ["e5", "e6", "e8"])
    }

    @Test func theLogDefaultsToTIMELINE_LOG() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("env.jsonl")
        let run = try await timeline(["create-timeline", "--timeline", "t", "--name", "T"], environment: ["TIMELINE_LOG": log])
        #expect(run.status == 0)
        #expect(try directory.read("env.jsonl").contains(#""timeline":"t""#))
    }

    @Test func aRefusedCommandExitsOneAndAppendsNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("store.jsonl")
        _ = try await timeline(["create-timeline", "--timeline", "life", "--name", "Life", "--log", log])
        _ = try await timeline(["add-event", "--timeline", "life", "--title", "Born", "--date", "1990", "--event", "e1",
                                "--log", log])
        let cases: [([String], String)] = [
            (["close-range", "--event", "e1", "--end", "2000"], #"close-range refused: event "e1" is not an open range"#),
            (["add-event", "--timeline", "life", "--title", "Again", "--date", "1991", "--event", "e1"],
             #"add-event refused: event "e1" already exists"#),
            (["add-event", "--timeline", "nope", "--title", "X", "--date", "1991"],
             #"add-event refused: unknown timeline "nope""#),
            (["retitle-event", "--event", "e1", "--title", "   "], "retitle-event refused: title must not be empty"),
            (["set-range", "--event", "e1", "--start", "2000", "--end", "1999"],
             #"set-range refused: event "e1": end "1999" is before start "2000""#),
            (["remove-event", "--event", "e9"], #"remove-event refused: unknown event "e9""#),
            (["create-timeline", "--timeline", "life", "--name", "Again"],
             #"create-timeline refused: timeline "life" already exists"#),
        ]
        for (arguments, message) in cases {
            let run = try await timeline(arguments + ["--log", log])
            #expect(run.status == 1, "\(arguments)")
            #expect(run.output.isEmpty)
            #expect(run.errors == "timeline: \(message)\n")
        }
        let verify = try await timeline(["verify", "--log", log])
        #expect(verify.output.contains("ok: 2 records"))
    }

    /// A process with the log open holds no lock between its appends: other processes
    /// write, repair and read the log meanwhile, and it appends after them.
    @Test func aLogOpenInAnotherProcessTakesWritersAndReaders() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("store.jsonl")
        _ = try await timeline(["create-timeline", "--timeline", "life", "--name", "Life", "--log", log])
        let held = try FileEventLog(path: log)
        _ = try held.append([.eventAdded(event: "e1", timeline: "life", title: "Born", date: DateValue(parsing: "1990"))],
                            options: AppendOptions())
        for arguments in [["add-event", "--event", "e2", "--timeline", "life", "--title", "X", "--date", "2000"],
                          ["repair"]] {
            let run = try await timeline(arguments + ["--log", log])
            #expect(run.status == 0, "\(arguments): \(run)")
        }
        #expect(try held.append([.eventRemoved(event: "e2")], options: AppendOptions()).records[0].position == 4)
        let replay = try await timeline(["replay", log, "--json"])
        #expect(replay.status == 0)
        #expect(replay.output == #"{"event":"e1","timeline":"life","title":"Born","kind":"single","date":"1990"}"# + "\n")
        let verify = try await timeline(["verify", "--log", log])
        #expect(verify.status == 0)
        let rows = try await timeline(["rows", "--log", log, "--json"])
        #expect(rows.output == replay.output)
        held.close()
        let after = try await timeline(["remove-event", "--event", "e1", "--log", log])
        #expect(after.status == 0, "\(after)")
    }

    @Test func rebuildReportsThroughputOnStandardError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("copy.jsonl")
        try FileManager.default.copyItem(atPath: life, toPath: log)
        let run = try await timeline(["rebuild", "--log", log, "--now", "2026-11-29"])
        #expect(run.status == 0, "\(run)")
        #expect(run.output == "rebuilt \(log): 98 records, 74 rows, 4 timelines, 1 view; checkpoint written\n")
        #expect(run.errors.hasPrefix("timeline: rebuilt: 100%, 98 records in "))
        #expect(run.errors.hasSuffix(" records/s\n"))
        #expect(!run.errors.contains("\r"), "no progress when standard error is not a terminal")
    }

    @Test func timelinesTable() async throws {
        let run = try await timeline(["timelines", "--log", life])
        #expect(run.status == 0)
        #expect(run.output == """
            TIMELINE   NAME       EVENTS  ONGOING  EARLIEST    LATEST
            education  Education  11      1        1990-09     2024-10
            home       Home       15      3        1984-07-19  2022-04
            travel     Travel     9       0        2001-07     2027-04
            work       Work       10      3        2007-07     2027-01

            """)
    }
}
