import Foundation
import Testing
import TimelineCore
import TimelineTestSupport
@testable import TimelineCommandLine

/// The tool where it meets the system: standard output that fails or goes away, logs
/// read from pipes and FIFOs, missing and corrupt logs, hostile text.
@Suite("timeline at its edges")
struct EdgeTests {
    let life = exampleLogs.appendingPathComponent("life.jsonl").path

    /// A store log with a timeline and a few events, made by the tool.
    func store(in directory: TemporaryDirectory) async throws -> String {
        let log = directory.path("store.jsonl")
        for step in [["create-timeline", "--timeline", "life", "--name", "Life"],
                     ["add-event", "--timeline", "life", "--title", "Born", "--date", "1990", "--event", "born"],
                     ["add-event", "--timeline", "life", "--title", "Berlin", "--start", "2019-03", "--event", "berlin"]] {
            let run = try await timeline(step + ["--log", log])
            try #require(run.status == 0, "\(step): \(run)")
        }
        return log
    }

    // MARK: Output errors

    /// A directory given as the log is named as such, with what --log wants.
    @Test func aDirectoryAsTheLogIsSaidToBeOne() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for command in [["rows"], ["create-timeline", "--name", "Life"], ["import", life]] {
            let run = try await timeline(command + ["--log", directory.url.path])
            #expect(run.status == 1 && run.errors.contains("is a directory, not a log file: --log names the log's file"),
                    "\(command): \(run)")
        }
    }

    @Test func aFailedWriteToStandardOutputExitsOneNamingIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        let commands = [
            "export --log \(log)", "rows --log \(log)", "rows --log \(log) --json", "replay \(life)",
            "timelines --log \(log)", "verify --log \(log)", "rebuild --log \(log)", "--help", "--version",
            "help replay", "add-event --timeline life --title X --date 2000 --log \(log)", "add-event --help",
            "import \(try directory.write("empty.jsonl", "")) --log \(log)", "repair --log \(log)",
        ]
        for command in commands {
            let run = try await shell("\"$TIMELINE\" \(command) > /dev/full")
            #expect(run.status == 1, "\(command): \(run)")
            #expect(run.errors.contains("timeline: cannot write to standard output: No space left on device"),
                    "\(command): \(run.errors)")
            // Only the command that appended says so; a help text or "nothing to ..." does not,
            // and a help text says nothing of a log.
            let changes = command.hasPrefix("add-event --timeline")
            let help = command.hasPrefix("--") || command.hasPrefix("help") || command.hasSuffix("--help")
            #expect(run.errors.hasSuffix(changes ? "; the command was done, and the log has changed: do not run it again\n"
                                         : help ? "; what was written is incomplete\n"
                                         : "; what was written is incomplete; the log is unchanged\n"),
                    "\(command): \(run.errors)")
        }
        let export = try await timeline(["export", "--log", log])
        #expect(export.output.contains(#""title":"X""#), "the event was added")
    }

    @Test func aClosedPipeEndsTheCommandQuietlyAsBySIGPIPE() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Far more than a pipe's buffer, so that the writer meets the closed pipe.
        let log = try directory.write("big.jsonl", generatedLog(events: 3000))
        for prelude in ["", "trap '' PIPE; "] {
            for command in ["replay \(log)", "replay \(log) --json", "export --log \(log)", "rows --log \(log)"] {
                let run = try await shell(prelude + "\"$TIMELINE\" \(command) | head -c 10 > /dev/null; "
                    + "echo \"${PIPESTATUS[0]}\"")
                #expect(run.output == "141\n", "\(prelude)\(command): \(run)")
                #expect(run.errors.isEmpty, "\(prelude)\(command): \(run.errors)")
            }
        }
    }

    /// A standard output closed by the caller stays an error to write to, and its number is
    /// never given to the log, which would then receive what the tool prints.
    @Test func aClosedStandardOutputIsAnErrorAndNeverTheLog() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        for command in ["rows --log \(log)", "add-event --timeline life --title X --date 2000 --log \(log)",
                        "import - --log \(directory.path("new.jsonl"))"] {
            let run = try await shell("\"$TIMELINE\" \(command) >&- < '\(life)'")
            #expect(run.status == 1, "\(command): \(run)")
            #expect(run.errors.contains("cannot write to standard output: Bad file descriptor"), "\(command): \(run.errors)")
        }
        let closedInput = try await shell("\"$TIMELINE\" import - --log \(directory.path("other.jsonl")) <&-")
        #expect(closedInput.status == 1 && closedInput.errors.contains("standard input: read failed: Bad file descriptor"),
                "\(closedInput)")
        for path in [log, directory.path("new.jsonl")] {
            let verified = try await timeline(["verify", "--log", path])
            #expect(verified.status == 0, "\(path): \(verified)")
        }
    }

    @Test func watchEndsWhenItsReaderLeavesThoughNoChangeComes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        // `head` leaves after the view's first line, and no change comes that watch could
        // fail to write: it must see the reader gone by itself (`timeout` says 124 if not).
        let run = try await shell("timeout 30 \"$TIMELINE\" watch --log \(log) --now 2026-11-29 --json | head -n 1; "
            + "echo \"${PIPESTATUS[0]}\"")
        #expect(run.outputLines.count == 2 && run.outputLines.first?.hasPrefix("{") == true, "\(run)")
        #expect(run.outputLines.last == "141", "\(run)")
        #expect(run.errors.isEmpty, "\(run.errors)")
    }

    @Test func aNonBlockingStandardOutputIsWrittenWhole() async throws {
        let tool = try #require(toolURL)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("big.jsonl", generatedLog(events: 5000))
        let pipe = Pipe()
        let descriptor = pipe.fileHandleForWriting.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let process = Process()
        process.executableURL = tool
        process.arguments = ["replay", log, "--json"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        try pipe.fileHandleForWriting.close()
        // The pipe fills while nobody reads: the tool meets EAGAIN and must wait, not fail.
        // Read only once the pipe is full (64 KiB), and a moment more, so that it did.
        let reading = pipe.fileHandleForReading.fileDescriptor
        let deadline = ContinuousClock.now + .seconds(60)
        var buffered: Int32 = 0
        while process.isRunning, buffered < 60_000, ContinuousClock.now < deadline {
            _ = ioctl(reading, UInt(FIONREAD), &buffered)
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(200))
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        #expect(process.terminationStatus == 0)
        #expect(output.filter { $0 == 0x0A }.count == 5000)
    }

    // MARK: Pipes, FIFOs and -

    @Test func replayReadsPipesFIFOsAndStandardInputAsStreams() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let expected = try await timeline(["replay", life, "--json", "--now", "2026-11-29"])
        try #require(expected.status == 0 && expected.outputLines.count > 40)
        let options = "--json --now 2026-11-29"
        for script in [
            "cat '\(life)' | \"$TIMELINE\" replay - \(options)",
            "cat '\(life)' | \"$TIMELINE\" replay /dev/stdin \(options)",
            "\"$TIMELINE\" replay - \(options) < '\(life)'",
            "\"$TIMELINE\" replay <(cat '\(life)') \(options)",
            "mkfifo fifo && { cat '\(life)' > fifo & } && \"$TIMELINE\" replay fifo \(options)",
        ] {
            let run = try await shell(script, in: directory.url)
            #expect(run.status == 0, "\(script): \(run)")
            #expect(run.errors.isEmpty, "\(script)")
            #expect(run.output == expected.output, "\(script)")
            try? FileManager.default.removeItem(atPath: directory.path("fifo"))
        }
    }

    @Test func aLogLargerThanAPipesBufferIsReadWhole() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("big.jsonl", generatedLog(events: 20_000))
        let run = try await shell("cat '\(log)' | \"$TIMELINE\" replay - --json | wc -l")
        #expect(run.status == 0, "\(run)")
        #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines) == "20000")
    }

    /// A fact the rules refuse early in a log of several chunks stops the reading while
    /// chunks read ahead are still waiting: the command says which line, and does not crash.
    @Test func aRefusalInTheFirstOfSeveralChunksIsReportedNotACrash() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var text = #"{"type":"timelineCreated","data":{"timeline":"life","name":"Life"}}"# + "\n"
        text += #"{"type":"eventRetitled","data":{"event":"nosuch","title":"x"}}"# + "\n"
        // Two and a half chunks: the reader is ahead of the refusal by more than one.
        var count = 0
        while text.utf8.count < 2 * LogChunkReader.chunkBytes + LogChunkReader.chunkBytes / 2 {
            text += #"{"type":"eventAdded","data":{"event":"e\#(count)","timeline":"life","title":"T","date":"2000"}}"#
            text += "\n"
            count += 1
        }
        let log = try directory.write("refused.jsonl", text)
        let expected = "refused.jsonl: line 2: eventRetitled: unknown event \"nosuch\""
        let imported = try await timeline(["import", log, "--log", directory.path("new.jsonl")])
        #expect(imported.status == 1, "\(imported)")
        #expect(imported.errors.contains(expected) && imported.errors.contains("nothing imported"), "\(imported)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("new.jsonl")))
        for command in ["replay", "verify"] {
            let run = try await timeline(command == "replay" ? ["replay", log] : ["verify", "--log", log])
            #expect(run.status == 1 && run.errors.contains(expected), "\(command): \(run)")
        }
    }

    /// A store command on a log holding a record the rules refuse names its line (blank
    /// lines counted) from the store's own error, whether it replays the whole log or only
    /// the tail after a checkpoint; so does a rebuild.
    @Test func aStoreCommandNamesTheLineOfARefusedRecord() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("life.jsonl")
        #expect(try await timeline(["create-timeline", "--timeline", "life", "--name", "Life", "--log", log]).status == 0)
        // A blank line, then a record that retitles an event nobody added (line 3).
        let bad = #"{"seq":2,"type":"eventRetitled","data":{"event":"nosuch","title":"x"}}"#
        let handle = try #require(FileHandle(forWritingAtPath: log))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(("\n" + bad + "\n").utf8))
        try handle.close()
        let expected = "life.jsonl: line 3: eventRetitled: unknown event \"nosuch\""
        let checkpoint = log + ".checkpoint"
        #expect(FileManager.default.fileExists(atPath: checkpoint), "the first command wrote a checkpoint")
        let fromTail = try await timeline(["add-event", "--timeline", "life", "--title", "T", "--date", "2000", "--log", log])
        #expect(fromTail.status == 1 && fromTail.errors.contains(expected)
                && fromTail.errors.contains("timeline repair --log"), "\(fromTail)")
        try FileManager.default.removeItem(atPath: checkpoint)
        let fromStart = try await timeline(["add-event", "--timeline", "life", "--title", "T", "--date", "2000", "--log", log])
        #expect(fromStart.status == 1 && fromStart.errors.contains(expected), "\(fromStart)")
        let rebuilt = try await timeline(["rebuild", "--log", log])
        #expect(rebuilt.status == 1 && rebuilt.errors.contains(expected), "\(rebuilt)")
    }

    @Test func standardInputErrorsNameStandardInput() async throws {
        let run = try await shell(#"printf '{"type":"eventAdd","data":{}}\n' | "$TIMELINE" replay -"#)
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.errors == "timeline: standard input: line 1: unknown type \"eventAdd\"\n")
        let torn = try await shell(#"printf '{"type":"timelineCreated","data":{"timeline":"a","name":"A"}}\n{"ty' | "$TIMELINE" replay - --json"#)
        #expect(torn.status == 0, "\(torn)")
        #expect(torn.errors.hasPrefix("timeline: warning: standard input: line 2: incomplete last record"))
        let tornImport = try await shell(#"printf '{"type":"timelineCreated","data":{"timeline":"a","name":"A"}}\n{"ty' | "$TIMELINE" import - --log never.jsonl"#)
        #expect(tornImport.status == 1)
        #expect(tornImport.errors.hasPrefix("timeline: standard input: line 2: incomplete last record"))
        #expect(tornImport.errors.hasSuffix("; nothing imported\n"), "no repair for a pipe: \(tornImport.errors)")
    }

    @Test func exportPipedIntoImportMakesTheSameStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        let copy = directory.path("copy.jsonl")
        let run = try await shell("\"$TIMELINE\" export --log '\(log)' | \"$TIMELINE\" import - --log '\(copy)'")
        #expect(run.status == 0, "\(run)")
        #expect(run.output == "imported 4 facts from standard input into \(copy) (records 1-4)\n")
        let view = ["--json", "--now", "2026-11-29"]
        #expect(try await timeline(["rows", "--log", copy] + view).output
                == (try await timeline(["rows", "--log", log] + view)).output)
        let fifo = try await shell("mkfifo f && { \"$TIMELINE\" export --log '\(log)' > f & } && "
            + "\"$TIMELINE\" import f --log fifo.jsonl", in: directory.url)
        #expect(fifo.status == 0, "\(fifo)")
        #expect(fifo.output.hasPrefix("imported 4 facts from f into fifo.jsonl"))
    }

    /// A batch longer than a chunk is read whole at once, at the length its first records
    /// suggest: from a pipe, a first record announcing a quadrillion more makes a bigger
    /// read, not an allocation of that size; the batch that never ends is a torn tail.
    @Test func aBatchAnnouncingMoreThanAPipeHoldsIsATornTail() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let announced = 1_000_000_000_000_000
        var text = ""
        for number in 0..<100_000 {  // about 10 MiB: more than a chunk
            text += #"{"type":"timelineCreated","data":{"timeline":"t\#(number)","name":"A name"},"more":\#(announced - number)}"#
                + "\n"
        }
        let input = try directory.write("batch.jsonl", text)
        for command in ["cat '\(input)' | \"$TIMELINE\" replay -", "\"$TIMELINE\" replay '\(input)'"] {
            let run = try await shell(command + " --json")
            #expect(run.status == 0, "\(command): \(run.status) \(run.errors)")
            #expect(run.output.isEmpty)
            #expect(run.errors.contains("line 1: incomplete last batch"), "\(command): \(run.errors)")
        }
    }

    /// Export writes each chunk once it is checked, never holding the log: a bad line far
    /// into a big log stops it there, after the records before it, and says so.
    @Test func exportWritesAsItReadsAndStopsAtABadLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let events = 120_000  // more than one chunk of the log (8 MiB)
        let good = ToolCheckpointTests.handWrittenLog(events: events)
        let log = try directory.write("big.jsonl", good + #"{"type":"eventAdded","data":{"event":"x"}}"# + "\n")
        let run = try await timeline(["export", "--log", log])
        #expect(run.status == 1)
        #expect(run.errors.contains("line \(events + 2): "), "\(run.errors)")
        let written = run.outputLines.count
        #expect(written > 0 && written < events + 1, "the records of the chunks before the bad line: \(written)")
        #expect(run.errors.contains("the export stops there: its first \(written) records were written"), "\(run.errors)")
        let whole = try await timeline(["export", "--log", try directory.write("good.jsonl", good)])
        #expect(whole.status == 0 && whole.outputLines.count == events + 1)
        #expect(Array(whole.outputLines.prefix(written)) == run.outputLines)
    }

    /// A batch longer than what export encodes at once (an imported log is one batch) is
    /// written a slice at a time, each line with its seq and its `more` as in the log.
    @Test func exportWritesALongBatchInSlicesWithEachLinesMore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let facts = Runner.exportSlice * 2 + 5
        let input = (0..<facts).map { #"{"type":"timelineCreated","data":{"timeline":"t\#($0)","name":"T"}}"# }
        let log = directory.path("store.jsonl")
        let imported = try await timeline(["import", try directory.write("in.jsonl", input.joined(separator: "\n") + "\n"),
                                           "--log", log])
        #expect(imported.status == 0, "\(imported)")
        let export = try await timeline(["export", "--log", log])
        #expect(export.status == 0 && export.outputLines.count == facts, "\(export.errors)")
        let stored = try directory.read("store.jsonl").split(separator: "\n")
        for (line, (exported, kept)) in zip(export.outputLines, stored).enumerated() {
            let remaining = facts - 1 - line
            #expect(exported.hasPrefix(#"{"seq":\#(line + 1),"#))
            #expect(exported.hasSuffix(remaining == 0 ? #""cmd":"\#(Self.commandID(kept))"}"#
                                                      : #","more":\#(remaining)}"#), "line \(line + 1): \(exported)")
            #expect(kept.hasPrefix(exported.dropLast()), "line \(line + 1) is the stored line without its crc")
        }
    }

    /// The `cmd` of a stored line.
    static func commandID(_ line: Substring) -> Substring {
        line.split(separator: #""cmd":""#).last?.prefix { $0 != "\"" } ?? ""
    }

    // MARK: --upto and batches

    @Test func uptoNeverStopsInsideAnAtomicBatch() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        // Records: 1 timeline, 2 born, 3-4 berlin (eventAdded + rangeSet, one batch).
        let lines = try directory.read("store.jsonl").split(separator: "\n")
        try #require(lines.count == 4 && lines[2].contains(#""more":1"#))
        let born = #"{"event":"born","timeline":"life","title":"Born","kind":"single","date":"1990"}"# + "\n"
        let berlin = #"{"event":"berlin","timeline":"life","title":"Berlin","kind":"start","date":"2019-03"}"# + "\n"
            + #"{"event":"berlin","timeline":"life","title":"Berlin","kind":"ongoing","date":null}"# + "\n"
        for (upto, expected) in [("2", born), ("3", born), ("4", born + berlin), ("99", born + berlin)] {
            for command in [["rows", "--log", log], ["replay", log]] {
                let run = try await timeline(command + ["--upto", upto, "--json", "--now", "2026-11-29"])
                #expect(run.status == 0)
                #expect(run.output == expected, "\(command) --upto \(upto)")
            }
        }
        let timelines = try await timeline(["timelines", "--log", log, "--upto", "3", "--json"])
        #expect(timelines.output.contains(#""events":1,"#), "\(timelines)")
    }

    @Test func anImportedLogIsOneBatchForUpto() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("store.jsonl")
        let run = try await timeline(["import", life, "--log", log])
        try #require(run.status == 0, "\(run)")
        // "imported N facts from … (records 1-N)"
        let last = try #require(Int(run.output.split(separator: "-").last?.dropLast(2) ?? ""), "\(run.output)")
        let partial = try await timeline(["rows", "--log", log, "--upto", "\(last - 1)", "--json"])
        #expect(partial.status == 0)
        #expect(partial.output.isEmpty)
        let whole = try await timeline(["rows", "--log", log, "--upto", "\(last)", "--json"])
        #expect(whole.outputLines.count > 40)
    }

    @Test(arguments: [(0, 0), (1, 1), (2, 1), (3, 1), (4, 4), (5, 5), (6, 6), (9, 6)])
    func uptoTakesWholeBatches(_ upTo: Int64, _ expectedCount: Int) {
        // Batches: [1], [2, 3, 4], [5], [6].
        let fact = Fact.timelineRemoved(timeline: "t")
        let records = [Record(position: 1, fact: fact), Record(position: 2, fact: fact, batchRemainder: 2),
                       Record(position: 3, fact: fact, batchRemainder: 1), Record(position: 4, fact: fact),
                       Record(position: 5, fact: fact), Record(position: 6, fact: fact)]
        #expect(records.committedCount(upTo: upTo) == expectedCount)
    }

    // MARK: Missing and corrupt logs

    @Test func aMissingLogIsNeverCreatedExceptByTheCommandsThatStartOne() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("mistyped.jsonl")
        for arguments in [["add-event", "--timeline", "life", "--title", "X", "--date", "2000"],
                          ["rename-timeline", "--timeline", "life", "--name", "X"], ["remove-event", "--event", "e1"],
                          ["rows"], ["timelines"], ["verify"], ["export"], ["rebuild"], ["repair"]] {
            let run = try await timeline(arguments + ["--log", path])
            #expect(run.status == 1, "\(arguments): \(run)")
            #expect(run.output.isEmpty)
            #expect(run.errors == "timeline: there is no log at \(path)\ntimeline: start one with: timeline "
                + "create-timeline --name NAME --log \(path) (or: timeline import FILE --log \(path))\n", "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(arguments) created the log")
        }
        let created = try await timeline(["create-timeline", "--name", "Life", "--log", path])
        #expect(created.status == 0)
        #expect(FileManager.default.fileExists(atPath: path))
        let imported = try await timeline(["import", life, "--log", directory.path("imported.jsonl")])
        #expect(imported.status == 0)
    }

    /// A first command that the rules refuse (or an import they refuse) starts no log: the
    /// file it made to decide under the log's lock is taken away again.
    @Test func aRefusedFirstCommandLeavesNoLog() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("new.jsonl")
        let refused = try await timeline(["create-timeline", "--timeline", "a\tb", "--name", "A", "--log", path])
        #expect(refused.status == 1 && refused.errors.contains("create-timeline refused: timeline id"), "\(refused)")
        let tooLong = try await timeline(["create-timeline", "--timeline", "t", "--name", String(repeating: "x", count: 5000),
                                          "--log", path])
        #expect(tooLong.status == 1 && tooLong.errors.contains("at most 1000 are allowed"), "\(tooLong)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
        let rows = try await timeline(["rows", "--log", path])
        #expect(rows.errors.hasPrefix("timeline: there is no log at \(path)\n"), "\(rows)")
    }

    @Test func aFirstRowsInAnEmptyDirectorySaysHowToStart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try await timeline(["rows"], in: directory.url)
        #expect(run.status == 1)
        #expect(run.errors == "timeline: there is no log at ./timeline.jsonl yet (the default log; --log PATH or "
            + "$TIMELINE_LOG names another)\ntimeline: start one with: timeline create-timeline --name NAME\n")
        let fromEnvironment = try await timeline(["rows"], in: directory.url,
                                                 environment: ["TIMELINE_LOG": directory.path("env.jsonl")])
        #expect(fromEnvironment.errors.hasPrefix("timeline: there is no log at \(directory.path("env.jsonl")) (from $TIMELINE_LOG)\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aCorruptLogPointsToRepair() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        try directory.write("store.jsonl", try directory.read("store.jsonl").replacingOccurrences(of: "Born", with: "Borm"))
        let hint = "timeline: to move the bad lines to \(log).rejected and keep the rest: timeline repair --log \(log)\n"
        for arguments in [["rows", "--log", log], ["verify", "--log", log], ["export", "--log", log],
                          ["timelines", "--log", log], ["replay", log],
                          ["add-event", "--timeline", "life", "--title", "X", "--date", "2000", "--log", log]] {
            let run = try await timeline(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.errors.contains("line 2: checksum mismatch"), "\(arguments): \(run.errors)")
            #expect(run.errors.hasSuffix(hint), "\(arguments): \(run.errors)")
        }
        // Standard input cannot be repaired: no hint.
        for script in ["\"$TIMELINE\" replay - < '\(log)'", "cat '\(log)' | \"$TIMELINE\" replay -"] {
            let piped = try await shell(script)
            #expect(piped.errors == "timeline: standard input: line 2: checksum mismatch\n", "\(script)")
        }
    }

    // MARK: Hostile text

    @Test func controlCharactersNeverReachTheTerminalRaw() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("store.jsonl")
        let red = "\u{1B}[31mRED\u{9B}2J\u{7F}"
        let created = try await timeline(["create-timeline", "--timeline", "life", "--name", red, "--log", log])
        #expect(created.status == 0, "\(created)")
        let added = try await timeline(["add-event", "--timeline", "life", "--title", red, "--date", "2000",
                                        "--event", "e1", "--log", log])
        #expect(added.status == 0, "\(added)")
        let refused = try await timeline(["add-event", "--timeline", red, "--title", "X", "--date", "2000", "--log", log])
        #expect(refused.status == 1)
        var human = created.output + added.output + refused.errors
        for arguments in [["rows", "--log", log], ["timelines", "--log", log], ["rows", "--log", log, "--sections", "year"]] {
            let run = try await timeline(arguments)
            #expect(run.status == 0)
            human += run.output + run.errors
        }
        #expect(!human.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(human)")
        #expect(human.contains(#"\u{1b}[31mRED\u{9b}2J\u{7f}"#))
        // JSON keeps its own escaping, as the contract says.
        let json = try await timeline(["rows", "--log", log, "--json"])
        #expect(json.output.contains(#""title":"\u001b[31mRED"#))
    }

    // MARK: The tool as a person meets it

    @Test func versionIsPrinted() async throws {
        let run = try await timeline(["--version"])
        #expect(run.status == 0)
        #expect(run.output == "timeline \(TimelineTool.version)\n")
    }

    @Test func rowsShowTheEventIDs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        let run = try await timeline(["rows", "--log", log, "--now", "2026-11-29"])
        #expect(run.output == """
            KIND     DATE     TIMELINE  EVENT   TITLE
            single   1990     life      born    Born
            start    2019-03  life      berlin  Berlin
            ongoing  now      life      berlin  Berlin

            """)
    }

    @Test func onATerminalTablesFitItsWidthAndShowColour() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        _ = try await timeline(["add-event", "--timeline", "life", "--title", String(repeating: "東京に住む ", count: 12),
                                "--date", "2020", "--log", log])
        func script(columns: String?) -> String {
            let setting = columns.map { "export COLUMNS=\($0)" } ?? "unset COLUMNS"
            return "script -qec 'stty cols 50; \(setting); \"$TIMELINE\" rows --log store.jsonl --now 2026-11-29' /dev/null"
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            print("skipped: no /usr/bin/script to run the tool on a terminal")
            return
        }
        let run = try await shell(script(columns: nil), in: directory.url, environment: ["NO_COLOR": "", "TERM": "xterm"])
        #expect(run.status == 0, "\(run)")
        let lines = run.output.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
        #expect(lines.count == 5, "\(run.output)")
        #expect(run.output.contains("\u{1B}[32mstart\u{1B}[0m"), "colour for the kinds: \(run.output)")
        for line in lines {
            let visible = String(line).replacingOccurrences(of: #"\u{1B}\[[0-9;]*m"#, with: "", options: .regularExpression)
            #expect(DisplayWidth.of(visible) <= 50, "\(visible)")
        }
        #expect(run.output.contains("…"))

        let plain = try await shell(script(columns: nil), in: directory.url, environment: ["NO_COLOR": "1", "TERM": "xterm"])
        #expect(!plain.output.contains("\u{1B}["), "NO_COLOR: \(plain.output)")
        let wide = try await shell(script(columns: "300"), in: directory.url, environment: ["TERM": "xterm"])
        #expect(!wide.output.contains("…"), "$COLUMNS wins: \(wide.output)")
        // Not a terminal: nothing cut, no colour, whatever $COLUMNS says.
        let file = try await timeline(["rows", "--log", log], environment: ["COLUMNS": "40"])
        #expect(!file.output.contains("…") && !file.output.contains("\u{1B}"))
    }
}
