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
}
