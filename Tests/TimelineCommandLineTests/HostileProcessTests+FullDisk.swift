import Foundation
import Testing
import TimelineCore
import TimelineProjections
import TimelineTestSupport
import SystemShim

extension HostileProcessTests {
    // MARK: Full disks and failed writes
    /// Creates the timeline `life` in the log at `log` (a new log); returns the log's bytes.
    static func createdLife(_ log: String) async throws -> Data {
        let created = try await timeline(["create-timeline", "--log", log, "--timeline", "life", "--name", "Life"])
        try #require(created.status == 0, "\(created)")
        return try #require(FileManager.default.contents(atPath: log))
    }

    /// The tool run with `arguments` under `strace` with `faults` (its options), or `nil`,
    /// said why, when strace is not installed or cannot trace here.
    static func traced(_ faults: [String], _ arguments: [String]) async throws -> ToolRun? {
        let tool = try #require(toolURL, "timeline not built")
        guard let strace else {
            print("skipped: strace is not installed, so no fault can be injected")
            return nil
        }
        let traced = try await run(strace, ["-f", "-o", "/dev/null"] + faults + [tool.path] + arguments)
        if traced.errors.contains("PTRACE") || traced.errors.hasPrefix("strace:") {
            print("skipped: strace cannot trace here: \(traced.errors)")
            return nil
        }
        return traced
    }

