import Foundation
import Testing
import TimelineCore
import TimelineProjections
import TimelineTestSupport
import SystemShim

/// Whether the process `pid` holds a granted (not awaited) exclusive `flock` on the file
/// with inode `inode`, as `/proc/locks` tells (Linux).
func holdsExclusiveLock(pid: pid_t, inode: UInt64) -> Bool {
    guard let text = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return false }
    return text.split(separator: "\n").contains { line in
        let fields = line.split(separator: " ")
        // "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE START END"; a waiter has "->" after "N:".
        guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", fields[4] == "\(pid)" else { return false }
        return fields[5].split(separator: ":").last == "\(inode)"
    }
}

func inode(of path: String) -> UInt64? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return UInt64(info.st_ino)
}

/// Whether every acknowledged batch is in the log exactly once (one whole batch with its
/// command id) or, in its bytes, in the side file `rejected`.
func expectKept(_ acknowledged: [Acknowledged], records: [Record], rejected: String,
                sourceLocation: SourceLocation = #_sourceLocation) {
    var byCommand: [String: [Record]] = [:]
    for record in records { if let id = record.commandID { byCommand[id, default: []].append(record) } }
    for send in acknowledged {
        if let batch = byCommand[send.commandID] {
            #expect(batch.first.map { $0.batchRemainder + 1 } == batch.count, "\(send): not one whole batch",
                    sourceLocation: sourceLocation)
            #expect(zip(batch, batch.dropFirst()).allSatisfy { $0.position + 1 == $1.position },
                    sourceLocation: sourceLocation)
        } else {
            #expect(rejected.contains("\"cmd\":\"\(send.commandID)\""), "\(send) is lost: in neither file",
                    sourceLocation: sourceLocation)
        }
    }
}

@Suite("Hostile processes on one log", .serialized)
struct HostileProcessTests {
    /// A valid log of `events` events with a torn tail (a record cut mid-line).
    static func tornLog(events: Int) -> (text: String, tail: String) {
        var text = #"{"seq":1,"type":"timelineCreated","data":{"timeline":"life","name":"Life"}}"# + "\n"
        for number in 0..<events {
            text += #"{"seq":\#(number + 2),"type":"eventAdded","data":{"event":"old\#(number)","timeline":"life","#
                + #""title":"Old \#(number)","date":"2001-02-03"}}"# + "\n"
        }
        let tail = #"{"seq":\#(events + 2),"type":"eventAdded","data":{"event":"torn","timel"#
        return (text, tail)
    }

