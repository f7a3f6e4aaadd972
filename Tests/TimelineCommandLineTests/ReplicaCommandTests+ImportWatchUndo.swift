import Foundation
import Testing
import TimelineTestSupport
@testable import TimelineCommandLine

extension ReplicaCommandTests {
    @Test func importOnAReplicaIsOneSubmissionAndRepairFetchesTheMirrorAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        let foreign = try directory.write("foreign.jsonl", #"""
            {"type":"eventAdded","data":{"event":"x","timeline":"life","title":"X","date":"2001"}}
            {"type":"rangeSet","data":{"event":"x","start":"2001","end":null}}
            {"type":"eventRetitled","data":{"event":"born","title":"Born again"}}

            """#)
        let imported = try await timeline(["import", foreign, "--log", phone, "--offline"])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.output.contains("imported 3 facts from"))
        let queued = try await timeline(["status", "--log", phone, "--json"])
        #expect(queued.output.contains(#""pending":1,"#), "\(queued)")
        let sync = try await timeline(["sync", "--log", phone, "--json"])
        #expect(sync.output.hasPrefix(#"{"pushed":1,"accepted":1,"rejected":0,"pulled":3,"#), "\(sync)")
        // One atomic batch in the shared log: the first two records carry "more".
        let lines = try String(contentsOfFile: shared, encoding: .utf8).split(separator: "\n")
        #expect(lines.suffix(3).map { $0.contains(#""more":"#) } == [true, true, false])
        #expect(try await timeline(["import", foreign, "--log", shared, "--offline"]).status == 2)
        // Reverted, then imported again: nothing is queued, and the way back is said.
        #expect(try await timeline(["revert", "3", "--log", phone]).status == 0)
        let again = try await timeline(["import", foreign, "--log", phone])
        #expect(again.status == 0 && again.errors.contains("it was undone since, by record 6; to bring it back: "
            + "timeline revert 6 --log \(phone)"), "\(again)")
        // Imported into the shared log by a plain import: a replica's import of the same facts queues nothing.
        let other = try directory.write("other.jsonl", #"{"type":"eventRetitled","data":{"event":"born","title":"Plain"}}"# + "\n")
        #expect(try await timeline(["import", other, "--log", shared]).status == 0)
        // The mirror behind (it holds neither the import nor its revert): the import is
        // checked against what the shared log holds now.
        #expect(try await timeline(["revert", "8", "--log", shared]).status == 0)
        let plainFirst = try await timeline(["import", other, "--log", phone])
        #expect(plainFirst.status == 0 && plainFirst.output.contains("is in the shared log (record 8, undone by record 9); "
            + "nothing queued"),
                "\(plainFirst.output) \(plainFirst.errors)")
        #expect(try await timeline(["status", "--log", phone, "--json"]).output.contains(#""pending":0,"#))

        // A mirror edited by hand: repair fetches it again; --dry-run changes nothing.
        try (try String(contentsOfFile: phone, encoding: .utf8) + "garbage\n").write(toFile: phone, atomically: true,
                                                                                   encoding: .utf8)
        let dry = try await timeline(["repair", "--log", phone, "--dry-run"])
        #expect(dry.status == 0 && dry.output.contains("would fetch the mirror"), "\(dry)")
        let repaired = try await timeline(["repair", "--log", phone])
        #expect(repaired.status == 0, "\(repaired)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: phone)) == Data(contentsOf: URL(fileURLWithPath: shared)))
    }
}

extension ReplicaCommandTests {
    /// `watch` on a replica shows what it shows: a pending edit at once, its confirmation
    /// when a sync (in another process) mirrors it, each row saying whether it is pending.
    @Test func watchOnAReplicaShowsPendingRowsAndTheirConfirmation() async throws {
        guard let toolURL else { throw ToolNotFound() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, phone, _) = try await twoDevices(directory)
        let watcher = try await startedWatch(toolURL, log: phone, in: directory)
        defer { watcher.killNow() }
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "Mine",
                                    "--offline"]).status == 0)
        #expect(await eventually(until: .now + .seconds(30)) { watcher.outputLines.count >= 2 }, "\(watcher.errors)")
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        #expect(await eventually(until: .now + .seconds(30)) { watcher.outputLines.count >= 3 }, "\(watcher.errors)")
        let lines = watcher.outputLines
        #expect(lines[0] == #"{"type":"reset","from":2,"to":2,"rows":[{"event":"born","timeline":"life","title":"Born","kind":"single","date":"1990-04-12","pending":false}]}"#)
        #expect(lines[1] == #"{"type":"reset","from":2,"to":2,"rows":[{"event":"born","timeline":"life","title":"Mine","kind":"single","date":"1990-04-12","pending":true}]}"#)
        #expect(lines[2] == #"{"type":"reset","from":2,"to":3,"rows":[{"event":"born","timeline":"life","title":"Mine","kind":"single","date":"1990-04-12","pending":false}]}"#)
    }
}

/// What the hostile pass on replicas found, each answered.
extension ReplicaCommandTests {
    @Test func anEditOfAnEventRemovedAndMadeAgainSinceIsRejected() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "Old",
                                    "--offline"]).status == 0)
        #expect(try await timeline(["rename-timeline", "--log", phone, "--timeline", "life", "--name", "Old",
                                    "--offline"]).status == 0)
        #expect(try await timeline(["remove-timeline", "--log", shared, "--timeline", "life"]).status == 0)
        #expect(try await timeline(["create-timeline", "--log", shared, "--timeline", "life", "--name", "New"]).status == 0)
        #expect(try await timeline(["add-event", "--log", shared, "--timeline", "life", "--event", "born",
                                    "--title", "New", "--date", "2000"]).status == 0)
        let sync = try await timeline(["sync", "--log", phone, "--json"])
        #expect(sync.output.hasPrefix(#"{"pushed":2,"accepted":0,"rejected":2,"#), "\(sync)")
        let rows = try await timeline(["rows", "--log", shared, "--json", "--now", "2026-12-01"])
        #expect(rows.output.contains(#""title":"New""#) && !rows.output.contains("Old"))
        let notices = try await timeline(["notices", "--log", phone, "--json"])
        #expect(notices.output.contains(#""rule":"unknownEvent""#) && notices.output.contains(#""rule":"unknownTimeline""#))
    }

    /// A timeline removed offline on one device, while another device put an event in it:
    /// the removal is rejected (`changedSince`) and told, rather than removing that event
    /// unseen (it was accepted on the other device, and nobody was told). An event only
    /// edited there since goes with the timeline (a removal beats an edit).
    @Test func aTimelineRemovedOfflineNeverTakesAnEventPutThereSince() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, phone, laptop) = try await twoDevices(directory)
        #expect(try await timeline(["remove-timeline", "--log", phone, "--timeline", "life", "--offline"]).status == 0)
        #expect(try await timeline(["add-event", "--log", laptop, "--timeline", "life", "--event", "paris",
                                    "--title", "Paris", "--date", "2024"]).status == 0)
        let sync = try await timeline(["sync", "--log", phone, "--json"])
        #expect(sync.output.hasPrefix(#"{"pushed":1,"accepted":0,"rejected":1,"#), "\(sync)")
        let notices = try await timeline(["notices", "--log", phone])
        #expect(notices.output.contains(#"(changedSince): event "paris" was put in timeline "life" by record 3, "#
            + "after position 2 where the removal was made: it would be removed unseen; remove the timeline again to "
            + "remove it too\n  sent: timeline remove-timeline --timeline life --log \(phone)\n"), "\(notices)")
        _ = try await timeline(["sync", "--log", laptop])
        #expect(try await timeline(["rows", "--log", laptop, "--json", "--now", "2026-12-01"]).output.contains(#""title":"Paris""#))
        // Removed again, having seen it: it goes, with an event edited meanwhile elsewhere.
        #expect(try await timeline(["retitle-event", "--log", laptop, "--event", "born", "--title", "Born here"]).status == 0)
        let again = try await timeline(["remove-timeline", "--log", phone, "--timeline", "life"])
        #expect(again.status == 0 && !again.output.contains("pending"), "\(again)")
        _ = try await timeline(["sync", "--log", laptop])
        #expect(try await timeline(["rows", "--log", laptop]).output == "(no rows)\n")
    }

    @Test func aSendCutShortNeverSpoilsTheNext() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, phone, _) = try await twoDevices(directory)
        for title in ["A", "B"] {
            #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", title,
                                        "--offline"]).status == 0)
        }
        // The second line cut short, as by a crash mid-write: that send never returned.
        let pending = phone + ".pending"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: pending))
        try bytes.dropLast(20).write(to: URL(fileURLWithPath: pending))
        #expect(try await timeline(["status", "--log", phone, "--json"]).output.contains(#""pending":1,"#))
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "C",
                                    "--offline"]).status == 0)
        let status = try await timeline(["status", "--log", phone, "--json"])
        #expect(status.status == 0 && status.output.contains(#""pending":2,"#), "\(status)")
        #expect(try await timeline(["sync", "--log", phone, "--json"]).output.hasPrefix(#"{"pushed":2,"accepted":2,"#))
    }

    @Test func damagedOrLeftOverFilesAreSaidNeverSilentlyEmpty() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        // A queue file emptied: damaged, not "nothing pending".
        let queue = try Data(contentsOf: URL(fileURLWithPath: phone + ".queue"))
        try Data().write(to: URL(fileURLWithPath: phone + ".queue"))
        let empty = try await timeline(["status", "--log", phone])
        #expect(empty.status == 1 && empty.errors.contains("queue is damaged"), "\(empty)")
        try queue.write(to: URL(fileURLWithPath: phone + ".queue"))
        // A flipped byte in the mirror: said, not an empty view; a sync fetches it again.
        var mirror = try Data(contentsOf: URL(fileURLWithPath: phone))
        mirror[40] ^= 0x01
        try mirror.write(to: URL(fileURLWithPath: phone))
        let rows = try await timeline(["rows", "--log", phone])
        #expect(rows.status == 1 && rows.errors.contains("the replica's mirror \(phone) is damaged: it does not read ("), "\(rows)")
        // The advice is a sync or a repair, not a backup (which contradicted it).
        #expect(rows.errors.contains("a sync or a repair fetches it again") && !rows.errors.contains("backup"), "\(rows)")
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        #expect(try await timeline(["rows", "--log", phone, "--now", "2026-12-01"]).output.contains("Born"))
        // A replica's files left on a new path: clone refuses to take them over.
        let other = directory.path("other.jsonl")
        try "G0\n".write(toFile: other + ".queue", atomically: true, encoding: .utf8)
        let clone = try await timeline(["clone", shared, "--log", other])
        #expect(clone.status == 1 && clone.errors.contains("other.jsonl.queue: it exists already"), "\(clone)")
        // --upto reads the mirror: every row says it is not pending.
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "P",
                                    "--offline"]).status == 0)
        let upto = try await timeline(["rows", "--log", phone, "--json", "--upto", "2", "--now", "2026-12-01"])
        #expect(upto.output.contains(#""title":"Born","kind":"single","date":"1990-04-12","pending":false}"#), "\(upto)")
        let both = try await timeline(["notices", "--log", phone, "--dismiss", "x:1", "--dismiss-all"])
        #expect(both.status == 2)
    }
}

extension ReplicaCommandTests {
    /// Undo on a replica (section 11): a submission carrying its condition; the shared log
    /// rejects it (`changedSince`) when another device changed the same event first.
    @Test func revertOnAReplicaIsASubmissionTheSharedLogChecks() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, laptop) = try await twoDevices(directory)
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "A"]).status == 0)
        let dry = try await timeline(["revert", "3", "--log", phone, "--dry-run"])
        #expect(dry.output.contains("timeline retitle-event --event born --title Born"), "\(dry)")
        let reverted = try await timeline(["revert", "3", "--log", phone])
        #expect(reverted.status == 0 && reverted.output.contains("synced"), "\(reverted)")
        #expect(try await timeline(["rows", "--log", shared, "--json", "--now", "2026-12-01"]).output.contains(#""title":"Born""#))

        // The phone changes the event, then, offline, undoes it; the laptop changed it in between.
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "B"]).status == 0)
        let last = try await timeline(["status", "--log", phone, "--json"])
        #expect(last.output.contains(#""position":5,"#), "\(last)")
        #expect(try await timeline(["sync", "--log", laptop]).status == 0)
        #expect(try await timeline(["retitle-event", "--log", laptop, "--event", "born", "--title", "C"]).status == 0)
        #expect(try await timeline(["revert", "5", "--log", phone, "--offline"]).status == 0)
        // Pending, it is listed as the undo it is.
        let pending = try await timeline(["status", "--log", phone])
        #expect(pending.output.contains(":4: timeline retitle-event --event born --title Born --log \(phone) (the undo of record 5)\n"),
                "\(pending)")
        let sync = try await timeline(["sync", "--log", phone, "--json"])
        #expect(sync.output.hasPrefix(#"{"pushed":1,"accepted":0,"rejected":1,"#), "\(sync)")
        let notices = try await timeline(["notices", "--log", phone, "--json"])
        #expect(notices.output.contains(#""rule":"changedSince""#) && notices.output.contains("record 6"), "\(notices)")
        #expect(try await timeline(["rows", "--log", shared, "--json", "--now", "2026-12-01"]).output.contains(#""title":"C""#))
        #expect(try Data(contentsOf: URL(fileURLWithPath: phone)) == Data(contentsOf: URL(fileURLWithPath: shared)))
    }
    /// An undo sent from a replica is known as an undo by every reader of the shared log
    /// (its records carry `undo`, its command id being `D:n`): the last batches undo in
    /// turn, a batch undone is said undone, and a redo is the undo of the undo (section 11).
    /// `export` keeps `sub` and `undo`.
    @Test func undosSentFromAReplicaChainAsOnAPlainLog() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "A"]).status == 0)
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "B"]).status == 0)
        #expect(try await timeline(["revert", "4", "--log", phone]).status == 0)
        let lines = try String(contentsOfFile: shared, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5 && lines[4].contains(#""undo":4,"#), "\(lines)")
        // Record 4 is undone by record 5: neither stands in the way of undoing record 3.
        let second = try await timeline(["revert", "3", "--log", phone])
        #expect(second.status == 0, "\(second)")
        #expect(try await timeline(["rows", "--log", shared, "--json", "--now", "2026-12-01"]).output.contains(#""title":"Born""#))
        let again = try await timeline(["revert", "3", "--log", phone])
        #expect(again.status == 1 && again.errors.contains("undone already, by record 6"), "\(again)")
        let redo = try await timeline(["revert", "6", "--log", phone])
        #expect(redo.status == 0, "\(redo)")
        #expect(try await timeline(["rows", "--log", shared, "--json", "--now", "2026-12-01"]).output.contains(#""title":"A""#))
        let afterRedo = try await timeline(["revert", "3", "--log", phone])
        #expect(afterRedo.errors.contains("undone by record 6 and redone by record 7"), "\(afterRedo)")
        let history = try await timeline(["history", "--event", "born", "--log", shared, "--json"])
        let historyLines = history.output.split(separator: "\n")
        // Records 2-7 touch the event; record 5 is the undo of record 4.
        #expect(historyLines.count == 6 && historyLines[3].contains(#":3","undo":4,"data":"#), "\(history)")
        #expect(!historyLines[1].contains(#""undo""#))
        let table = try await timeline(["history", "--event", "born", "--log", shared])
        #expect(table.output.split(separator: "\n")[3].contains(":3 (undo:4)  "), "\(table)")
        let exported = try await timeline(["export", "--log", shared])
        let exportedLines = exported.output.split(separator: "\n")
        #expect(exportedLines.count == 7 && exportedLines[4].contains(#""sub":"#) && exportedLines[4].hasSuffix(#""undo":4}"#),
                "\(exported)")
    }

    /// Reverts in a row while offline: the second, of the batch before, is refused for the
    /// first's change with its pending undo named (sync first); the same revert again is told
    /// its undo is pending already. After a sync both go through.
    @Test func offlineRevertsInARowSayWhatIsPending() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, _) = try await twoDevices(directory)
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "A"]).status == 0)
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "B"]).status == 0)
        let first = try await timeline(["revert", "4", "--log", phone, "--offline"])
        #expect(first.status == 0, "\(first)")
        let id = try #require(first.errors.firstMatch(of: /saved on this replica as (\S+),/)?.1)
        let before = try await timeline(["revert", "3", "--log", phone, "--offline"])
        #expect(before.status == 1 && before.errors.contains("record 4 changed event born after this batch, and its undo "
            + "is pending on this device, as \(id): sync, then revert this batch again"), "\(before)")
        let again = try await timeline(["revert", "4", "--log", phone, "--offline"])
        #expect(again.status == 1 && again.errors.contains("this batch's undo is pending on this device already, as \(id): "
            + "sync to send it"), "\(again)")
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        #expect(try await timeline(["revert", "3", "--log", phone]).status == 0)
        #expect(try await timeline(["rows", "--log", shared, "--json", "--now", "2026-12-01"]).output.contains(#""title":"Born""#))
        // Record 3 is undone by record 6; that undo's revert (a redo) pending: said so, not "revert record 6".
        #expect(try await timeline(["revert", "6", "--log", phone, "--offline"]).status == 0)
        let redone = try await timeline(["revert", "3", "--log", phone, "--offline"])
        #expect(redone.status == 1 && redone.errors.contains("this batch was undone by record 6, and the revert of that "
            + "undo is pending on this device, as "), "\(redone)")
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        // A record the mirror does not hold yet: it may be behind.
        let beyond = try await timeline(["revert", "9", "--log", phone])
        #expect(beyond.status == 1 && beyond.errors.contains("no record 9: the log's records are 1-7 (this replica's copy of "
            + "the shared log); to fetch newer records: timeline sync --log \(phone)"), "\(beyond)")
    }

    /// `--command-id` on a replica is the app's own id for local resends (section 10): a
    /// resend queues nothing, before or after the sync, and reports the first send's outcome;
    /// the shared log's id stays `D:n`.
    @Test func aResendWithTheSameCommandIDQueuesNothingAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, phone, laptop) = try await twoDevices(directory)
        let retitle = ["retitle-event", "--log", phone, "--event", "born", "--title", "Born here", "--command-id", "app-1"]
        let first = try await timeline(retitle + ["--offline"])
        #expect(first.status == 0, "\(first)")
        let again = try await timeline(retitle + ["--offline"])
        #expect(again.status == 0, "\(again)")
        #expect(again.errors.contains("--command-id app-1 was sent on this replica already, as "), "\(again)")
        // Another command given the same id is refused, not answered "saved before".
        let other = try await timeline(["remove-event", "--log", phone, "--event", "born", "--command-id", "app-1", "--offline"])
        #expect(other.status == 1 && other.errors.contains("remove-event refused: --command-id app-1 was given to another "
            + "command on this replica, sent as "), "\(other)")
        #expect(try await timeline(["status", "--log", phone, "--json"]).output.contains(#""pending":1,"#))
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        // Decided: sent again (online), still nothing new; the shared log has one outcome.
        let late = try await timeline(retitle)
        #expect(late.status == 0, "\(late)")
        #expect(late.errors.contains("sent on this replica already"))
        let lines = try String(contentsOfFile: shared, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3, "\(lines)")
        #expect(!lines[2].contains("app-1"), "the app's id never reaches the shared log")
        // Another id is another submission; a rejected one, sent again, says its rejection again.
        #expect(try await timeline(["remove-event", "--log", laptop, "--event", "born"]).status == 0)
        let doomed = ["retitle-event", "--log", phone, "--event", "born", "--title", "X", "--command-id", "app-2", "--offline"]
        #expect(try await timeline(doomed).status == 0)
        let rejected = try await timeline(["sync", "--log", phone])
        #expect(rejected.status == 0, "\(rejected)")
        let resent = try await timeline(Array(doomed.dropLast()))
        #expect(resent.status == 1, "\(resent)")
        #expect(resent.errors.contains("rejected by the shared log (unknownEvent)"), "\(resent)")
        // Its commands kept by its notice: another command with its id is refused too.
        let notDoomed = try await timeline(["rename-timeline", "--log", phone, "--timeline", "life", "--name", "L",
                                            "--command-id", "app-2"])
        #expect(notDoomed.status == 1 && notDoomed.errors.contains("was given to another command"), "\(notDoomed)")
        #expect(try await timeline(["status", "--log", phone, "--json"]).output.contains(#""pending":0,"#))
    }

    /// `timeline-live` on a replica: what it shows, a pending row marked `*` at once, then
    /// unmarked once a sync (another process) brings its outcome.
    @Test func timelineLiveShowsPendingRowsAndTheirConfirmation() async throws {
        let live = try #require(builtExecutable(named: "timeline-live", packageRoot: packageRoot),
                                "timeline-live is built with the tests")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, phone, _) = try await twoDevices(directory)
        let child = try SpawnedProcess(live, ["--log", phone], name: "live", scratch: directory.url.path)
        defer { child.send(SIGKILL) }
        try await waitFor(child, "the first rows") { $0.contains("Born") }
        #expect(try await timeline(["add-event", "--log", phone, "--timeline", "life", "--event", "moved",
                                    "--title", "Moved", "--date", "2001", "--offline"]).status == 0)
        try await waitFor(child, "the pending row") { $0.contains("Moved *") }
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        try await waitFor(child, "its confirmation") { $0.hasSuffix("Moved\n") }
    }

    /// A revert that this device's own pending change already breaks is refused at once,
    /// as on a plain log, rather than shown done and rejected by the shared log later.
    @Test func aRevertThatAPendingChangeBreaksIsRefusedAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, phone, _) = try await twoDevices(directory)
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "BB",
                                    "--offline"]).status == 0)
        let revert = try await timeline(["revert", "2", "--log", phone, "--offline"])
        #expect(revert.status == 1, "\(revert)")
        #expect(revert.errors.contains("revert refused: ") && revert.errors.contains("pending on this device"),
                "\(revert.errors)")
        let rows = try await timeline(["rows", "--log", phone])
        #expect(rows.output.contains("BB"), "\(rows)")
        #expect(try await timeline(["status", "--log", phone, "--json"]).output.contains(#""pending":1,"#))
        // Once the retitle is decided, the revert of record 2 is refused by the mirror's own history.
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        let later = try await timeline(["revert", "2", "--log", phone])
        #expect(later.status == 1 && later.errors.contains("revert refused"), "\(later)")
    }

    /// `timeline-live` on a store's log, into a pipe: the first rows, then each change set
    /// another process causes, as it comes (not when the pipe's buffer fills).
    @Test func timelineLiveOnALogPrintsEachChangeIntoAPipe() async throws {
        let live = try #require(builtExecutable(named: "timeline-live", packageRoot: packageRoot),
                                "timeline-live is built with the tests")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.url.appendingPathComponent("life.jsonl").path
        #expect(try await timeline(["create-timeline", "--log", log, "--timeline", "life", "--name", "Life"]).status == 0)
        let child = try SpawnedProcess(live, ["--log", log], name: "live", scratch: directory.url.path)
        defer { child.send(SIGKILL) }
        try await waitFor(child, "the first rows") { $0.contains("── rows at 1 (0)") }
        #expect(try await timeline(["add-event", "--log", log, "--timeline", "life", "--title", "Moved",
                                    "--date", "2001"]).status == 0)
        try await waitFor(child, "the change set") { $0.contains("── 1 → 2: inserted [0]") && $0.contains("Moved") }
    }
}
