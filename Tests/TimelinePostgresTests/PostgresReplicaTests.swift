import TimelineCore
#if PostgreSQL
import Foundation
import Testing
import TimelineTestSupport
@testable import TimelinePostgres

/// Replicas of a PostgreSQL shared log through the tool: two devices, one offline, a
/// conflict; each mirror holds the lines the database stores, byte for byte; processes
/// killed during syncs lose nothing.
@Suite(.enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresReplicaTests {
    @Test func twoDevicesConvergeThroughADatabaseLog() throws {
        let url = TestServer.url(log: TestServer.newLogName("replica"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-pg-r-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let phone = directory.appendingPathComponent("phone.jsonl").path
        let laptop = directory.appendingPathComponent("laptop.jsonl").path
        #expect(try runTool(["create-timeline", "--log", url, "--timeline", "life", "--name", "Life"]).status == 0)
        #expect(try runTool(["add-event", "--log", url, "--timeline", "life", "--event", "born", "--title", "Born",
                             "--date", "1990"]).status == 0)
        let missing = try runTool(["clone", TestServer.url(log: TestServer.newLogName("nosuch")), "--log",
                                   directory.appendingPathComponent("x.jsonl").path])
        // Said as for a file: no log there, not a server that cannot be reached.
        #expect(missing.status == 1 && missing.errors.contains(": clone never creates one\n"), "\(missing)")
        #expect(!missing.errors.contains("cannot be reached"), "\(missing)")
        for replica in [phone, laptop] { #expect(try runTool(["clone", url, "--log", replica]).status == 0) }

        #expect(try runTool(["retitle-event", "--log", phone, "--event", "born", "--title", "X", "--offline"]).status == 0)
        #expect(try runTool(["remove-event", "--log", laptop, "--event", "born"]).status == 0)
        // Killed during its sync, then synced again: one outcome, a notice.
        let tool = try #require(builtExecutable(named: "timeline", packageRoot: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()))
        let killed = try SpawnedProcess(tool, ["sync", "--log", phone], outputPath: phone + ".out", errorPath: phone + ".err")
        Thread.sleep(forTimeInterval: 0.01)
        killed.send(SIGKILL)
        killed.waitUntilExit(timeout: .seconds(30))
        let sync = try runTool(["sync", "--log", phone, "--json"])
        #expect(sync.status == 0, "\(sync.errors)")
        #expect(try runTool(["sync", "--log", laptop]).status == 0)
        let notices = try runTool(["notices", "--log", phone, "--json"])
        #expect(notices.output.contains(#""rule":"unknownEvent""#), "\(notices)")

        let log = try PostgresEventLog(url: url)
        defer { log.close() }
        let stored = try log.jsonLines()
        for replica in [phone, laptop] {
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: replica))) == stored)
        }
        let commands = try log.records(after: 0).compactMap(\.commandID)
        #expect(Set(commands).count == 2, "\(commands)")
    }

    /// Folder mode with the sequencer's shared log on PostgreSQL: two devices of a folder,
    /// a conflict decided by `timeline sequence --log URL`, the folder publishing the lines
    /// the database stores, byte for byte.
    @Test func aSequencerKeepsItsSharedLogInADatabase() throws {
        let url = TestServer.url(log: TestServer.newLogName("folder"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-pg-f-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("Shared").path
        let phone = directory.appendingPathComponent("phone.jsonl").path
        let laptop = directory.appendingPathComponent("laptop.jsonl").path
        #expect(try runTool(["create-timeline", "--log", url, "--timeline", "life", "--name", "Life"]).status == 0)
        #expect(try runTool(["add-event", "--log", url, "--timeline", "life", "--event", "born", "--title", "Born",
                             "--date", "1990"]).status == 0)
        let missing = try runTool(["sequence", "--log", TestServer.url(log: TestServer.newLogName("nosuch")),
                                   "--folder", folder])
        #expect(missing.status == 1 && missing.errors.contains(": the sequencer never creates its shared log"), "\(missing)")
        #expect(!missing.errors.contains("pending"), "\(missing)")
        // A refused run leaves no folder behind (in a synced folder, a stray one syncs everywhere).
        #expect(!FileManager.default.fileExists(atPath: folder))
        let first = try runTool(["sequence", "--log", url, "--folder", folder, "--json"])
        #expect(first.output.contains(#""published":2"#), "\(first)")
        for replica in [phone, laptop] { #expect(try runTool(["clone", folder, "--log", replica]).status == 0) }
        #expect(try runTool(["remove-event", "--log", laptop, "--event", "born"]).status == 0)
        #expect(try runTool(["retitle-event", "--log", phone, "--event", "born", "--title", "X"]).status == 0)
        let decided = try runTool(["sequence", "--log", url, "--folder", folder, "--json"])
        #expect(decided.output.contains(#""decided":2,"accepted":1,"rejected":1"#), "\(decided)")
        for replica in [phone, laptop] { #expect(try runTool(["sync", "--log", replica]).status == 0) }
        #expect(try runTool(["notices", "--log", phone, "--json"]).output.contains(#""rule":"unknownEvent""#))

        let log = try PostgresEventLog(url: url)
        defer { log.close() }
        let stored = try log.jsonLines()
        for replica in [phone, laptop] {
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: replica))) == stored)
        }
    }
}
#endif