    #if os(Linux)
    @Test func aWriterKilledWhileItHoldsTheLockLeavesTheOthersWorkingAndLosesNothing() async throws {
        let stress = try #require(stressToolURL, "timeline-stress not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let scratch = directory.url.path
        let log = directory.path("killed.jsonl")
        _ = try await Self.createdLife(log)
        let logInode = try #require(inode(of: log))

        let tool = try #require(toolURL, "timeline not built")
        // A follower sees the killed writers' torn tails as not yet written, and the records after them.
        let watcher = try SpawnedProcess(tool, ["watch", "--log", log, "--now", MultiProcessTests.now, "--json",
                                                "--sections", "year"], name: "watch", scratch: scratch)
        let watching = await eventually(until: .now + .seconds(60)) { !watcher.outputLines.isEmpty || !watcher.isRunning }
        try #require(watching && watcher.isRunning, "watch did not start: \(watcher.errors)")
        let steady = try SpawnedProcess(stress, [log, "21", "0", "0", "shared"], name: "steady", scratch: scratch)
        var victims: [SpawnedProcess] = []
        var random = SplitMix64(seed: 0xD1E)
        var caughtHolding = 0
        let deadline = ContinuousClock.now + .seconds(150)
        var round = 0
        while caughtHolding < 10, round < 40, ContinuousClock.now < deadline {
            round += 1
            let victim = try SpawnedProcess(stress, [log, String(100 + round), "0", "0", "shared"],
                                            name: "victim-\(round)", scratch: scratch)
            victims.append(victim)
            let started = await eventually(until: .now + .seconds(60)) { !victim.outputLines.isEmpty || !victim.isRunning }
            try #require(started && victim.isRunning, "round \(round): the writer did not start: \(victim.errors)")
            // Stop it at random moments until it is caught holding the lock, then kill it there.
            var holding = false
            for _ in 0..<200 where !holding {
                usleep(UInt32(random.below(3000)))
                victim.send(SIGSTOP)
                usleep(200)
                holding = holdsExclusiveLock(pid: victim.pid, inode: logInode)
                if !holding { victim.send(SIGCONT) }
            }
            victim.killNow()
            if holding { caughtHolding += 1 }
            // The kernel let go of the lock: the other writer keeps acknowledging.
            let before = steady.outputLines.count
            let moved = await eventually(until: .now + .seconds(60)) { steady.outputLines.count > before + 1 }
            #expect(moved, "round \(round): the other writer stalled (killed holding the lock: \(holding))")
            #expect(steady.isRunning, "the other writer stopped: \(steady.errors)")
        }
        #expect(caughtHolding > 0, "no writer was caught holding the lock in \(round) rounds")
        steady.killNow()

        // Opening for writing cuts a torn tail (to the side file); everything acknowledged is there once.
        let reopened = try await timeline(["create-timeline", "--log", log, "--timeline", "after", "--name", "After"])
        #expect(reopened.status == 0, "\(reopened)")
        let records = try FileEventLog.read(path: log).records
        let acknowledged = ([steady] + victims).flatMap { Acknowledged.parse($0.outputLines) }
        expectEachOnce(acknowledged, in: records)
        let verified = try await timeline(["verify", "--log", log])
        #expect(verified.status == 0, "\(verified)")
        let view = ViewDefinition(sections: .year)
        let final = try expectedRows(records, upto: Int64(records.count), view: view,
                                     now: try DateValue(parsing: MultiProcessTests.now).instant)
        let caughtUp = await eventually(until: .now + .seconds(60)) {
            (try? MultiProcessTests.checkWatcher(watcher.outputLines, view: view, records: records, name: ""))
                .map { $0 as NSArray == final as NSArray } == true
        }
        #expect(caughtUp, "the follower did not catch up")
        watcher.send(SIGINT)
        let ended = await watcher.waitForExit(until: .now + .seconds(30))
        #expect(ended && watcher.exitStatus == 0, "\(watcher.errors)")
        _ = try MultiProcessTests.checkWatcher(watcher.outputLines, view: view, records: records, name: "watch")
        print("killed \(round) writers, \(caughtHolding) of them holding the log's lock; "
              + "\(acknowledged.count) sends acknowledged")
    }
    #endif

