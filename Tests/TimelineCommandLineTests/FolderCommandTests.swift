import Foundation
import Testing
import TimelineTestSupport
@testable import TimelineCommandLine

/// Folder mode through the tool (section 10): devices sync through a shared folder and a
/// sequencer, with no server. Here every device sees one directory (a folder on a shared
/// disk, or a sync service at rest); the copies a service keeps apart are in the process
/// tests and the simulation.
@Suite("timeline in folder mode, end to end")
struct FolderCommandTests {
    /// A shared log with a timeline `life` and an event `born`, published into a folder,
    /// and two replicas of the folder.
    func twoDevices(_ directory: TemporaryDirectory) async throws -> (shared: String, folder: String, phone: String,
                                                                      laptop: String) {
        let shared = directory.path("shared.jsonl"), folder = directory.path("Shared Folder")
        let phone = directory.path("phone.jsonl"), laptop = directory.path("laptop.jsonl")
        #expect(try await timeline(["create-timeline", "--log", shared, "--timeline", "life", "--name", "Life"]).status == 0)
        #expect(try await timeline(["add-event", "--log", shared, "--timeline", "life", "--event", "born",
                                    "--title", "Born", "--date", "1990-04-12"]).status == 0)
        let first = try await timeline(["sequence", "--log", shared, "--folder", folder, "--json"])
        #expect(first.output == #"{"decided":0,"accepted":0,"rejected":0,"published":2,"skipped":0,"position":2}"# + "\n",
                "\(first)")
        for replica in [phone, laptop] {
            let run = try await timeline(["clone", folder, "--log", replica])
            #expect(run.status == 0 && run.output.contains("cloned the shared folder"), "\(run)")
        }
        return (shared, folder, phone, laptop)
    }

    /// A folder whose published segments have not arrived (only its layout file has):
    /// the clone says so, rather than "0 records" alone, and a sync once they are there
    /// fetches them.
    @Test func aCloneOfAFolderWithoutItsSegmentsSaysSo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, folder, _, _) = try await twoDevices(directory)
        let away = directory.path("away")
        try FileManager.default.moveItem(atPath: folder + "/log", toPath: away)
        let clone = try await timeline(["clone", folder, "--log", directory.path("tablet.jsonl")])
        #expect(clone.status == 0 && clone.output.contains(", 0 records"), "\(clone)")
        #expect(clone.errors.contains("holds no published records yet (its segments may be still on their way to this "
            + "device): a sync fetches them once they arrive"), "\(clone)")
        try FileManager.default.moveItem(atPath: away, toPath: folder + "/log")
        let sync = try await timeline(["sync", "--log", directory.path("tablet.jsonl"), "--json"])
        #expect(sync.output.contains(#""pulled":2"#), "\(sync)")
        let full = try await timeline(["clone", folder, "--log", directory.path("desk.jsonl")])
        #expect(full.status == 0 && full.errors.isEmpty, "\(full)")
    }

    @Test func submissionsWaitForTheSequencerAndARejectionBecomesANotice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, folder, phone, laptop) = try await twoDevices(directory)

        let removed = try await timeline(["remove-event", "--log", laptop, "--event", "born"])
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.output.contains("pending: in the shared folder, waiting for the sequencer"), "\(removed)")
        let retitled = try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "Born here"])
        #expect(retitled.status == 0, "\(retitled)")
        let waiting = try await timeline(["status", "--log", phone])
        #expect(waiting.output.contains("(a shared folder)") && waiting.output.contains("waiting for the sequencer (last seen "),
                "\(waiting)")
        // Nothing is decided until the sequencer runs: the shared log has not moved.
        #expect(try String(contentsOfFile: shared, encoding: .utf8).split(separator: "\n").count == 2)

        // A file a sync service left half written, and a conflicted copy: skipped.
        let devices = folder + "/devices"
        let someDevice = try #require(try FileManager.default.contentsOfDirectory(atPath: devices).first)
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: devices + "/" + someDevice).first)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: devices + "/" + someDevice + "/" + segment))
        try bytes.write(to: URL(fileURLWithPath: devices + "/" + someDevice + "/" + segment + " (conflicted copy)"))
        let sequenced = try await timeline(["sequence", "--log", shared, "--folder", folder, "--json"])
        #expect(sequenced.output == #"{"decided":2,"accepted":1,"rejected":1,"published":2,"skipped":1,"position":4}"# + "\n",
                "\(sequenced)")
        #expect(try await timeline(["verify", "--log", shared]).status == 0)

        let sync = try await timeline(["sync", "--log", phone, "--json"])
        #expect(sync.output == #"{"pushed":1,"accepted":0,"rejected":1,"pulled":2,"position":4,"pending":0}"# + "\n", "\(sync)")
        #expect(sync.errors.contains("unknown event \"born\""))
        #expect(try await timeline(["notices", "--log", phone]).output.contains("(unknownEvent)"))
        #expect(try await timeline(["sync", "--log", laptop]).status == 0)
        for replica in [phone, laptop] {
            #expect(try Data(contentsOf: URL(fileURLWithPath: replica)) == Data(contentsOf: URL(fileURLWithPath: shared)))
        }
        let status = try await timeline(["status", "--log", laptop, "--json"])
        #expect(status.output.contains(#""position":4,"pending":0,"notices":0,"reachable":true,"head":4,"sequencerSeen":""#),
                "\(status)")
        // Decided segments are removed by their writers; the conflicted copy is left alone.
        let left = try FileManager.default.subpathsOfDirectory(atPath: devices).filter { $0.contains(".seg") }.sorted()
        #expect(left == [someDevice + "/" + segment + " (conflicted copy)"], "\(left)")
    }

    /// A submission is one line holding its whole batch: an import of 12,000 events is a
    /// segment of 1.2 MB, longer than a log's line may be. The sequencer decides it (it
    /// once skipped it as not whole yet, forever, and every later submission of the device
    /// waited behind it).
    @Test func aSubmissionLongerThanALogsLineIsDecided() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, folder, phone, laptop) = try await twoDevices(directory)
        let input = directory.path("many.jsonl")
        try (0..<12_000).map { #"{"type":"eventAdded","data":{"event":"imported-\#($0)","timeline":"life","title":"An event imported from another log, \#($0)","date":"2001"}}"# }
            .joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let imported = try await timeline(["import", input, "--log", phone])
        #expect(imported.status == 0, "\(imported)")
        let devices = folder + "/devices"
        let segments = try FileManager.default.subpathsOfDirectory(atPath: devices).filter { $0.hasSuffix(".seg") }
        let size = try #require(try segments.map { try FileManager.default.attributesOfItem(atPath: devices + "/" + $0)[.size] as! Int }.max())
        #expect(size > 1 << 20, "the segment is \(size) bytes")
        let sequenced = try await timeline(["sequence", "--log", shared, "--folder", folder, "--json"])
        #expect(sequenced.output.hasPrefix(#"{"decided":1,"accepted":1,"rejected":0,"#), "\(sequenced)")
        #expect(try await timeline(["add-event", "--log", phone, "--timeline", "life", "--title", "After", "--date", "2002"]).status == 0)
        let next = try await timeline(["sequence", "--log", shared, "--folder", folder, "--json"])
        #expect(next.output.hasPrefix(#"{"decided":1,"accepted":1,"rejected":0,"#), "\(next)")
        for replica in [phone, laptop] {
            let sync = try await timeline(["sync", "--log", replica, "--json"])
            #expect(sync.status == 0 && sync.output.contains(#""pending":0}"#), "\(sync)")
        }
        #expect(try await timeline(["timelines", "--log", laptop]).output.contains("12002"))
    }

    @Test func badUseIsAClearError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, folder, phone, _) = try await twoDevices(directory)
        let empty = directory.path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let notYet = try await timeline(["clone", empty, "--log", directory.path("x.jsonl")])
        #expect(notYet.status == 1 && notYet.errors.contains("is not a shared folder yet")
                && notYet.errors.contains("timeline sequence --log SHARED --folder"), "\(notYet)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("x.jsonl")))
        // A folder that cannot be read: nothing was cloned, so nothing waits for a sync.
        let broken = directory.path("broken")
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folder + "/timeline-folder.json", toPath: broken + "/timeline-folder.json")
        try Data("x".utf8).write(to: URL(fileURLWithPath: broken + "/log"))
        let unreadable = try await timeline(["clone", broken, "--log", directory.path("x.jsonl")])
        #expect(unreadable.status == 1 && unreadable.errors.contains("cannot be reached")
                && unreadable.errors.contains("nothing was cloned: run timeline clone again")
                && !unreadable.errors.contains("sync"), "\(unreadable)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("x.jsonl")))
        let noLog = try await timeline(["sequence", "--log", directory.path("nosuch.jsonl"), "--folder", folder])
        #expect(noLog.status == 1 && noLog.errors.contains("never creates its shared log"), "\(noLog)")
        let ofReplica = try await timeline(["sequence", "--log", phone, "--folder", folder])
        #expect(ofReplica.status == 1 && ofReplica.errors.contains("is a replica's mirror"), "\(ofReplica)")
        let noFolder = try await timeline(["sequence", "--log", shared])
        #expect(noFolder.status == 2 && noFolder.errors.contains("--folder"), "\(noFolder)")
        let notDirectory = try await timeline(["sequence", "--log", shared, "--folder", shared])
        #expect(notDirectory.status == 1 && notDirectory.errors.contains("is not a directory"), "\(notDirectory)")
        // Another log sequenced into the folder: refused, the folder untouched.
        let other = directory.path("other.jsonl")
        #expect(try await timeline(["create-timeline", "--log", other, "--timeline", "x", "--name", "X"]).status == 0)
        let anotherLog = try await timeline(["sequence", "--log", other, "--folder", folder])
        #expect(anotherLog.status == 1 && anotherLog.errors.contains("publishes another log"), "\(anotherLog)")
        // A folder of a newer layout is refused by name, and what is pending stays.
        try #"{"layout":2}"#.write(toFile: folder + "/timeline-folder.json", atomically: true, encoding: .utf8)
        #expect(try await timeline(["add-event", "--log", phone, "--timeline", "life", "--title", "T", "--date", "2000",
                                    "--offline"]).status == 0)
        let newer = try await timeline(["sync", "--log", phone])
        #expect(newer.status == 1 && newer.errors.contains("of layout 2; this version of Timeline reads layout 1"), "\(newer)")
        let refused = try await timeline(["sequence", "--log", shared, "--folder", folder])
        #expect(refused.status == 1 && refused.errors.contains("of layout 2"), "\(refused)")
        #expect(try await timeline(["status", "--log", phone, "--json"]).output.contains(#""pending":1"#))
    }

    @Test func repairFetchesTheMirrorAgainFromTheFolder() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, _, phone, _) = try await twoDevices(directory)
        try Data("{\"seq\":1,\"type\":\"oops\"}\n".utf8).write(to: URL(fileURLWithPath: phone))
        let repaired = try await timeline(["repair", "--log", phone])
        #expect(repaired.status == 0 && repaired.output.contains("2 records"), "\(repaired)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: phone)) == Data(contentsOf: URL(fileURLWithPath: shared)))
    }

    /// `sequence --watch` and `sync --watch` as separate processes: a submission saved
    /// offline reaches the folder, the sequencer decides it, and its outcome comes back,
    /// each step woken by file notifications; Ctrl-C ends both with status 0.
    @Test func watchingSequencerAndReplicaDecideWithNoOneRunningCommands() async throws {
        guard let toolURL else { throw ToolNotFound() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, folder, phone, _) = try await twoDevices(directory)
        let sequencer = try SpawnedProcess(toolURL, ["sequence", "--log", shared, "--folder", folder, "--watch", "--json"],
                                           outputPath: directory.path("seq.out"), errorPath: directory.path("seq.err"))
        let syncer = try SpawnedProcess(toolURL, ["sync", "--log", phone, "--watch", "--json"],
                                        outputPath: directory.path("sync.out"), errorPath: directory.path("sync.err"))
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "B", "--offline"]).status == 0)
        var pending = -1
        for _ in 0..<100 where pending != 0 {
            try await Task.sleep(for: .milliseconds(100))
            let status = try await timeline(["status", "--log", phone, "--json"]).output
            pending = status.contains(#""pending":0"#) ? 0 : 1
        }
        #expect(pending == 0, "the submission was not decided through the watching processes")
        for process in [sequencer, syncer] {
            process.send(SIGINT)
            process.waitUntilExit(timeout: .seconds(30))
            #expect(process.exitStatus == 0)
        }
        let decided = try String(contentsOfFile: directory.path("seq.out"), encoding: .utf8)
        #expect(decided.contains(#""decided":1,"accepted":1"#), "\(decided)")
        #expect(try String(contentsOfFile: directory.path("sync.out"), encoding: .utf8).contains(#""accepted":1"#))
    }

    /// What a hostile pass found: stray entries never stop the sequencer or a sync; a
    /// garbage layout file, a missing folder, a log behind the folder and a directory
    /// that is not a shared folder are refused by name; temporaries of killed writers go.
    @Test func strayEntriesAreSkippedAndOddFoldersRefusedByName() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (shared, folder, phone, laptop) = try await twoDevices(directory)
        let manager = FileManager.default
        // A file named like a device (not a directory), a directory named like a segment
        // in the replica's log/ far ahead, a dead writer's temporary in log/.
        try manager.createDirectory(atPath: folder + "/devices", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/devices/01a23d1a-0000-7000-8000-000000000000"))
        try manager.createDirectory(atPath: folder + "/log/000000000005-000000000009.seg", withIntermediateDirectories: true)
        let stale = folder + "/log/000000000003-000000000003.seg.tmp-999999999-1"
        try Data("half".utf8).write(to: URL(fileURLWithPath: stale))
        #expect(try await timeline(["add-event", "--log", laptop, "--timeline", "life", "--title", "A", "--date", "2001"]).status == 0)
        let sequenced = try await timeline(["sequence", "--log", shared, "--folder", folder, "--json"])
        #expect(sequenced.status == 0 && sequenced.output.contains(#""decided":1,"accepted":1"#)
                && sequenced.output.contains(#""skipped":1"#), "\(sequenced)")
        #expect(!manager.fileExists(atPath: stale), "a dead writer's temporary file was left in the folder")
        let synced = try await timeline(["sync", "--log", phone, "--json"])
        #expect(synced.status == 0 && synced.output.contains(#""position":3"#), "\(synced)")
        let head = try await timeline(["status", "--log", phone, "--json"])
        #expect(head.output.contains(#""head":3"#), "\(head)")

        // The sequencer's log restored from an older copy: said so, the folder kept.
        let older = directory.path("older.jsonl")
        let lines = try String(contentsOfFile: shared, encoding: .utf8).split(separator: "\n").prefix(2)
        try (lines.joined(separator: "\n") + "\n").write(toFile: older, atomically: true, encoding: .utf8)
        let behind = try await timeline(["sequence", "--log", older, "--folder", folder])
        #expect(behind.status == 1 && behind.errors.contains("it is an older copy"), "\(behind)")

        // Not a shared folder: a directory with other files, a missing parent, a garbage layout file.
        let documents = directory.path("Documents")
        try manager.createDirectory(atPath: documents, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: documents + "/letter.txt"))
        // Other files in a new folder are skipped: the contract's exit 0 whenever DIR can be read and written.
        let notEmpty = try await timeline(["sequence", "--log", shared, "--folder", documents])
        #expect(notEmpty.status == 0 && manager.fileExists(atPath: documents + "/letter.txt"), "\(notEmpty)")
        let noParent = try await timeline(["sequence", "--log", shared, "--folder", directory.path("no/such/dir")])
        #expect(noParent.status == 1 && !manager.fileExists(atPath: directory.path("no")), "\(noParent)")
        let garbage = directory.path("Garbage")
        try manager.createDirectory(atPath: garbage, withIntermediateDirectories: true)
        try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: garbage + "/timeline-folder.json"))
        let cloneGarbage = try await timeline(["clone", garbage, "--log", directory.path("g.jsonl")])
        #expect(cloneGarbage.status == 1 && cloneGarbage.errors.contains("names no layout"), "\(cloneGarbage)")
        let sequenceGarbage = try await timeline(["sequence", "--log", shared, "--folder", garbage])
        #expect(sequenceGarbage.status == 1 && sequenceGarbage.errors.contains("names no layout"), "\(sequenceGarbage)")

        // The folder gone (unmounted): unreachable, nothing lost; back again: syncs.
        try manager.moveItem(atPath: folder, toPath: folder + " (away)")
        let away = try await timeline(["sync", "--log", phone])
        #expect(away.status == 1 && away.errors.contains("the folder is not there")
                && !away.errors.contains("make a new replica"), "\(away)")
        #expect(try await timeline(["status", "--log", phone, "--json"]).output.contains(#""reachable":false"#))
        try manager.moveItem(atPath: folder + " (away)", toPath: folder)
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
    }

    /// A copy of a device restored from a backup stops before it writes a submission whose
    /// number the other copy's segment in the folder already holds with another nonce.
    @Test func aRestoredCopyStopsBeforeWritingAUsedNumber() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, folder, phone, _) = try await twoDevices(directory)
        let manager = FileManager.default
        let backup = directory.path("backup")
        try manager.createDirectory(atPath: backup, withIntermediateDirectories: true)
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "A", "--offline"]).status == 0)
        let files = try manager.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("phone.jsonl") }
        for file in files { try manager.copyItem(atPath: directory.path(file), toPath: backup + "/" + file) }
        #expect(try await timeline(["sync", "--log", phone]).status == 0)
        #expect(try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "B"]).status == 0)
        for file in files {
            try? manager.removeItem(atPath: directory.path(file))
            try manager.copyItem(atPath: backup + "/" + file, toPath: directory.path(file))
        }
        let device = try #require(try manager.contentsOfDirectory(atPath: folder + "/devices").first)
        let before = try manager.contentsOfDirectory(atPath: folder + "/devices/" + device).sorted()
        let again = try await timeline(["retitle-event", "--log", phone, "--event", "born", "--title", "C"])
        #expect(again.errors.contains("another copy of this device"), "\(again)")
        #expect(try manager.contentsOfDirectory(atPath: folder + "/devices/" + device).sorted() == before,
                "the restored copy wrote a segment for a number the other copy used")
        let status = try await timeline(["status", "--log", phone])
        #expect(status.output.contains("stopped:") && !status.output.contains("waiting for the sequencer"), "\(status)")
    }
}