    @Test(arguments: [
        // fsync fails, and so does undoing the append: the record may be in the log.
        (["-e", "inject=fsync:error=EIO", "-e", "inject=ftruncate:error=EIO"], true),
        // Every fsync fails: the append is cut back, but the cut may not be durable either.
        (["-e", "inject=fsync:error=EIO"], true),
        // Only the append's fsync fails: cut back durably, the record is not in the log.
        (["-e", "inject=fsync:error=EIO:when=1"], false),
    ])
    func aFailedFsyncExitsOneAndSaysWhetherTheRecordMayBeInTheLog(_ faults: [String], mayHaveLanded: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("faults.jsonl")
        let before = try await Self.createdLife(log)
        guard let traced = try await Self.traced(["-e", "trace=fsync,ftruncate"] + faults,
                                                 ["add-event", "--log", log, "--event", "e1", "--timeline", "life",
                                                  "--title", "Faulty", "--date", "2000"]) else { return }
        #expect(traced.status == 1, "\(traced)")
        #expect(traced.errors.contains("fsync failed"), "\(traced)")
        #expect(traced.errors.contains("may be in the log") == mayHaveLanded, "\(traced)")
        if mayHaveLanded {
            #expect(traced.errors.contains("its outcome is unknown") && traced.errors.contains("before running add-event "
                    + "again; a command run with --command-id ID is never appended twice"), "\(traced)")
        }
        let after = try #require(FileManager.default.contents(atPath: log))
        if mayHaveLanded {
            // With ftruncate failing, the record stayed: the message is what stops a duplicate.
            #expect(after.starts(with: before))
        } else {
            #expect(after == before, "the record stayed in the log")
        }
        let rows = try await timeline(["rows", "--log", log, "--json"])
        #expect(rows.status == 0, "\(rows)")
    }

    /// A replica's send that the shared log took, but whose outcome the replica could not
    /// mirror (its disk failed), says it was sent, not "pending": sending it again would
    /// record it twice. The mirror is left as it was (not ending in part of a line), and
    /// the next sync takes the outcome in without sending it again.
    @Test func aSendTheReplicaCannotRecordSaysItWasSent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shared = directory.path("shared.jsonl"), phone = directory.path("phone.jsonl")
        _ = try await Self.createdLife(shared)
        let cloned = try await timeline(["clone", shared, "--log", phone])
        try #require(cloned.status == 0, "\(cloned)")
        let mirror = try #require(FileManager.default.contents(atPath: phone))
        // The mirror's write lands, its fsync fails: the append is taken back.
        guard let traced = try await Self.traced(["-P", phone, "-e", "trace=fsync", "-e", "inject=fsync:error=EIO"],
                                                 ["add-event", "--log", phone, "--event", "e1", "--timeline", "life",
                                                  "--title", "Sent", "--date", "2000"]) else { return }
        #expect(traced.status == 0, "\(traced)")
        #expect(traced.output.hasSuffix("(sent; its outcome is not recorded here yet)\n"), "\(traced)")
        #expect(traced.errors.contains(":1 was sent to \(shared) (do not send it again), but this replica could not "
                + "record that: cannot use \(phone)"), "\(traced)")
        #expect(traced.errors.contains("to take in the outcome: timeline sync --log \(phone)"), "\(traced)")
        #expect(FileManager.default.contents(atPath: phone) == mirror, "the mirror kept a record it did not sync")
        let sync = try await timeline(["sync", "--log", phone, "--json"])
        #expect(sync.status == 0 && sync.output.contains("\"accepted\":1,") && sync.output.contains("\"pending\":0"),
                "\(sync)")
        let rows = try await timeline(["rows", "--log", shared, "--json"])
        #expect(rows.output.components(separatedBy: "\"e1\"").count == 2, "\(rows)")
        // A sync whose mirror the full disk refuses: make room, then sync again (the
        // advice said "sync" to every command, `notices --dismiss-all` too).
        let added = try await timeline(["add-event", "--log", shared, "--event", "e2", "--timeline", "life",
                                        "--title", "Later", "--date", "2001"])
        try #require(added.status == 0, "\(added)")
        guard let full = try await Self.traced(["-P", phone, "-e", "trace=write", "-e", "inject=write:error=ENOSPC"],
                                               ["sync", "--log", phone]) else { return }
        #expect(full.status == 1 && full.errors.hasSuffix("No space left on device (errno 28); nothing was lost\n"
            + "timeline: make room on the disk, then run it again\n"), "\(full)")
    }

    /// A clone that cannot write the replica's files (the disk is full) leaves nothing
    /// behind: the next clone onto the same path works.
    @Test func aCloneOnAFullDiskLeavesNothingBehind() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shared = directory.path("shared.jsonl"), phone = directory.path("phone.jsonl")
        _ = try await Self.createdLife(shared)
        guard let traced = try await Self.traced(["-e", "trace=write,pwrite64", "-e", "inject=write,pwrite64:error=ENOSPC"],
                                                 ["clone", shared, "--log", phone]) else { return }
        #expect(traced.status == 1, "\(traced)")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("phone") }
        #expect(left.isEmpty, "\(left)")
        let again = try await timeline(["clone", shared, "--log", phone])
        #expect(again.status == 0, "\(again)")
    }

    /// A checkpoint that cannot be written (the disk is full) costs only speed: the
    /// command succeeds, says so, and leaves no part of the file to keep the disk full.
    @Test func aFullDiskForTheCheckpointIsAWarningAndLeavesNoFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("full.jsonl")
        _ = try await Self.createdLife(log)
        try FileManager.default.removeItem(atPath: log + ".checkpoint")
        // The first write is the record's, the second the checkpoint's.
        guard let traced = try await Self.traced(["-e", "trace=pwrite64", "-e", "inject=pwrite64:error=ENOSPC:when=2"],
                                                 ["add-event", "--log", log, "--event", "e1", "--timeline", "life",
                                                  "--title", "Full", "--date", "2000"]) else { return }
        #expect(traced.status == 0, "\(traced)")
        #expect(traced.errors.contains("warning: checkpoint not saved: "), "\(traced)")
        #expect(traced.errors.contains("No space left on device"), "\(traced)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["full.jsonl"])
        let rows = try await timeline(["rows", "--log", log, "--json"])
        #expect(rows.status == 0 && rows.output.contains("\"e1\""), "\(rows)")
    }

    /// A rebuild that cannot save its checkpoint (the disk is full) fails naming the
    /// checkpoint, not its vanished temporary file, and says whether the one before stands.
    @Test(arguments: [true, false])
    func aFullDiskForARebuildsCheckpointSaysWhichCheckpointStands(hadOne: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("full.jsonl")
        _ = try await Self.createdLife(log)
        let checkpoint = log + ".checkpoint"
        if !hadOne { try FileManager.default.removeItem(atPath: checkpoint) }
        let before = FileManager.default.contents(atPath: checkpoint)
        // A rebuild writes nothing but its checkpoint.
        guard let traced = try await Self.traced(["-e", "trace=pwrite64", "-e", "inject=pwrite64:error=ENOSPC"],
                                                 ["rebuild", "--log", log]) else { return }
        #expect(traced.status == 1, "\(traced)")
        #expect(traced.errors.contains("\(log): every record checked, but the checkpoint was not saved: "
            + "\(checkpoint): write failed: No space left on device (errno 28); "), "\(traced)")
        #expect(traced.errors.contains(hadOne ? "the one saved before is kept" : "there is none"), "\(traced)")
        #expect(traced.errors.contains("run `timeline rebuild` again"), "\(traced)")
        #expect(!traced.errors.contains(".tmp-"), "\(traced)")
        #expect(FileManager.default.contents(atPath: checkpoint) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
            == (hadOne ? ["full.jsonl", "full.jsonl.checkpoint"] : ["full.jsonl"]))
    }

    /// An import that the disk cannot hold says that nothing was imported.
    @Test func aFullDiskForAnImportSaysNothingWasImported() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = directory.path("input.jsonl")
        try #"{"type":"timelineCreated","data":{"timeline":"life","name":"Life"}}"#.appending("\n")
            .write(toFile: input, atomically: true, encoding: .utf8)
        let log = directory.path("new.jsonl")
        guard let traced = try await Self.traced(["-e", "trace=pwrite64", "-e", "inject=pwrite64:error=ENOSPC"],
                                                 ["import", input, "--log", log]) else { return }
        #expect(traced.status == 1, "\(traced)")
        #expect(traced.errors.contains("No space left on device (errno 28); nothing imported"), "\(traced)")
        // The import made the log's file: it takes it away again, as a refused import does.
        #expect(!FileManager.default.fileExists(atPath: log))
        let rows = try await timeline(["rows", "--log", log])
        #expect(rows.status == 1 && rows.errors.contains("there is no log"), "\(rows)")
    }

    /// A disk that fills up midway through a big import, after some of its lines were
    /// written, leaves the log as it was, byte for byte: the batch is written a group of
    /// lines at a time, and what was written of it is taken back. The failing write is the
    /// first group's second (the import learns of it when it hands over the next group)
    /// or the second group's first (it learns of it at the end).
    @Test(arguments: [2, 4 + 1])
    func aDiskThatFillsUpMidwayThroughABigImportLeavesTheLogAsItWas(failing: Int) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("log.jsonl")
        let before = try await Self.createdLife(log)
        // More lines than one group of parts, so that the batch takes several writes.
        let count = FileEventLog.recordsPerWrittenGroup + FileEventLog.recordsPerEncodedPart / 2
        var lines = ""
        for number in 0..<count {
            lines += #"{"type":"eventAdded","data":{"event":"e\#(number)","timeline":"life","title":"T","date":"2000"}}"#
            lines += "\n"
        }
        let input = directory.path("input.jsonl")
        try lines.write(toFile: input, atomically: true, encoding: .utf8)
        // The first group's 4 parts are written one by one, on the thread that writes every
        // group; the write after them is the second group's.
        #expect(FileEventLog.recordsPerWrittenGroup == 4 * FileEventLog.recordsPerEncodedPart)
        guard let traced = try await Self.traced(["-e", "trace=pwrite64", "-e", "inject=pwrite64:error=ENOSPC:when=\(failing)"],
                                                 ["import", input, "--log", log]) else { return }
        #expect(traced.status == 1, "\(traced)")
        #expect(traced.errors.contains("No space left on device (errno 28); nothing imported"), "\(traced)")
        #expect(FileManager.default.contents(atPath: log) == before)
        let verify = try await timeline(["verify", "--log", log])
        #expect(verify.status == 0, "\(verify)")
    }

    /// A record whose line would be too long, after the first group of a big import, is
    /// refused before any line is written: the log stays as it was even when the batch
    /// could not have been taken back (every ftruncate fails).
    @Test func aLineTooLongLateInABigImportIsRefusedBeforeAnythingIsWritten() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("log.jsonl")
        let before = try await Self.createdLife(log)
        func line(_ number: Int, title: String) -> String {
            #"{"type":"eventAdded","data":{"event":"e\#(number)","timeline":"life","title":"\#(title)","date":"2000"}}"#
        }
        // A title of one character, "a" and combining accents: its line in the input fits
        // the reader's limit, its line in the store (with seq, at, v, more, crc) does not.
        let room = LogReader.maximumLineLength - 40 - line(0, title: "a").utf8.count
        let long = "a" + String(repeating: "\u{301}", count: room / 2)
        var text = ""
        for number in 0..<(FileEventLog.recordsPerWrittenGroup + 10) {
            text += line(number, title: number == FileEventLog.recordsPerWrittenGroup + 5 ? long : "T") + "\n"
        }
        let input = try directory.write("input.jsonl", text)
        guard let traced = try await Self.traced(["-e", "trace=ftruncate", "-e", "inject=ftruncate:error=EIO"],
                                                 ["import", input, "--log", log]) else { return }
        #expect(traced.status == 1, "\(traced)")
        #expect(traced.errors.contains("record too long") && traced.errors.contains("nothing imported"), "\(traced)")
        #expect(FileManager.default.contents(atPath: log) == before)
    }

    /// A command that the disk cannot hold says that the log is unchanged; the first
    /// command of a new log leaves no empty file behind, and says that no log was created
    /// (never that a log that did not exist is unchanged).
    @Test func aFullDiskForACommandSaysTheLogIsUnchanged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("full.jsonl")
        let full = ["-e", "trace=pwrite64", "-e", "inject=pwrite64:error=ENOSPC"]
        guard let first = try await Self.traced(full, ["create-timeline", "--log", log, "--timeline", "life",
                                                       "--name", "Life"]) else { return }
        #expect(first.status == 1, "\(first)")
        #expect(first.errors.contains("No space left on device (errno 28); no log was created"), "\(first)")
        #expect(!FileManager.default.fileExists(atPath: log))

        let before = try await Self.createdLife(log)
        guard let traced = try await Self.traced(full, ["add-event", "--log", log, "--event", "e1", "--timeline", "life",
                                                        "--title", "Full", "--date", "2000"]) else { return }
        #expect(traced.status == 1, "\(traced)")
        #expect(traced.errors.contains("No space left on device (errno 28); the log is unchanged"), "\(traced)")
        #expect(FileManager.default.contents(atPath: log) == before)
        // A revert says it as well (it said only "write failed").
        guard let revert = try await Self.traced(full, ["revert", "1", "--log", log]) else { return }
        #expect(revert.status == 1, "\(revert)")
        #expect(revert.errors.contains("No space left on device (errno 28); the log is unchanged"), "\(revert)")
        #expect(FileManager.default.contents(atPath: log) == before)
    }

    /// A torn tail on a full disk: the side file cannot take it, so it stays in the log
    /// (read as not yet written), the command still answers, and no empty side file is
    /// left; the next write on a disk with room cuts it as usual.
    @Test func aTornTailOnAFullDiskIsLeftInTheLogAndTheCommandAnswers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("torn.jsonl")
        let torn = try await Self.createdLife(log) + Data(#"{"seq":2,"type":"timelin"#.utf8)
        try torn.write(to: URL(fileURLWithPath: log))
        guard let rows = try await Self.traced(["-e", "trace=pwrite64", "-e", "inject=pwrite64:error=ENOSPC"],
                                               ["timelines", "--log", log]) else { return }
        #expect(rows.status == 0, "\(rows)")
        #expect(rows.output.contains("Life"), "\(rows)")
        #expect(rows.errors.contains("not applied (left in the log: \(log).rejected could not take it: "
                                     + "No space left on device; the next write tries again)"), "\(rows)")
        #expect(FileManager.default.contents(atPath: log) == torn)
        #expect(!FileManager.default.fileExists(atPath: log + ".rejected"))
        // A write cannot save the tail either: refused, never written over the tail.
        for faults in [["-e", "trace=pwrite64", "-e", "inject=pwrite64:error=ENOSPC"],
                       ["-e", "trace=pwrite64", "-e", "inject=pwrite64:error=ENOSPC:when=1..2"]] {
            guard let write = try await Self.traced(faults, ["add-event", "--log", log, "--timeline", "life",
                                                             "--title", "Lost", "--date", "2000"]) else { return }
            #expect(write.status == 1 && write.errors.contains("No space left on device"), "\(faults): \(write)")
            #expect(FileManager.default.contents(atPath: log) == torn, "\(faults)")
            #expect(!FileManager.default.fileExists(atPath: log + ".rejected"), "\(faults)")
        }
        let added = try await timeline(["add-event", "--log", log, "--timeline", "life", "--title", "Born", "--date", "1990"])
        #expect(added.status == 0 && added.errors.contains("cut off (saved in"), "\(added)")
        #expect(FileManager.default.contents(atPath: log + ".rejected") == Data((#"{"seq":2,"type":"timelin"# + "\n").utf8))
    }
}
