import Foundation
import Testing
import TimelineCore
@testable import TimelineCommandLine

/// Runs the built `timeline` executable and checks its standard output, standard error
/// and exit status, as a user or a script sees them.
@Suite("timeline, end to end")
struct EndToEndTests {
    let life = exampleLogs.appendingPathComponent("life.jsonl").path

    // MARK: The bundled log

    @Test(arguments: [
        ("life.expected.txt", ["--now", "2026-11-29"]),
        ("life.expected.jsonl", ["--json", "--now", "2026-11-29"]),
        ("life.work-desc-last.expected.jsonl",
         ["--timeline", "work", "--order", "desc", "--ongoing", "last", "--json", "--now", "2026-11-29"]),
        ("life.decades-ongoing-first.expected.txt", ["--sections", "decade", "--ongoing", "first", "--now", "2026-11-29"]),
        ("life.years-upto-60.expected.jsonl", ["--json", "--sections", "year", "--upto", "60", "--now", "2026-11-29"]),
    ])
    func replayOfTheBundledLogMatchesItsExpectedOutput(_ expectedFile: String, _ options: [String]) async throws {
        let expected = try String(contentsOf: exampleLogs.appendingPathComponent(expectedFile), encoding: .utf8)
        let run = try await timeline(["replay", life] + options)
        #expect(run.status == 0, "\(run)")
        #expect(run.errors.isEmpty)
        #expect(run.output == expected)
    }

    @Test func jsonRowsHaveExactlyTheContractsMembersInOrder() async throws {
        let run = try await timeline(["replay", life, "--json", "--now", "2026-11-29"])
        #expect(run.status == 0)
        #expect(run.outputLines.count > 40)
        var kinds: Set<String> = []
        for line in run.outputLines {
            #expect(memberNames(ofJSONObjectLine: line) == ["event", "timeline", "title", "kind", "date"], "\(line)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let kind = try #require(object["kind"] as? String)
            kinds.insert(kind)
            if kind == "ongoing" {
                #expect(object["date"] is NSNull)
            } else {
                #expect(object["date"] is String)
            }
        }
        #expect(kinds == ["single", "start", "end", "ongoing"])
    }

    @Test func sectionsAddASectionMemberLast() async throws {
        let run = try await timeline(["replay", life, "--json", "--sections", "month", "--now", "2026-11-29"])
        #expect(run.status == 0)
        for line in run.outputLines {
            #expect(memberNames(ofJSONObjectLine: line) == ["event", "timeline", "title", "kind", "date", "section"])
        }
        #expect(run.output.contains(#""kind":"ongoing","date":null,"section":"2026-11"}"#))
    }

    @Test func replayUpToZeroPrintsNoRows() async throws {
        let json = try await timeline(["replay", life, "--json", "--upto", "0"])
        #expect(json.status == 0)
        #expect(json.output.isEmpty)
        let table = try await timeline(["replay", life, "--upto", "0"])
        #expect(table.output == "(no rows)\n")
    }

    @Test func anUnknownTimelineIsAWarningWithASuggestion() async throws {
        let run = try await timeline(["replay", life, "--timeline", "wrok", "--json"])
        #expect(run.status == 0)
        #expect(run.output.isEmpty)
        #expect(run.errors == "timeline: warning: \(life): there is no timeline \"wrok\"; did you mean 'work'?\n")
    }

    @Test func descendingIsTheExactReverse() async throws {
        let ascending = try await timeline(["replay", life, "--json", "--now", "2026-11-29", "--ongoing", "first"])
        let descending = try await timeline(["replay", life, "--json", "--now", "2026-11-29", "--ongoing", "first",
                                             "--order", "desc"])
        #expect(Array(ascending.outputLines.reversed()) == descending.outputLines)
    }