    @Test func aWriterRacingARepairOfATornTailKeepsItsRecord() async throws {
        let tool = try #require(toolURL, "timeline not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let scratch = directory.url.path
        let (text, tail) = Self.tornLog(events: 1)
        let deadline = ContinuousClock.now + .seconds(150)
        var rounds = 0, landed = 0
        while rounds < 100, ContinuousClock.now < deadline {
            rounds += 1
            let log = try directory.write("race-\(rounds).jsonl", text + tail)
            let event = "new\(rounds)"
            let writer = try SpawnedProcess(tool, ["add-event", "--log", log, "--event", event, "--timeline", "life",
                                                   "--title", "New", "--date", "2020-01-02"],
                                            name: "writer-\(rounds)", scratch: scratch)
            let repair = try SpawnedProcess(tool, ["repair", "--log", log], name: "repair-\(rounds)", scratch: scratch)
            for process in [writer, repair] {
                let ended = await process.waitForExit(until: .now + .seconds(60))
                try #require(ended, "round \(rounds): a process did not finish")
            }
            #expect(repair.exitStatus == 0, "round \(rounds): repair: \(repair.errors)")
            #expect(writer.exitStatus == 0, "round \(rounds): add-event: \(writer.errors)")
            let contents = try FileEventLog.read(path: log)
            #expect(throws: Never.self, "round \(rounds)") { _ = try LogValidator.validate(contents) }
            #expect(contents.tornTail == nil, "round \(rounds)")
            let rejected = (try? String(contentsOfFile: FileEventLog.sideFilePath(for: log), encoding: .utf8)) ?? ""
            // The torn bytes are kept, byte for byte, once.
            #expect(rejected.components(separatedBy: tail).count == 2, "round \(rounds): torn bytes: \(rejected)")
            if writer.exitStatus == 0 {
                let inLog = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("\"event\":\"\(event)\"")
                #expect(inLog || rejected.contains("\"event\":\"\(event)\""),
                        "round \(rounds): the acknowledged record is in neither the log nor the side file")
                if inLog { landed += 1 }
            }
        }
        #expect(rounds >= 20, "only \(rounds) rounds ran")
        print("repair race: \(rounds) rounds, \(landed) records in the log")
    }

    @Test func writersKilledWhileRepairRunsAndRepairKilledWhileWritersWaitLoseNothing() async throws {
        let tool = try #require(toolURL, "timeline not built")
        let stress = try #require(stressToolURL, "timeline-stress not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let scratch = directory.url.path
        let (text, tail) = Self.tornLog(events: 3000)
        var random = SplitMix64(seed: 0x12E9A1)
        let deadline = ContinuousClock.now + .seconds(150)
        var rounds = 0
        while rounds < 16, ContinuousClock.now < deadline {
            rounds += 1
            let log = try directory.write("crash-\(rounds).jsonl", text + tail)
            let killRepair = rounds % 2 == 0
            let writers = try [1, 2].map { number in
                try SpawnedProcess(stress, [log, String(rounds * 10 + number), "0", "0", "shared"],
                                   name: "writer-\(rounds)-\(number)", scratch: scratch)
            }
            usleep(UInt32(random.below(40_000)))
            let repair = try SpawnedProcess(tool, ["repair", "--log", log], name: "repair-\(rounds)", scratch: scratch)
            usleep(UInt32(random.below(killRepair ? 60_000 : 30_000)))
            if killRepair { repair.killNow() } else { for writer in writers { writer.killNow() } }
            let repairEnded = await repair.waitForExit(until: .now + .seconds(60))
            try #require(repairEnded, "round \(rounds): repair did not finish")
            if !killRepair { #expect(repair.exitStatus == 0, "round \(rounds): \(repair.errors)") }
            if killRepair {
                // The writers go on once the killed repair's lock is released.
                for writer in writers {
                    let before = writer.outputLines.count
                    let moved = await eventually(until: .now + .seconds(60)) {
                        writer.outputLines.count > before || !writer.isRunning
                    }
                    #expect(moved && writer.isRunning, "round \(rounds): a writer stalled: \(writer.errors)")
                }
            }
            for writer in writers {
                writer.killNow()
                #expect(writer.terminatingSignal == SIGKILL, "round \(rounds): a writer stopped: \(writer.errors)")
            }

            // The log verifies, or repairs and then verifies; every acknowledged batch is kept.
            if (try? LogValidator.validate(FileEventLog.read(path: log))) == nil {
                let repaired = try await timeline(["repair", "--log", log])
                #expect(repaired.status == 0, "round \(rounds): \(repaired)")
            }
            let verified = try await timeline(["verify", "--log", log])
            #expect(verified.status == 0, "round \(rounds): \(verified)")
            let contents = try FileEventLog.read(path: log)
            let rejected = (try? String(contentsOfFile: FileEventLog.sideFilePath(for: log), encoding: .utf8)) ?? ""
            expectKept(writers.flatMap { Acknowledged.parse($0.outputLines) }, records: contents.records,
                       rejected: rejected)
            #expect(contents.records.count >= 3001, "round \(rounds): records were lost")
        }
        #expect(rounds >= 4, "only \(rounds) rounds ran")
    }

    @Test func aFollowerOfALogThatIsRepairedGetsAResetAndGoesOn() async throws {
        let tool = try #require(toolURL, "timeline not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("repaired.jsonl")
        for arguments in [["create-timeline", "--timeline", "life", "--name", "Life"],
                          ["add-event", "--event", "a", "--timeline", "life", "--title", "A", "--date", "1990"]] {
            let run = try await timeline(arguments + ["--log", log])
            try #require(run.status == 0, "\(run)")
        }
        let watcher = try await startedWatch(tool, log: log, in: directory)
        // A line that is not a record lands in the middle; then a repair moves it aside.
        try appendForeign("not a record\n", to: log)
        let refused = try await timeline(["add-event", "--log", log, "--event", "b", "--timeline", "life", "--title", "B",
                                          "--date", "1991"])
        #expect(refused.status == 1, "\(refused)")
        let repaired = try await timeline(["repair", "--log", log])
        try #require(repaired.status == 0, "\(repaired)")
        let added = try await timeline(["add-event", "--log", log, "--event", "c", "--timeline", "life", "--title", "C",
                                        "--date", "1992"])
        try #require(added.status == 0, "\(added)")
        let records = try FileEventLog.read(path: log).records
        let final = try expectedRows(records, upto: Int64(records.count), view: ViewDefinition(),
                                     now: try DateValue(parsing: MultiProcessTests.now).instant)
        let caughtUp = await eventually(until: .now + .seconds(60)) {
            (try? MultiProcessTests.checkWatcher(watcher.outputLines, view: ViewDefinition(), records: records, name: ""))
                .map { $0 as NSArray == final as NSArray } == true || !watcher.isRunning
        }
        #expect(caughtUp && watcher.isRunning, "the follower did not follow the repaired log: \(watcher.output)\(watcher.errors)")
        watcher.send(SIGINT)
        let ended = await watcher.waitForExit(until: .now + .seconds(30))
        #expect(ended && watcher.exitStatus == 0, "\(watcher.errors)")
        _ = try MultiProcessTests.checkWatcher(watcher.outputLines, view: ViewDefinition(), records: records, name: "watch")
        #expect(final.count == 2)
    }

    /// A follower that may only read the log (a widget, another user): `watch` reads and
    /// follows it, leaves a torn tail to the writers, and a write through it fails, naming why.
    @Test func aProcessThatMayOnlyReadTheLogFollowsIt() async throws {
        let tool = try #require(toolURL, "timeline not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("readable.jsonl")
        for arguments in [["create-timeline", "--timeline", "life", "--name", "Life"],
                          ["add-event", "--event", "a", "--timeline", "life", "--title", "A", "--date", "1990"]] {
            let run = try await timeline(arguments + ["--log", log])
            try #require(run.status == 0, "\(run)")
        }
        // Root may write any file: drop to another user with setpriv, or skip.
        var command: (URL, [String]) = (tool, [])
        if getuid() == 0 {
            let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
            guard FileManager.default.isExecutableFile(atPath: setpriv.path) else {
                print("skipped: running as root without setpriv, a read-only log cannot be made")
                return
            }
            command = (setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", tool.path])
            chmod(directory.url.path, 0o755)
            chmod(log, 0o644)
        } else {
            chmod(log, 0o444)
        }
        let handle = try #require(FileHandle(forWritingAtPath: log))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"seq":3,"type":"eventAdd"#.utf8))
        try handle.close()
        let torn = try #require(FileManager.default.contents(atPath: log))
        // `rows` reads it too, and says that the torn tail was left, not cut.
        let rows = Process()
        rows.executableURL = command.0
        rows.arguments = command.1 + ["rows", "--log", log]
        let errors = Pipe()
        rows.standardError = errors
        rows.standardOutput = FileHandle.nullDevice
        try rows.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        rows.waitUntilExit()
        #expect(rows.terminationStatus == 0 && said.contains("not applied (left in the log") && !said.contains("cut off"),
                "\(said)")
        #expect(!FileManager.default.fileExists(atPath: log + ".rejected"))

        let watcher = try SpawnedProcess(command.0, command.1 + ["watch", "--log", log, "--now", MultiProcessTests.now,
                                                                 "--json"], name: "watch", scratch: directory.url.path)
        let started = await eventually(until: .now + .seconds(60)) { !watcher.outputLines.isEmpty || !watcher.isRunning }
        try #require(started && watcher.isRunning, "watch of a read-only log did not start: \(watcher.errors)")
        #expect(try WatchLine(watcher.outputLines[0]).rows.count == 1)
        #expect(FileManager.default.contents(atPath: log) == torn, "a reader changed the log")
        let refused = try await run(command.0, command.1 + ["add-event", "--log", log, "--event", "r", "--timeline",
                                                             "life", "--title", "R", "--date", "2001"])
        #expect(refused.status == 1 && refused.errors.contains("open for writing failed"), "\(refused)")
        #expect(FileManager.default.contents(atPath: log) == torn, "a reader changed the log")

        let added = try await timeline(["add-event", "--log", log, "--event", "b", "--timeline", "life", "--title", "B",
                                        "--date", "1991"])
        try #require(added.status == 0, "\(added)")
        let arrived = await eventually(until: .now + .seconds(60)) { watcher.outputLines.count >= 2 || !watcher.isRunning }
        #expect(arrived && watcher.isRunning, "the change did not arrive: \(watcher.errors)")
        let records = try FileEventLog.read(path: log).records
        _ = try MultiProcessTests.checkWatcher(watcher.outputLines, view: ViewDefinition(), records: records, name: "watch")
        watcher.send(SIGINT)
        let ended = await watcher.waitForExit(until: .now + .seconds(30))
        #expect(ended && watcher.exitStatus == 0, "\(watcher.errors)")
    }

    /// A log named through a symbolic link (to a file in another directory) is followed:
    /// appends through the link and a repair of its target reach the watcher.
    @Test func watchFollowsALogNamedThroughASymbolicLink() async throws {
        let tool = try #require(toolURL, "timeline not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path("real"), withIntermediateDirectories: true)
        let target = directory.path("real/log.jsonl"), link = directory.path("link.jsonl")
        let created = try await timeline(["create-timeline", "--log", target, "--timeline", "life", "--name", "Life"])
        try #require(created.status == 0, "\(created)")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real/log.jsonl")
        let watcher = try SpawnedProcess(tool, ["watch", "--log", link, "--now", MultiProcessTests.now, "--json"],
                                         name: "watch", scratch: directory.url.path)
        let started = await eventually(until: .now + .seconds(60)) { !watcher.outputLines.isEmpty || !watcher.isRunning }
        try #require(started && watcher.isRunning, "watch did not start: \(watcher.errors)")
        let added = try await timeline(["add-event", "--log", link, "--event", "a", "--timeline", "life", "--title", "A",
                                        "--date", "1990"])
        try #require(added.status == 0, "\(added)")
        let arrived = await eventually(until: .now + .seconds(30)) { watcher.outputLines.count >= 2 || !watcher.isRunning }
        #expect(arrived && watcher.isRunning, "the append through the link did not arrive: \(watcher.output)")
        // A torn tail, then a repair of the target (the link stays), then another append.
        let handle = try #require(FileHandle(forWritingAtPath: target))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"seq":3,"type":"eventAdd"#.utf8))
        try handle.close()
        let repaired = try await timeline(["repair", "--log", link])
        try #require(repaired.status == 0, "\(repaired)")
        let again = try await timeline(["add-event", "--log", link, "--event", "b", "--timeline", "life", "--title", "B",
                                        "--date", "1991"])
        try #require(again.status == 0, "\(again)")
        let records = try FileEventLog.read(path: link).records
        let final = try expectedRows(records, upto: Int64(records.count), view: ViewDefinition(),
                                     now: try DateValue(parsing: MultiProcessTests.now).instant)
        let caughtUp = await eventually(until: .now + .seconds(30)) {
            (try? MultiProcessTests.checkWatcher(watcher.outputLines, view: ViewDefinition(), records: records, name: ""))
                .map { $0 as NSArray == final as NSArray } == true || !watcher.isRunning
        }
        #expect(caughtUp && watcher.isRunning, "the watcher did not follow: \(watcher.output)")
        #expect(final.count == 2)
        watcher.send(SIGINT)
        let ended = await watcher.waitForExit(until: .now + .seconds(30))
        #expect(ended && watcher.exitStatus == 0, "\(watcher.errors)")
    }

    /// `strace` with fault injection, if installed.
    static let strace: URL? = ["/usr/bin/strace", "/bin/strace", "/usr/local/bin/strace"]
        .map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }

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
