import Foundation
import Testing

/// Ids through the built tool: the same only when their UTF-8 bytes are equal, and
/// refused with the rule when they break one.
@Suite("timeline, ids end to end")
struct IdentifierEndToEndTests {
    @Test func canonicallyEquivalentEventIdsAreTwoEventsThatReplay() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("store.jsonl")
        #expect(try await timeline(["create-timeline", "--timeline", "life", "--name", "Life", "--log", path]).status == 0)
        for (id, title) in [("\u{E9}", "Composed"), ("e\u{301}", "Decomposed")] {
            let add = try await timeline(["add-event", "--event", id, "--timeline", "life", "--title", title,
                                          "--date", "2019", "--log", path])
            #expect(add.status == 0, "\(add)")
        }
        for arguments in [["rows", "--log", path, "--json"], ["replay", path, "--json"]] {
            let run = try await timeline(arguments)
            #expect(run.status == 0, "\(arguments): \(run)")
            #expect(run.outputLines.count == 2, "\(arguments): \(run)")
            // Bytes, not Characters: Foundation and Swift would take the two for one.
            let events = run.outputLines.map { line in
                Array(line.utf8).split(separator: UInt8(ascii: "\""), omittingEmptySubsequences: false)[3]
            }
            #expect(events.map(Array.init) == [Array("e\u{301}".utf8), Array("\u{E9}".utf8)], "\(arguments): \(run)")
        }
        let verify = try await timeline(["verify", "--log", path])
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.output.hasPrefix("\(path): ok: 3 records"), "\(verify)")
        let again = try await timeline(["add-event", "--event", "e\u{301}", "--timeline", "life", "--title", "Again",
                                        "--date", "2019", "--log", path])
        #expect(again.status == 1)
        #expect(again.errors.contains("already exists"), "\(again)")
    }

    @Test func aBadIdIsRefusedWithTheRule() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("store.jsonl")
        let run = try await timeline(["create-timeline", "--timeline", "life\n", "--name", "Life", "--log", path])
        #expect(run.status == 1)
        #expect(run.errors.contains(#"timeline id "life\u{a}" holds the control character U+000A"#), "\(run)")
        #expect(try await timeline(["create-timeline", "--timeline", "life", "--name", "Life", "--log", path]).status == 0)
        let spaced = try await timeline(["add-event", "--event", "\u{3000}x", "--timeline", "life", "--title", "T",
                                         "--date", "2019", "--log", path])
        #expect(spaced.status == 1)
        #expect(spaced.errors.contains(#"event id "\u{3000}x" starts with the whitespace U+3000"#), "\(spaced)")
    }
}