    @Test func stringsAreEscapedAndNonASCIIKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("odd.jsonl", """
            {"type":"timelineCreated","data":{"timeline":"ré","name":"Ré"}}
            {"type":"eventAdded","data":{"event":"q","timeline":"ré","title":"say \\"hi\\" \\\\ a\\nb\\tc\\u0001 Zürich 東京 🎉","date":"2019"}}

            """)
        let run = try await timeline(["replay", path, "--json"])
        #expect(run.status == 0, "\(run)")
        #expect(run.output == #"{"event":"q","timeline":"ré","title":"say \"hi\" \\ a\nb\tc\u0001 Zürich 東京 🎉","kind":"single","date":"2019"}"# + "\n")
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        #expect(object?["title"] as? String == "say \"hi\" \\ a\nb\tc\u{01} Zürich 東京 🎉")
        let table = try await timeline(["replay", path])
        #expect(table.outputLines.count == 2, "one line per row: \(table.output)")
    }

    // MARK: Invalid logs

    static let created = #"{"type":"timelineCreated","data":{"timeline":"life","name":"My life"}}"#

    @Test(arguments: [
        (#"{"type":"eventAdded","data":{"event":"e1","timeline":"life","title":"X","date":"2019-13"}}"#,
         #"line 2: eventAdded: field "date": date "2019-13": month must be 01–12"#),
        (#"{"type":"rangeClosed","data":{"event":"e9","end":"2020"}}"#, #"line 2: rangeClosed: unknown event "e9""#),
        (#"{"type":"eventAdded","data":{"event":"e1","timeline":"work","title":"X","date":"2019"}}"#,
         #"line 2: eventAdded: unknown timeline "work""#),
        (#"{"type":"eventAdd","data":{}}"#, #"line 2: unknown type "eventAdd""#),
        (#"{"seq":5,"type":"timelineRemoved","data":{"timeline":"life"}}"#, "line 2: "),
        (#"{"type":"eventAdded","data":{"event":"e1","timeline":"life","date":"2019"}}"#,
         #"line 2: eventAdded: missing field "title""#),
        ("not json", "line 2: not valid JSON"),
    ])
    func anInvalidLogExitsOneNamingTheLineWithNothingOnStandardOutput(_ line: String, _ reason: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("bad.jsonl", Self.created + "\n" + line + "\n"
            + #"{"type":"timelineCreated","data":{"timeline":"more","name":"More"}}"# + "\n")
        for arguments in [["replay", path], ["replay", path, "--json"], ["replay", path, "--upto", "1"],
                          ["rows", "--log", path], ["verify", "--log", path], ["export", "--log", path]] {
            let run = try await timeline(arguments)
            #expect(run.status == 1, "\(arguments): \(run)")
            #expect(run.output.isEmpty, "\(arguments)")
            #expect(run.errors.hasPrefix("timeline: \(path): \(reason)"), "\(arguments): \(run.errors)")
        }
    }

    @Test func aCorruptLineIsRefusedByItsChecksum() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("store.jsonl")
        #expect(try await timeline(["create-timeline", "--timeline", "life", "--name", "Life", "--log", path]).status == 0)
        #expect(try await timeline(["add-event", "--timeline", "life", "--title", "Born", "--date", "1990",
                                    "--log", path]).status == 0)
        let text = try directory.read("store.jsonl")
        #expect(text.contains(#""crc":""#))
        try directory.write("store.jsonl", text.replacingOccurrences(of: "Born", with: "Borm"))
        let hint = "timeline: to move the bad lines to \(path).rejected and keep the rest: timeline repair --log \(path)\n"
        let run = try await timeline(["replay", path])
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.errors == "timeline: \(path): line 2: checksum mismatch\n" + hint)
        let verify = try await timeline(["verify", "--log", path])
        #expect(verify.status == 1)
        #expect(verify.errors == "timeline: \(path): line 2: checksum mismatch\n" + hint)
        let write = try await timeline(["remove-timeline", "--timeline", "life", "--log", path])
        #expect(write.status == 1)
        #expect(write.errors.contains("line 2: checksum mismatch"))

        let repair = try await timeline(["repair", "--log", path])
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.output.contains("moved 1 line to \(path).rejected, kept 1 record"))
        #expect(repair.output.contains("  line 2: checksum mismatch"))
        #expect(try directory.read("store.jsonl.rejected").contains("Borm"))
        let after = try await timeline(["verify", "--log", path])
        #expect(after.status == 0)
        #expect(after.output.hasPrefix("\(path): ok: 1 record"))
        let again = try await timeline(["repair", "--log", path])
        #expect(again.output == "\(path): nothing to repair: 1 record kept\n")
    }

    @Test func aTornLastLineIsAWarningAndNotApplied() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("torn.jsonl", Self.created + "\n"
            + #"{"type":"eventAdded","data":{"event":"e1","timeline":"life","title":"Born","date":"1990"}}"# + "\n"
            + #"{"type":"eventAdded","data":{"event":"e2","timel"#)
        let run = try await timeline(["replay", path, "--json"])
        #expect(run.status == 0)
        #expect(run.output == #"{"event":"e1","timeline":"life","title":"Born","kind":"single","date":"1990"}"# + "\n")
        #expect(run.errors.hasPrefix("timeline: warning: \(path): line 3: incomplete last record"), "\(run.errors)")
        #expect(run.errors.hasSuffix("; not applied\n"))
    }

    @Test func aCompleteLastLineWithoutNewlineIsRead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("no-newline.jsonl", Self.created + "\n"
            + #"{"type":"eventAdded","data":{"event":"e1","timeline":"life","title":"Born","date":"1990"}}"#)
        let run = try await timeline(["replay", path, "--json"])
        #expect(run.status == 0)
        #expect(run.errors.isEmpty)
        #expect(run.outputLines.count == 1)
    }

    @Test func importRefusesAForeignLogWithATornLastLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let foreign = try directory.write("foreign.jsonl", Self.created + "\n" + #"{"type":"eventAdded","da"#)
        let store = directory.path("store.jsonl")
        let run = try await timeline(["import", foreign, "--log", store])
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("timeline: \(foreign): line 2: incomplete last record"))
        #expect(run.errors.contains("nothing imported\ntimeline: to move the bad lines to") && run.errors.contains("timeline repair --log"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: store), "the store's log is not even created")
    }

    /// A line that is not a record, in the middle of the input, refuses the import as a
    /// refused fact does: the line, the reason, and that nothing was imported.
    @Test func importRefusesAForeignLogWithABadLineInTheMiddle() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let foreign = try directory.write("foreign.jsonl", Self.created + "\n{not json}\n" + Self.created + "\n")
        let store = directory.path("store.jsonl")
        let run = try await timeline(["import", foreign, "--log", store])
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("timeline: \(foreign): line 2: "), "\(run.errors)")
        #expect(run.errors.split(separator: "\n").first?.hasSuffix("; nothing imported") == true, "\(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func aRefusedImportNamesTheForeignLineOfTheFactAndAppendsNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("store.jsonl")
        _ = try await timeline(["create-timeline", "--timeline", "life", "--name", "Life", "--log", store])
        _ = try await timeline(["add-event", "--event", "e1", "--timeline", "life", "--title", "Born",
                                "--date", "1990", "--log", store])
        let before = try directory.read("store.jsonl")
        // Line 2 is an old-version record that stands for two facts, so the refused fact
        // (the fourth) is on line 3: fine in the file on its own, not after the store's records.
        let foreign = try directory.write("foreign.jsonl", [
            #"{"type":"timelineCreated","data":{"timeline":"travel","name":"Travel"}}"#,
            #"{"v":0,"type":"eventAdded","data":{"event":"trip","timeline":"travel","title":"Trip","start":"2020","end":null}}"#,
            #"{"type":"eventAdded","data":{"event":"e1","timeline":"travel","title":"Born again","date":"1991"}}"#,
        ].joined(separator: "\n") + "\n")
        let run = try await timeline(["import", foreign, "--log", store])
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.errors == "timeline: \(foreign): line 3: eventAdded: event \"e1\" already exists "
            + "in \(store); nothing imported\n")
        #expect(try directory.read("store.jsonl") == before)

        // Without the refused line, its three facts go in as one batch, printed with --json.
        let accepted = try directory.write("accepted.jsonl", [
            #"{"type":"timelineCreated","data":{"timeline":"travel","name":"Travel"}}"#,
            #"{"v":0,"type":"eventAdded","data":{"event":"trip","timeline":"travel","title":"Trip","start":"2020","end":null}}"#,
        ].joined(separator: "\n") + "\n")
        let imported = try await timeline(["import", accepted, "--log", store, "--json"])
        #expect(imported.status == 0, "\(imported)")
        let expected = [#"{"seq":3,"type":"timelineCreated","#, #"{"seq":4,"type":"eventAdded","#,
                        #"{"seq":5,"type":"rangeSet","#]
        #expect(imported.outputLines.count == expected.count)
        for (line, start) in zip(imported.outputLines, expected) { #expect(line.hasPrefix(start), "\(line)") }

        // Nothing to import: no records on standard output, and the note on standard error.
        let blank = try directory.write("blank.jsonl", "\n\n")
        let none = try await timeline(["import", blank, "--log", store, "--json"])
        #expect(none.status == 0 && none.output.isEmpty, "\(none)")
        #expect(none.errors == "timeline: \(blank): nothing to import\n", "\(none)")
    }

    @Test func aMissingFileIsNamed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("nowhere.jsonl")
        for arguments in [["replay", path], ["import", path, "--log", directory.path("store.jsonl")]] {
            let run = try await timeline(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.output.isEmpty)
            #expect(run.errors == "timeline: \(path): no such file\n", "\(arguments): \(run.errors)")
        }
        for arguments in [["rows", "--log", path], ["timelines", "--log", path], ["verify", "--log", path],
                          ["export", "--log", path], ["repair", "--log", path]] {
            let run = try await timeline(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.output.isEmpty)
            #expect(run.errors.hasPrefix("timeline: there is no log at \(path)\n"), "\(arguments): \(run.errors)")
        }
    }

    // MARK: Usage

    struct UsageCase: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var message: String
        /// The command whose help the message points to, or `nil` for the tool's.
        var command: String?
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let usageCases: [UsageCase] = [
        UsageCase(arguments: ["replay", "LIFE", "--ordr", "asc"],
                  message: "unknown option '--ordr' for 'replay'; did you mean '--order'?", command: "replay"),
        UsageCase(arguments: ["replay", "LIFE", "--order", "up"],
                  message: "invalid value 'up' for --order: expected 'asc' or 'desc'", command: "replay"),
        UsageCase(arguments: ["replay", "LIFE", "--order"], message: "option --order needs a value", command: "replay"),
        UsageCase(arguments: ["replay", "LIFE", "--now", "2019-13"],
                  message: #"invalid value for --now: date "2019-13": month must be 01–12"#, command: "replay"),
        UsageCase(arguments: ["replay", "LIFE", "--upto", "-3"], message: "invalid value '-3' for --upto", command: "replay"),
        UsageCase(arguments: ["replay"], message: "missing FILE", command: "replay"),
        UsageCase(arguments: ["replay", "LIFE", "extra"], message: "unexpected argument 'extra'", command: "replay"),
        UsageCase(arguments: ["replya", "LIFE"], message: "unknown command 'replya'; did you mean 'replay'?", command: nil),
        UsageCase(arguments: ["close-range", "--event", "e1"], message: "missing --end DATE", command: "close-range"),
        UsageCase(arguments: [], message: "missing command", command: nil),
    ]

    @Test(arguments: usageCases)
    func usageErrorsExitTwo(_ usage: UsageCase) async throws {
        let run = try await timeline(usage.arguments.map { $0 == "LIFE" ? life : $0 })
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errors.hasPrefix("timeline: \(usage.message)"), "\(run.errors)")
        let help = usage.command.map { "timeline \($0) --help" } ?? "timeline --help"
        #expect(run.errors.hasSuffix("timeline: see '\(help)'\n"))
    }

    @Test(arguments: [["--help"], ["help"], ["-h"]] + Catalogue.names.map { [$0, "--help"] })
    func helpExitsZeroOnStandardOutput(_ arguments: [String]) async throws {
        let run = try await timeline(arguments)
        #expect(run.status == 0)
        #expect(run.errors.isEmpty)
        #expect(run.output.contains("Usage:"))
        #expect(run.output.contains("Example"))
    }
}
