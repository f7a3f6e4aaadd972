import Foundation
import Testing
import TimelineTestSupport

/// What the third hostile pass found, each tried as a user would meet it.
@Suite("The third hostile pass")
struct ThirdHostilePassTests {
    /// A store of records 1 `life`, 2 `born`, 3-4 `berlin` (one batch of an event added
    /// with an open range).
    func store(in directory: TemporaryDirectory, name: String = "store.jsonl") async throws -> String {
        let log = directory.path(name)
        for step in [["create-timeline", "--timeline", "life", "--name", "Life"],
                     ["add-event", "--timeline", "life", "--title", "Born", "--date", "1990", "--event", "born"],
                     ["add-event", "--timeline", "life", "--title", "Berlin", "--start", "2019-03", "--event", "berlin"]] {
            let run = try await timeline(step + ["--log", log])
            try #require(run.status == 0, "\(step): \(run)")
        }
        return log
    }

    // MARK: 7. export keeps batches and command ids

    /// `more` and `cmd` are part of the format: an export replayed with `--upto` inside a
    /// batch shows the state before the batch, as the log itself does, never half of it.
    @Test func exportKeepsBatchesWhole() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try await store(in: directory)
        let export = try await timeline(["export", "--log", log])
        try #require(export.status == 0, "\(export)")
        let lines = export.outputLines
        try #require(lines.count == 4)
        #expect(lines[2].hasSuffix(#""v":1,"more":1}"#), "\(lines[2])")
        #expect(!lines[3].contains("more") && !export.output.contains("crc"), "\(export.output)")
        let upto = try await shell("\"$TIMELINE\" export --log '\(log)' | \"$TIMELINE\" replay - --upto 3 --json")
        #expect(upto.status == 0, "\(upto)")
        #expect(upto.output == (try await timeline(["rows", "--log", log, "--upto", "3", "--json"])).output)
        #expect(!upto.output.contains("berlin"), "a range's start without its end never existed: \(upto.output)")
    }
}
