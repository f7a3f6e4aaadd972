import Foundation
import SystemShim
import Testing
import TimelineProjections

/// Store commands open from the checkpoint the tool keeps beside the log: their cost
/// follows what changed, not the log's length.
@Suite("timeline: store commands and their checkpoint")
struct ToolCheckpointTests {
    /// A hand-written log of one timeline and `events` single-date events.
    static func handWrittenLog(events: Int) -> String {
        var text = #"{"type":"timelineCreated","data":{"timeline":"life","name":"Life"}}"# + "\n"
        for i in 0..<events {
            text += #"{"type":"eventAdded","data":{"event":"e\#(i)","timeline":"life","title":"Event \#(i)","date":"\#(1900 + i % 100)"}}"# + "\n"
        }
        return text
    }

    /// Damages the record holding `"date":"1903"` in place (the same file, as a disk error
    /// would), keeping every length.
    static func damageInPlace(_ log: String) throws {
        let bytes = Array(try String(contentsOfFile: log, encoding: .utf8).utf8)
        let target = Array(#""date":"1903"}"#.utf8)
        let offset = try #require((0...(bytes.count - target.count)).first { Array(bytes[$0..<($0 + target.count)]) == target })
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: log))
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(#""date":"19X3"}"#.utf8))
        try handle.close()
    }

    @Test func aWriteCommandReadsOnlyTheLogAfterTheCheckpoint() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", Self.handWrittenLog(events: 20))
        let checkpoint = log + ".checkpoint"
        #expect(!FileManager.default.fileExists(atPath: checkpoint))
        // No checkpoint yet: the whole log is read, and a checkpoint written.
        let first = try await timeline(["add-event", "--event", "x1", "--timeline", "life", "--title", "X",
                                        "--date", "2000", "--log", log])
        #expect(first.status == 0, "\(first)")
        #expect(FileManager.default.fileExists(atPath: checkpoint))
        // Damage a record before the checkpoint's position (but not the one ending at it):
        // a command that read the whole log would refuse it; one that starts at the
        // checkpoint never reads it. `verify` reads everything and finds it.
        try Self.damageInPlace(log)
        let second = try await timeline(["add-event", "--event", "x2", "--timeline", "life", "--title", "Y",
                                         "--date", "2001", "--log", log])
        #expect(second.status == 0, "\(second)")
        let verify = try await timeline(["verify", "--log", log])
        #expect(verify.status == 1)
        #expect(verify.errors.contains("line 5"))
    }

    /// A write command keeps no view while it runs, but the checkpoint it writes holds
    /// the list of everything, which `rows` then reads without building it.
    @Test func aWriteCommandsCheckpointHoldsTheListOfEverything() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", Self.handWrittenLog(events: 5))
        let added = try await timeline(["add-event", "--timeline", "life", "--title", "X", "--date", "2000",
                                        "--log", log])
        #expect(added.status == 0, "\(added)")
        #expect(added.output.hasPrefix("added event e6 "), "e<count + 1>, free with e0 to e4 taken")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: log + ".checkpoint")))
        let projection = TimelineProjection(try Checkpoint.load(bytes))
        #expect(projection.viewDefinitions == [ViewDefinition()])
        #expect(projection.rows(ViewDefinition())?.count == 6)
    }

    @Test func rowsAndTimelinesReadOnlyTheLogAfterTheCheckpoint() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", Self.handWrittenLog(events: 20))
        let first = try await timeline(["rows", "--log", log, "--json"])
        #expect(first.status == 0, "\(first)")
        #expect(first.outputLines.count == 20)
        #expect(FileManager.default.fileExists(atPath: log + ".checkpoint"), "a full replay writes the checkpoint")
        // A record before the checkpoint damaged in place: rows and timelines start at the
        // checkpoint and never read it; with --upto the whole log is read and it is found.
        try Self.damageInPlace(log)
        let rows = try await timeline(["rows", "--log", log, "--json"])
        #expect(rows.status == 0, "\(rows)")
        #expect(rows.output == first.output)
        let timelines = try await timeline(["timelines", "--log", log, "--json"])
        #expect(timelines.status == 0, "\(timelines)")
        #expect(timelines.output.contains(#""events":20"#))
        let upTo = try await timeline(["rows", "--log", log, "--upto", "3", "--json"])
        #expect(upTo.status == 1)
        #expect(upTo.errors.contains("line 5"), "\(upTo)")
    }

    @Test func renderOfTheStoresLogReadsOnlyTheLogAfterTheCheckpoint() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", Self.handWrittenLog(events: 20))
        let options = ["--log", log, "--now", "2026-12-01", "--width", "800"]
        let first = try await timeline(["render"] + options)
        #expect(first.status == 0, "\(first)")
        #expect(first.output.contains("Event 3"))
        #expect(FileManager.default.fileExists(atPath: log + ".checkpoint"), "a full replay writes the checkpoint")
        // A record before the checkpoint damaged in place: render starts at the checkpoint
        // and never reads it, as rows does; with --upto the whole log is read and it is found.
        try Self.damageInPlace(log)
        let again = try await timeline(["render"] + options)
        #expect(again.status == 0, "\(again)")
        #expect(again.output == first.output)
        let upTo = try await timeline(["render", "--upto", "3"] + options)
        #expect(upTo.status == 1)
        #expect(upTo.errors.contains("line 5"), "\(upTo)")
        // An unknown timeline is named on standard error, as rows names it.
        let unknown = try await timeline(["render", "--timeline", "lif"] + options)
        #expect(unknown.status == 0 && unknown.errors.contains("did you mean 'life'?"), "\(unknown)")
    }

    @Test func theCheckpointGetsTheLogsPermissions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", Self.handWrittenLog(events: 3))
        #expect(chmod(log, 0o600) == 0)
        let run = try await timeline(["add-event", "--timeline", "life", "--title", "X", "--date", "2000", "--log", log])
        #expect(run.status == 0, "\(run)")
        let attributes = try FileManager.default.attributesOfItem(atPath: log + ".checkpoint")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }
}
