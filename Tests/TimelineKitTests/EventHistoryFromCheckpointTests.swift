import Foundation
import Testing
import TimelineCore
import TimelineTestSupport
@testable import TimelineKit

/// `timeline history` from the checkpoint: searching the log's bytes for the lines that
/// can touch an event gives exactly what folding every record gives, whatever the lines'
/// spelling (escapes, spaces, upcast old records), and is used only when the checkpoint
/// vouches for the whole log.
@Suite("An event's history found from the checkpoint")
struct EventHistoryFromCheckpointTests {
    /// A hand-written start: spaces, an id spelt with escapes (`e\u0031` is `e1`, `a\/b` is
    /// `a/b`), a timeline removed by an escaped type, a title that is another event's id,
    /// one with quotes and a backslash (escapes that spell no id) before an escaped id, the
    /// id as a title before it as the event, with spaces and a tab about the colon.
    static let handWritten = """
        {"seq": 1, "type": "timelineCreated", "data": {"timeline": "home", "name": "Home"}}
        {"seq": 2, "type": "timelineCreated", "data": {"timeline": "old", "name": "Old"}}
        {"seq": 3, "type": "eventAdded", "data": {"event": "e\\u0031", "timeline": "home", "title": "One", "date": "1990"}}
        {"seq": 4, "type": "eventAdded", "data": {"event": "a\\/b", "timeline": "old", "title": "e1", "date": "1991"}}
        {"seq": 5, "type": "eventAdded", "data": {"event": "x", "timeline": "old", "title": "X", "date": "1992"}}
        {"seq": 6, "type": "timelin\\u0065Removed", "data": {"timeline": "old"}}
        {"seq": 7, "type": "eventRetitled", "data": {"title": "say \\"hi\\" \\\\", "event": "e\\u0031"}}
        {"seq": 8, "type": "eventRetitled", "data": {"title": "e1", "event" :	 "e1"}}

        """

    /// Every event's history by folding every record of the log.
    static func folded(_ event: EventID, _ path: String) throws -> [Record] {
        var history = EventHistory(event: event)
        history.add(contentsOf: try FileEventLog.read(path: path).records)
        return history.records
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func theSearchFindsWhatTheFoldFinds(seed: UInt64) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("log.jsonl").path
        try Self.handWritten.write(toFile: path, atomically: true, encoding: .utf8)
        var rng = SplitMix64(seed: seed)
        let store = try TimelineStore(path: path, clock: ManualClock(Instant(microsecondsSinceEpoch: 0)))
        let ids = (1...12).map { EventID("e\($0)") } + ["a/b", "x", "q\"uote"]
        for step in 0..<300 {
            let id = ids.randomElement(using: &rng)!
            let timeline = TimelineID(["home", "t\(step % 5)"].randomElement(using: &rng)!)
            let command: Command = switch Int.random(in: 0..<7, using: &rng) {
            case 0: .createTimeline(timeline, name: "T")
            case 1: .removeTimeline(timeline)
            case 2: .removeEvent(id)
            case 3: .retitleEvent(id, title: ["", "say \"", "\\"].randomElement(using: &rng)! + ids.randomElement(using: &rng)!.rawValue)
            case 4: .moveEvent(id, to: timeline)
            default: .addEvent(id, timeline: timeline, title: "\(step)", dates: .single(try DateValue(parsing: "2000")))
            }
            _ = try? await store.send(command)
        }
        try await store.close()
        for event in ids + ["nobody"] {
            let found = try #require(try TimelineStore.eventHistory(of: event, logPath: path)?.records,
                                     "the checkpoint covers the log: the search answers")
            #expect(found == (try Self.folded(event, path)), "event \(event.rawValue)")
            // Searched in parts (a big log's search is split at lines), the same records.
            for parts in [2, 7] {
                #expect(try TimelineStore.eventHistory(of: event, logPath: path, parts: parts)?.records == found,
                        "event \(event.rawValue) in \(parts) parts")
            }
        }
        #expect(try TimelineStore.eventHistory(of: "e1", logPath: path)?.records.prefix(3).map(\.position) == [3, 7, 8])
        #expect(try TimelineStore.eventHistory(of: "a/b", logPath: path)?.records.map(\.position).prefix(2) == [4, 6])
        // A non-ASCII id: the fold decides (equivalent spellings compare equal).
        #expect(try TimelineStore.eventHistory(of: "é", logPath: path) == nil)
        // Records after the checkpoint (the tool refreshes it only every few thousand):
        // read, and found as the fold finds them, a removed timeline's events included.
        let log = try FileEventLog(path: path)
        _ = try log.append([.timelineCreated(timeline: "late", name: "Late")], options: AppendOptions())
        _ = try log.append([.eventAdded(event: "e1", timeline: "late", title: "Late", date: try DateValue(parsing: "2001"))],
                           options: AppendOptions())
        _ = try log.append([.timelineRemoved(timeline: "late")], options: AppendOptions())
        log.close()
        for event in ids {
            let found = try #require(try TimelineStore.eventHistory(of: event, logPath: path), "records after the checkpoint")
            #expect(found.records == (try Self.folded(event, path)), "event \(event.rawValue)")
            #expect(found.tornTail == nil)
        }
        let e1 = try #require(try TimelineStore.eventHistory(of: "e1", logPath: path)).records
        #expect(e1.suffix(2).map(\.facts.first?.type) == [.eventAdded, .timelineRemoved])
        // A torn tail after them is left, and said; a bad line after the checkpoint sends
        // the caller to the whole read, which names it.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"seq":999,"type":"timelineCre"#.utf8))
        try handle.close()
        let torn = try #require(try TimelineStore.eventHistory(of: "e1", logPath: path))
        #expect(torn.records == e1)
        #expect(torn.tornTail != nil)
        try (try String(contentsOfFile: path, encoding: .utf8) + "}\n").write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try TimelineStore.eventHistory(of: "e1", logPath: path) == nil)
    }
}
