import Foundation
import Testing
import TimelineTestSupport
@testable import TimelineCommandLine

/// Replicas through the tool, as a person with two devices uses them (section 10).
@Suite("timeline on replicas, end to end")
struct ReplicaCommandTests {
    /// A shared log with a timeline `life` and an event `born`, and two replicas of it.
    func twoDevices(_ directory: TemporaryDirectory) async throws -> (shared: String, phone: String, laptop: String) {
        let shared = directory.path("shared.jsonl"), phone = directory.path("phone.jsonl")
        let laptop = directory.path("laptop.jsonl")
        #expect(try await timeline(["create-timeline", "--log", shared, "--timeline", "life", "--name", "Life"]).status == 0)
        #expect(try await timeline(["add-event", "--log", shared, "--timeline", "life", "--event", "born",
                                    "--title", "Born", "--date", "1990-04-12"]).status == 0)
        for replica in [phone, laptop] {
            let run = try await timeline(["clone", shared, "--log", replica])
            #expect(run.status == 0, "\(run)")
        }
        return (shared, phone, laptop)
    }

    /// The same facts imported twice on a replica queue one submission (the import's id
    /// made from its facts is the submission's own id there), as on a plain log.
    @Test func importingTheSameFactsTwiceOnAReplicaQueuesOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        let input = directory.path("retitle.jsonl")
        try #"{"type":"eventRetitled","data":{"event":"born","title":"Born at home"}}"#.write(toFile: input, atomically: true,
                                                                                               encoding: .utf8)
        let first = try await timeline(["import", input, "--log", phone])
        #expect(first.status == 0, "\(first)")
        let again = try await timeline(["import", input, "--log", phone])
        #expect(again.status == 0 && again.errors.contains("these facts were imported on this replica already, as "),
                "\(again)")
        #expect(try String(contentsOfFile: shared, encoding: .utf8).split(separator: "\n").count == 3)
    }

    /// A write command on a replica that waits for the shared log (another process holds
    /// its lock) says, after a moment, that the change is saved and is not to be sent
    /// again: stopped then, a person sent it again and it was recorded twice. Once the
    /// lock is let go, the command syncs as usual.
    @Test func aSendWaitingForTheSharedLogSaysItIsSaved() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        let holder = open(shared, O_RDONLY)
        try #require(holder >= 0)
        defer { close(holder) }
        try #require(flock(holder, LOCK_EX) == 0)
        let tool = try #require(toolURL, "timeline not built")
        let child = try SpawnedProcess(tool, ["add-event", "--log", phone, "--timeline", "life", "--event", "dentist",
                                              "--title", "Dentist", "--date", "2020-01-02"],
                                       name: "waiting", scratch: directory.url.path)
        defer { child.send(SIGKILL) }
        let deadline = ContinuousClock.now + .seconds(30)
        while !child.errors.contains("waiting for the shared log"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(child.errors.contains(":1; waiting for the shared log \(shared), which another process holds: if you "
                + "stop this, the change stays pending and the next sync sends it (do not run the command again"),
                "\(child.errors)")
        // `status` and `sync` say why they wait too (status waited in silence).
        let status = try SpawnedProcess(tool, ["status", "--log", phone], name: "status", scratch: directory.url.path)
        defer { status.send(SIGKILL) }
        while !status.errors.contains("waiting for the shared log"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(status.errors.contains("waiting for the shared log \(shared), which another process holds, to read its head"),
                "\(status.errors)")
        flock(holder, LOCK_UN)
        #expect(await child.waitForExit(until: .now + .seconds(30)))
        #expect(child.exitStatus == 0 && child.output.hasSuffix("(synced: position 3)\n"), "\(child.output)")
        #expect(await status.waitForExit(until: .now + .seconds(30)))
        #expect(status.exitStatus == 0 && status.output.contains("position 2 of "), "\(status.output)")
    }

    /// A clone cut short leaves a replica that mirrored nothing: cloning onto it again
    /// says a sync finishes it (it said only "exists already"); `history` of an event the
    /// mirror does not hold yet says the mirror may be behind.
    @Test func aCloneCutShortAndAHistoryBehindSayToSync() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        try Data().write(to: URL(fileURLWithPath: phone))  // as a killed clone leaves it
        let again = try await timeline(["clone", shared, "--log", phone])
        #expect(again.status == 1 && again.errors.contains("exists already: a replica that has mirrored nothing yet (a "
            + "clone cut short?); to finish it: timeline sync --log \(phone)"), "\(again)")
        // Its rows and its writes say so too (it printed "(no rows)", and an add said the
        // timeline was unknown, with no word of why).
        let warning = "warning: the replica \(phone) has mirrored nothing of its shared log yet (a clone cut short?): "
            + "what it shows is not the shared log's; to finish it: timeline sync --log \(phone)"
        let rows = try await timeline(["rows", "--log", phone])
        #expect(rows.status == 0 && rows.errors.contains(warning), "\(rows)")
        let add = try await timeline(["add-event", "--log", phone, "--timeline", "life", "--title", "X", "--date", "2001",
                                      "--offline"])
        #expect(add.status == 1 && add.errors.contains(warning), "\(add)")
        let synced = try await timeline(["sync", "--log", phone])
        #expect(!synced.errors.contains("mirrored nothing"), "\(synced)")
        #expect(synced.status == 0 && synced.output.contains("pulled 2 records"), "\(synced)")
        let added = try await timeline(["add-event", "--log", shared, "--timeline", "life", "--event", "later",
                                        "--title", "Later", "--date", "2001"])
        try #require(added.status == 0, "\(added)")
        let history = try await timeline(["history", "--event", "later", "--log", phone])
        #expect(history.status == 1 && history.errors.contains("no record touched event \"later\" (this replica's copy "
            + "of the shared log)\ntimeline: to fetch newer records: timeline sync --log \(phone)"), "\(history)")
    }

    /// A damaged line of the shared log that the replica mirrored: the advice names the
    /// mirror's copy of it (repair alone would move the record aside, lost), and putting it
    /// back, as said, mends the shared log.
    @Test func aDamagedSharedLineTheMirrorHoldsIsNamedWithItsCopy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        var lines = try String(contentsOfFile: shared, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        lines[1] = Substring(lines[1].replacingOccurrences(of: "\"Born\"", with: "\"Borm\""))
        try lines.joined(separator: "\n").write(toFile: shared, atomically: true, encoding: .utf8)
        let sync = try await timeline(["sync", "--log", phone])
        #expect(sync.status == 1 && sync.errors.contains("line 2: checksum mismatch") && sync.errors.contains(
            "this replica's mirror holds line 2 as it was synced (line 2 of \(phone), byte for byte): put it back in the "
            + "shared log in place of the damaged one, rather than repair it"), "\(sync)")
        let mirrored = try String(contentsOfFile: phone, encoding: .utf8).split(separator: "\n")
        lines[1] = mirrored[1]
        try lines.joined(separator: "\n").write(toFile: shared, atomically: true, encoding: .utf8)
        let again = try await timeline(["sync", "--log", phone])
        #expect(again.status == 0, "\(again)")
        #expect(try await timeline(["verify", "--log", shared]).status == 0)
    }

    /// A record of the shared log that breaks the rules (written by another program) is
    /// named as a person reads it: `record 3`, the rule, and where to look.
    @Test func aSharedRecordBreakingTheRulesIsNamed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        let mirror = try Data(contentsOf: URL(fileURLWithPath: phone))
        let handle = try #require(FileHandle(forWritingAtPath: shared))
        try handle.seekToEnd()
        let position = try String(contentsOfFile: shared, encoding: .utf8).split(separator: "\n").count + 1
        try handle.write(contentsOf: Data(#"{"seq":\#(position),"type":"eventRetitled","data":{"event":"ghost","title":"X"}}"#.utf8 + [0x0A]))
        try handle.close()
        let sync = try await timeline(["sync", "--log", phone])
        #expect(sync.status == 1 && sync.errors.contains("the shared log \(shared) cannot be synced with: its record \(position) breaks the rules: unknown event \"ghost\""),
                "\(sync)")
        #expect(!sync.errors.contains("record("), "\(sync)")
        // The refused record never reached the mirror: the replica still shows its rows,
        // still verifies, and offline sends still work until the shared log is put right.
        #expect(try Data(contentsOf: URL(fileURLWithPath: phone)) == mirror)
        #expect(try await timeline(["verify", "--log", phone]).status == 0)
        let rows = try await timeline(["rows", "--log", phone, "--json", "--now", "2026-12-01"])
        #expect(rows.output.contains(#""event":"born""#), "\(rows)")
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "Kept",
                                    "--offline"]).status == 0)
        #expect(try await timeline(["rows", "--log", phone, "--json", "--now", "2026-12-01"]).output.contains("Kept"))
    }

    @Test func anOfflineEditThatAnotherDeviceRemovedFirstBecomesANotice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, laptop) = try await twoDevices(directory)

        let offline = try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "Born here",
                                          "--offline"])
        #expect(offline.status == 0, "\(offline)")
        #expect(offline.errors.contains("not synced (--offline)"))
        let named = try await timeline(["rename-timeline", "--log", phone, "--timeline", "life", "--name", "Mine",
                                        "--offline"])
        #expect(named.status == 0)
        #expect(try await timeline(["timelines", "--log", phone, "--json"]).output.contains(#""name":"Mine""#))
        let shown = try await timeline(["rows", "--log", phone, "--json", "--now", "2026-12-01"])
        #expect(shown.output == #"{"event":"born","timeline":"life","title":"Born here","kind":"single","date":"1990-04-12","pending":true}"# + "\n")

        let removed = try await timeline(["remove-event", "--log", laptop, "--event", "born"])
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.output.contains("synced"))

        let sync = try await timeline(["sync", "--log", phone, "--json"])
        #expect(sync.status == 0, "\(sync)")
        #expect(sync.output == #"{"pushed":2,"accepted":1,"rejected":1,"pulled":3,"position":5,"pending":0}"# + "\n")
        #expect(sync.errors.contains("unknown event \"born\""))

        let notices = try await timeline(["notices", "--log", phone, "--json"])
        let device = try #require(notices.output.split(separator: "\"")[3].split(separator: ":").first)
        #expect(notices.output == "{\"command\":\"\(device):1\",\"rule\":\"unknownEvent\",\"message\":\"unknown event \\\"born\\\"\","
            + "\"position\":4,\"commands\":[{\"command\":\"retitleEvent\",\"data\":{\"event\":\"born\",\"title\":\"Born here\"}}]}\n")
        // The mirror is the shared log, byte for byte, and a log every command reads.
        #expect(try Data(contentsOf: URL(fileURLWithPath: phone)) == Data(contentsOf: URL(fileURLWithPath: shared)))
        let verified = try await timeline(["verify", "--log", phone])
        #expect(verified.output.hasSuffix("; a replica of \(shared), 0 pending\n") && verified.status == 0, "\(verified)")

        let status = try await timeline(["status", "--log", phone, "--json"])
        #expect(status.output == "{\"device\":\"\(device)\",\"shared\":\(jsonString(shared)),\"position\":5,\"pending\":0,"
            + "\"notices\":1,\"reachable\":true,\"head\":5}\n")
        #expect(try await timeline(["notices", "--log", phone, "--dismiss", "\(device):1"]).status == 0)
        #expect(try await timeline(["notices", "--log", phone]).output == "(no notices)\n")
    }

    /// With `--json`, a write on a replica prints one object: its submission, whether it
    /// is still pending, and the position it was saved or synced at; the `--offline`
    /// warning names the replica in the command it advises.
    @Test func aWriteOnAReplicaWithJSONPrintsItsSubmission() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, phone, _) = try await twoDevices(directory)
        let status = try await timeline(["status", "--log", phone, "--json"])
        let device = try #require(status.output.split(separator: "\"")[3].split(separator: ":").first)
        let offline = try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "Mine",
                                          "--offline", "--json"])
        #expect(offline.status == 0, "\(offline)")
        #expect(offline.output == "{\"command\":\"\(device):1\",\"pending\":true,\"position\":2}\n")
        #expect(offline.errors.contains("; to send it: timeline sync --log \(phone)"), "\(offline)")
        let walk = ["add-event", "--log", phone, "--timeline", "life", "--title", "Walk", "--date", "2001", "--json",
                    "--command-id", "walk-1"]
        let synced = try await timeline(walk)
        #expect(synced.status == 0, "\(synced)")
        #expect(synced.output == "{\"command\":\"\(device):2\",\"pending\":false,\"position\":4}\n")
        // Sent again, offline: decided already, so said as it stands, not as pending.
        let again = try await timeline(walk + ["--offline"])
        #expect(again.status == 0 && again.output == synced.output, "\(again)")
        #expect(!again.errors.contains("not synced"), "\(again)")
    }

    /// A shared log that is reached but cannot be synced with (a line that is not a
    /// record; a replica's mirror put in its place) is said to be damaged, with what to
    /// check, never "unreachable" with advice to sync again; a replica whose identity file
    /// was lost is refused as one, never read as a plain log.
    @Test func aDamagedSharedLogOrALostIdentityIsSaidAsSuch() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, laptop) = try await twoDevices(directory)
        let handle = try #require(FileHandle(forWritingAtPath: shared))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("not a record\n".utf8))
        try handle.close()
        let corrupt = try await timeline(["sync", "--log", phone])
        #expect(corrupt.status == 1, "\(corrupt)")
        #expect(corrupt.errors.contains("cannot be synced with") && corrupt.errors.contains("timeline verify --log"),
                "\(corrupt)")
        #expect(!corrupt.errors.contains("cannot be reached") && !corrupt.errors.contains("timeline sync"), "\(corrupt)")
        let status = try await timeline(["status", "--log", phone])
        #expect(status.status == 0 && status.output.contains("cannot sync: the shared log")
                && status.output.contains("timeline verify --log"), "\(status)")

        try FileManager.default.removeItem(atPath: shared)
        try FileManager.default.copyItem(atPath: laptop, toPath: shared)
        try FileManager.default.copyItem(atPath: laptop + ".replica", toPath: shared + ".replica")
        let replaced = try await timeline(["sync", "--log", phone])
        #expect(replaced.status == 1 && replaced.errors.contains("it is a replica's mirror, not a shared log"),
                "\(replaced)")
        #expect(replaced.errors.contains("restore the shared log from a backup") && !replaced.errors.contains("verify"),
                "\(replaced)")
        #expect(!replaced.errors.contains("cannot be reached"), "\(replaced)")

        let kept = try await timeline(["add-event", "--log", phone, "--timeline", "life", "--title", "Kept",
                                       "--date", "2002", "--offline"])
        #expect(kept.status == 0, "\(kept)")
        let keptID = String(try #require(kept.output.split(separator: " ").dropFirst(2).first))
        let history = try await timeline(["history", "--log", phone, "--event", keptID])
        #expect(history.status == 1 && history.errors.contains("1 pending submission on this replica names event")
                && history.errors.contains("timeline sync --log"), "\(history)")
        try FileManager.default.removeItem(atPath: phone + ".replica")
        // Every command that reads it says it is damaged, verify too, which checks a
        // replica's files with its mirror.
        for command in [["rows"], ["verify"]] {
            let lost = try await timeline(command + ["--log", phone])
            #expect(lost.status == 1 && lost.errors.contains("\(phone).replica is damaged: it is missing"), "\(lost)")
        }
        // Its pending submission alone still says it is a replica: nothing pending is dropped.
        try FileManager.default.removeItem(atPath: phone + ".queue")
        let pendingOnly = try await timeline(["add-event", "--log", phone, "--timeline", "life", "--title", "X",
                                              "--date", "2003"])
        #expect(pendingOnly.status == 1 && pendingOnly.errors.contains("it is missing"), "\(pendingOnly)")
    }

    /// The pending file is the only copy of what was sent offline: a damaged one (its
    /// generation line lost, a line gone from the middle, another device's submission) is
    /// said to be damaged by every command, verify included, and never written over.
    @Test func aDamagedPendingFileIsDamageNeverDroppedOrWrittenOver() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, phone, _) = try await twoDevices(directory)
        for title in ["A", "B", "C"] {
            let sent = try await timeline(["add-event", "--log", phone, "--timeline", "life", "--title", title,
                                           "--date", "2001", "--offline"])
            #expect(sent.status == 0, "\(sent)")
        }
        let pending = phone + ".pending"
        let original = try String(contentsOfFile: pending, encoding: .utf8)
        let lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var foreign = lines
        foreign[2] = foreign[2].replacing(#/[0-9a-f]{12}:2"/#, with: "111111111111:2\"")
        let damages: [(String, [String], String)] = [
            ("no generation line", Array(lines.dropFirst()), "does not begin with its generation line"),
            ("a line gone", lines.enumerated().filter { $0.offset != 2 }.map(\.element),
             "the submissions between them are missing"),
            ("another device's", foreign, "which is not this device's"),
        ]
        for (name, damaged, reason) in damages {
            let text = damaged.joined(separator: "\n")
            try text.write(toFile: pending, atomically: false, encoding: .utf8)
            for command in [["verify"], ["rows"], ["add-event", "--timeline", "life", "--title", "D", "--date", "2002",
                                                     "--offline"]] {
                let run = try await timeline(command + ["--log", phone])
                #expect(run.status == 1 && run.errors.contains("\(pending) is damaged") && run.errors.contains(reason),
                        "\(name), \(command[0]): \(run)")
            }
            #expect(try String(contentsOfFile: pending, encoding: .utf8) == text, "\(name): written over")
        }
        // A line that is no send (added by another program): deleting it is the advice, and works.
        try (original + "garbage\n").write(toFile: pending, atomically: false, encoding: .utf8)
        let garbage = try await timeline(["rows", "--log", phone])
        #expect(garbage.status == 1 && garbage.errors.contains("line 5: not a submission (P…); if that line is none of "
            + "this replica's sends (added by hand or by another program: a send begins P{\"command\":…), delete it; "
            + "otherwise restore the file from a backup"), "\(garbage)")
        try original.write(toFile: pending, atomically: false, encoding: .utf8)
        #expect(try await timeline(["verify", "--log", phone]).output.hasSuffix(", 3 pending\n"))

        // verify reads: a torn tail of the mirror stays as it is.
        let mirror = try Data(contentsOf: URL(fileURLWithPath: phone)) + Data(#"{"seq":3,"ty"#.utf8)
        try mirror.write(to: URL(fileURLWithPath: phone))
        #expect(try await timeline(["verify", "--log", phone]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: phone)) == mirror)
        // A FIFO in a side file's place is refused at once, not waited on.
        try FileManager.default.removeItem(atPath: pending)
        #expect(mkfifo(pending, 0o600) == 0)
        let fifo = try await timeline(["verify", "--log", phone])
        #expect(fifo.status == 1 && fifo.errors.contains("it is not a regular file"), "\(fifo)")
    }

    /// Opening the shared log cuts a torn tail off, for status, sync and clone as for any
    /// command on it, and says so, naming the side file that keeps its bytes.
    @Test func aTornTailOfTheSharedLogIsReportedBySyncStatusAndClone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        for command in [["status", "--log", phone], ["sync", "--log", phone],
                        ["clone", shared, "--log", directory.path("tablet.jsonl")]] {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: shared))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(#"{"seq":3,"ty"#.utf8))
            try handle.close()
            let run = try await timeline(command)
            #expect(run.status == 0 && run.errors.contains("\(shared): line 3: incomplete last record")
                    && run.errors.contains("cut off (saved in \(shared).rejected)"), "\(command[0]): \(run)")
        }
    }

    /// A shared log replaced by another (or an older copy) is said by status as sync says
    /// it: this replica cannot sync with it.
    @Test func statusSaysWhenTheSharedLogNoLongerContinuesTheMirror() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        try FileManager.default.removeItem(atPath: shared)
        #expect(try await timeline(["create-timeline", "--log", shared, "--timeline", "other", "--name", "Other"]).status == 0)
        #expect(try await timeline(["add-event", "--log", shared, "--timeline", "other", "--title", "X",
                                    "--date", "2000"]).status == 0)
        let status = try await timeline(["status", "--log", phone])
        let sync = try await timeline(["sync", "--log", phone])
        #expect(sync.status == 1 && sync.errors.contains("no longer continues"), "\(sync)")
        #expect(status.status == 0 && status.output.contains("cannot sync: ") && status.output.contains("no longer continues"),
                "\(status)")
    }

    /// A pending file's edges, as the second hostile pass found them: a whole last line
    /// without its newline is kept by the next send (reading counts it); one number sent
    /// twice as two sends is damage; a submission whose outcome the mirror holds is not
    /// counted as pending by verify.
    @Test func thePendingFilesEdgesKeepWhatIsShown() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, phone, _) = try await twoDevices(directory)
        func send(_ title: String) async throws {
            let run = try await timeline(["add-event", "--log", phone, "--timeline", "life", "--title", title,
                                          "--date", "2001", "--offline"])
            #expect(run.status == 0, "\(run)")
        }
        try await send("A")
        try await send("B")
        let pending = phone + ".pending"
        var text = try String(contentsOfFile: pending, encoding: .utf8)
        try String(text.dropLast()).write(toFile: pending, atomically: false, encoding: .utf8)
        try await send("C")
        let status = try await timeline(["status", "--log", phone])
        #expect(status.status == 0 && status.output.contains("pending 3"), "\(status)")
        #expect(try String(contentsOfFile: pending, encoding: .utf8).contains(#""title":"B""#))

        // The same number twice, as another send: damage.
        text = try String(contentsOfFile: pending, encoding: .utf8)
        let last = try #require(text.split(separator: "\n").last)
        let twin = last.replacing(#/"nonce":"[0-9a-f]+"/#, with: #""nonce":"00000000000000000000000000000000""#)
        try (text + twin + "\n").write(toFile: pending, atomically: false, encoding: .utf8)
        let twice = try await timeline(["verify", "--log", phone])
        #expect(twice.status == 1 && twice.errors.contains("appears twice, as two different sends"), "\(twice)")
        try text.write(toFile: pending, atomically: false, encoding: .utf8)

        // A sync killed before it saved its queue: the mirror holds the outcomes.
        let saved = try [phone + ".queue", pending].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        for (file, data) in zip([phone + ".queue", pending], saved) { try data.write(to: URL(fileURLWithPath: file)) }
        let verified = try await timeline(["verify", "--log", phone])
        #expect(verified.status == 0 && verified.output.hasSuffix(", 0 pending\n"), "\(verified)")
    }

    /// A copy of a device's replica stops at its first sync: verify says so, and a send
    /// offline on it does not promise a sync that cannot come. Damage in a replica's
    /// mirror points to repair, which fetches it again.
    @Test func aCopiedReplicaSaysItIsStopped() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, phone, _) = try await twoDevices(directory)
        let copy = directory.path("copy.jsonl")
        for suffix in ["", ".replica", ".queue"] {
            try FileManager.default.copyItem(atPath: phone + suffix, toPath: copy + suffix)
        }
        for (replica, title) in [(phone, "On the phone"), (copy, "On the copy")] {
            #expect(try await timeline(["add-event", "--log", replica, "--timeline", "life", "--title", title,
                                        "--date", "2001", "--offline"]).status == 0)
        }
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        #expect(try await timeline(["sync", "--log", copy]).status == 1)
        let offline = try await timeline(["add-event", "--log", copy, "--timeline", "life", "--title", "Later",
                                          "--date", "2002", "--offline"])
        #expect(offline.status == 0 && offline.errors.contains("but it cannot sync: ")
                && !offline.errors.contains("to send it"), "\(offline)")
        let verified = try await timeline(["verify", "--log", copy])
        #expect(verified.output.contains(", stopped: another copy of this device sent "), "\(verified)")
        // status lists what is pending, as the commands to send again from a new replica.
        let status = try await timeline(["status", "--log", copy])
        #expect(status.output.contains("pending 2\n") && status.output.contains(
            ":1: timeline add-event --event e2.") && status.output.contains(
            "--timeline life --title 'On the copy' --date 2001 --log \(copy)\n"), "\(status)")

        var mirror = try String(contentsOfFile: phone, encoding: .utf8)
        mirror = mirror.replacing("Born", with: "Borm")
        try mirror.write(toFile: phone, atomically: false, encoding: .utf8)
        let damaged = try await timeline(["verify", "--log", phone])
        #expect(damaged.status == 1 && damaged.errors.contains("to fetch this replica's mirror again from the shared log: "
                                                                 + "timeline repair --log"), "\(damaged)")
    }

    /// history on a replica says which pending submissions name the event, not yet in it.
    @Test func historyOnAReplicaNamesThePendingSubmissionsOfTheEvent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, phone, _) = try await twoDevices(directory)
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "Born here",
                                    "--offline"]).status == 0)
        let history = try await timeline(["history", "--log", phone, "--event", "born"])
        #expect(history.status == 0 && history.output.contains("eventAdded"), "\(history)")
        #expect(history.errors.contains("1 pending submission on this replica names event \"born\": not in this "
                                        + "history until synced; to send it: timeline sync --log"), "\(history)")
    }

    @Test func aRejectedSendExitsOneAndIdsMadeOnDevicesNeverCollide() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, phone, laptop) = try await twoDevices(directory)
        // Both devices make an event and a timeline offline, with the same name: no collision.
        for replica in [phone, laptop] {
            #expect(try await timeline(["add-event", "--log", replica, "--timeline", "life", "--title", "School",
                                        "--date", "2000", "--offline"]).status == 0)
            #expect(try await timeline(["create-timeline", "--log", replica, "--name", "Work", "--offline"]).status == 0)
        }
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        let laptopSync = try await timeline(["sync", "--log", laptop, "--json"])
        #expect(laptopSync.output.hasPrefix(#"{"pushed":2,"accepted":2,"rejected":0,"#), "\(laptopSync)")
        let timelines = try await timeline(["timelines", "--log", laptop, "--json"])
        #expect(timelines.outputLines.filter { $0.contains("\"name\":\"Work\"") }.count == 2, "\(timelines)")

        // The phone's view refuses a command at once: nothing queued, exit 1.
        let refused = try await timeline(["close-range", "--log", phone, "--event", "born", "--end", "2000"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("not an open range"))
        #expect(try await timeline(["status", "--log", phone, "--json"]).output.contains("\"pending\":0"))

        // Removed on the laptop while the phone, offline, edits it: the phone's own send is rejected.
        #expect(try await timeline(["set-date", "--log", laptop, "--event", "born", "--date", "1990"]).status == 0)
        #expect(try await timeline(["remove-event", "--log", laptop, "--event", "born"]).status == 0)
        let stale = try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "B"])
        #expect(stale.status == 1, "\(stale)")
        #expect(stale.errors.contains("rejected by the shared log (unknownEvent)"))
    }

    @Test func anUnreachableSharedLogKeepsTheSubmissionPending() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        try FileManager.default.moveItem(atPath: shared, toPath: shared + ".away")
        let send = try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "Away"])
        #expect(send.status == 0, "\(send)")
        #expect(send.errors.contains("not synced"))
        #expect(send.errors.contains("there is no shared log at \(shared): clone, sync and the sequencer never create one"),
                "\(send)")
        let sync = try await timeline(["sync", "--log", phone])
        #expect(sync.status == 1)
        #expect(sync.errors.contains("nothing is lost"))
        let status = try await timeline(["status", "--log", phone, "--json"])
        #expect(status.output.contains(#""pending":1,"notices":0,"reachable":false,"head":null}"#), "\(status)")
        // Back again: the next sync sends it, and the mirror is the shared log again.
        try FileManager.default.moveItem(atPath: shared + ".away", toPath: shared)
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: phone)) == Data(contentsOf: URL(fileURLWithPath: shared)))
        #expect(try await timeline(["rows", "--log", shared, "--json", "--now", "2026-12-01"]).output.contains("Away"))
    }

    @Test func badUseIsAClearError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        let exists = try await timeline(["clone", shared, "--log", phone])
        #expect(exists.status == 1 && exists.errors.contains("exists already"), "\(exists)")
        let missing = try await timeline(["clone", directory.path("nosuch.jsonl"), "--log", directory.path("x.jsonl")])
        #expect(missing.status == 1 && missing.errors.contains("clone never creates one"), "\(missing)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("nosuch.jsonl")))
        let ofReplica = try await timeline(["clone", phone, "--log", directory.path("y.jsonl")])
        #expect(ofReplica.status == 1 && ofReplica.errors.contains("is a replica's mirror"), "\(ofReplica)")
        let plainSync = try await timeline(["sync", "--log", shared])
        #expect(plainSync.status == 1 && plainSync.errors.contains("is not a replica"), "\(plainSync)")
        #expect(plainSync.errors.contains("to make a replica of this log: timeline clone \(shared) --log LOCAL"),
                "\(plainSync)")
        let toURL = try await timeline(["clone", shared, "--log", "postgresql://me:pw@host/db?log=x"])
        #expect(toURL.status == 2 && toURL.errors.contains("a replica is a local file"), "\(toURL)")
        #expect(!toURL.errors.contains("pw@"), "\(toURL)")
        // Paths are shown as a table shows text: a tab in one cannot break the line.
        let tabbed = try await timeline(["clone", shared, "--log", directory.path("tab\there.jsonl")])
        #expect(tabbed.status == 0 && tabbed.output.contains("tab\\there.jsonl"), "\(tabbed)")
        let plainOffline = try await timeline(["remove-event", "--log", shared, "--event", "born", "--offline"])
        #expect(plainOffline.status == 2 && plainOffline.errors.contains("--offline is for a replica"), "\(plainOffline)")
        let before = try Data(contentsOf: URL(fileURLWithPath: shared))
        let marker = try await timeline(["retitle-event", "--log", shared, "--event", "born", "--title", "Z",
                                         "--command-id", "undo:2"])
        #expect(marker.status == 2 && marker.errors.contains("undo:N marks the undo of record N, which only 'timeline revert' "
            + "makes"), "\(marker)")
        let revertOffline = try await timeline(["revert", "2", "--log", shared, "--offline"])
        #expect(revertOffline.status == 2 && revertOffline.errors.contains("--offline is for a replica"), "\(revertOffline)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: shared)) == before, "nothing was appended")
        let badDismiss = try await timeline(["notices", "--log", phone, "--dismiss", "nope"])
        #expect(badDismiss.status == 2)
        // A damaged queue file is named, and nothing is sent from it.
        try "P{not json\n".write(toFile: phone + ".queue", atomically: true, encoding: .utf8)
        let damaged = try await timeline(["sync", "--log", phone])
        #expect(damaged.status == 1 && damaged.errors.contains("phone.jsonl.queue is damaged"), "\(damaged)")
    }

    @Test func aDamagedMirrorIsFetchedAgainAndPendingSubmissionsStay() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "Kept",
                                    "--offline"]).status == 0)
        // A flipped byte in the mirror's first line.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: phone))
        bytes[30] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: phone))
        let sync = try await timeline(["sync", "--log", phone, "--json"])
        #expect(sync.status == 0, "\(sync)")
        #expect(sync.output.contains(#""accepted":1"#))
        #expect(try Data(contentsOf: URL(fileURLWithPath: phone)) == Data(contentsOf: URL(fileURLWithPath: shared)))
    }
}

private func jsonString(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
}

/// Waits up to 30 s until `child`'s output satisfies `condition`; an issue names `what`
/// when it never does.
func waitFor(_ child: SpawnedProcess, _ what: String, _ condition: (String) -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while !condition(child.output) {
        #expect(ContinuousClock.now < deadline, "waiting for \(what): \(child.output) \(child.errors)")
        if ContinuousClock.now >= deadline { return }
        try await Task.sleep(for: .milliseconds(20))
    }
}
