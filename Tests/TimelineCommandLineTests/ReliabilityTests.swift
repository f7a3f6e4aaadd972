import TimelineTestSupport
import Foundation
import Testing
import TimelineCore

/// The `timeline-stress` helper built next to the `timeline` tool.
let stressToolURL: URL? = builtExecutable(named: "timeline-stress", packageRoot: packageRoot)
    .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }

/// One bad command line: the exit status, and the start of what stderr must say.
struct BadCommandLine: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var status: Int32
    var message: String
    var testDescription: String { String(arguments.joined(separator: " ").prefix(80)) }
}

@Suite("Reliability through the command line")
struct CommandLineReliabilityTests {
    static let long = String(repeating: "y", count: 1001)

    static let badDates = ["2019-13", "2019-02-30", "19", "2019-1-5", "yesterday", "", "2019-04-12T25:00:00Z",
                           "2019-04-12T10:00:00+25:00", "2019-04-12 10:00", "99999999999999999999"]

    static let cases: [BadCommandLine] = {
        var cases: [BadCommandLine] = []
        // Unparseable dates: usage errors, exit 2, naming the option and the value.
        let dateOptions: [([String], String)] = [
            (["add-event", "--timeline", "life", "--title", "X", "--date"], "--date"),
            (["add-event", "--timeline", "life", "--title", "X", "--start"], "--start"),
            (["add-event", "--timeline", "life", "--title", "X", "--start", "2000", "--end"], "--end"),
            (["set-date", "--event", "single", "--date"], "--date"),
            (["set-range", "--event", "single", "--start"], "--start"),
            (["set-range", "--event", "single", "--start", "2000", "--end"], "--end"),
            (["close-range", "--event", "open", "--end"], "--end"),
        ]
        for (prefix, option) in dateOptions {
            for bad in badDates {
                cases.append(BadCommandLine(arguments: prefix + [bad], status: 2,
                                            message: "timeline: invalid value for \(option): date \"\(bad)\": "))
            }
        }
        // Domain rules: exit 1, "COMMAND refused: ..." naming the value.
        func refused(_ arguments: [String], _ message: String) -> BadCommandLine {
            BadCommandLine(arguments: arguments, status: 1, message: "timeline: \(arguments[0]) refused: \(message)\n")
        }
        cases += [
            refused(["create-timeline", "--timeline", "life", "--name", "Again"], #"timeline "life" already exists"#),
            refused(["create-timeline", "--timeline", "new", "--name", ""], "timeline name must not be empty"),
            refused(["create-timeline", "--timeline", "new", "--name", long],
                    "timeline name is 1001 characters long; at most 1000 are allowed"),
            refused(["rename-timeline", "--timeline", "nope", "--name", "X"], #"unknown timeline "nope""#),
            refused(["rename-timeline", "--timeline", "life", "--name", "  "], "timeline name must not be empty"),
            refused(["rename-timeline", "--timeline", "life", "--name", long],
                    "timeline name is 1001 characters long; at most 1000 are allowed"),
            refused(["remove-timeline", "--timeline", "nope"], #"unknown timeline "nope""#),
            refused(["add-event", "--timeline", "life", "--title", "X", "--date", "2000", "--event", "single"],
                    #"event "single" already exists"#),
            refused(["add-event", "--timeline", "nope", "--title", "X", "--date", "2000"], #"unknown timeline "nope""#),
            refused(["add-event", "--timeline", "life", "--title", "", "--date", "2000"], "title must not be empty"),
            refused(["add-event", "--timeline", "life", "--title", long, "--date", "2000"],
                    "title is 1001 characters long; at most 1000 are allowed"),
            refused(["add-event", "--timeline", "life", "--title", "X", "--start", "2000-05", "--end", "2000-04-30",
                     "--event", "new"], #"event "new": end "2000-04-30" is before start "2000-05""#),
            refused(["retitle-event", "--event", "nope", "--title", "X"], #"unknown event "nope""#),
            refused(["retitle-event", "--event", "single", "--title", ""], "title must not be empty"),
            refused(["retitle-event", "--event", "single", "--title", long],
                    "title is 1001 characters long; at most 1000 are allowed"),
            refused(["set-date", "--event", "nope", "--date", "2000"], #"unknown event "nope""#),
            refused(["set-range", "--event", "nope", "--start", "2000"], #"unknown event "nope""#),
            refused(["set-range", "--event", "single", "--start", "2000", "--end", "1999"],
                    #"event "single": end "1999" is before start "2000""#),
            refused(["close-range", "--event", "nope", "--end", "2000"], #"unknown event "nope""#),
            refused(["close-range", "--event", "single", "--end", "2000"], #"event "single" is not an open range"#),
            refused(["close-range", "--event", "closed", "--end", "2030"], #"event "closed" is not an open range"#),
            refused(["close-range", "--event", "open", "--end", "2001"], #"event "open": end "2001" is before start "2010-06""#),
            refused(["reopen-range", "--event", "nope"], #"unknown event "nope""#),
            refused(["reopen-range", "--event", "single"], #"event "single" is not a closed range"#),
            refused(["reopen-range", "--event", "open"], #"event "open" is not a closed range"#),
            refused(["move-event", "--event", "nope", "--timeline", "life"], #"unknown event "nope""#),
            refused(["move-event", "--event", "single", "--timeline", "nope"], #"unknown timeline "nope""#),
            refused(["remove-event", "--event", "nope"], #"unknown event "nope""#),
        ]
        return cases
    }()

    /// A log with a timeline and an event of each kind of dates (one per case: the cases run
    /// in parallel, and two writers on one log would refuse each other).
    static let prepared = """
        {"type":"timelineCreated","data":{"timeline":"life","name":"Life"}}
        {"type":"eventAdded","data":{"event":"single","timeline":"life","title":"Single","date":"1990-04-12"}}
        {"type":"eventAdded","data":{"event":"open","timeline":"life","title":"Open","date":"2010-06"}}
        {"type":"rangeSet","data":{"event":"open","start":"2010-06","end":null}}
        {"type":"eventAdded","data":{"event":"closed","timeline":"life","title":"Closed","date":"2000"}}
        {"type":"rangeSet","data":{"event":"closed","start":"2000","end":"2005"}}

        """

    @Test(arguments: cases)
    func aBadCommandLineExitsWithItsMessageAndLeavesTheLogAlone(_ bad: BadCommandLine) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", Self.prepared)
        let before = try #require(FileManager.default.contents(atPath: log))
        let run = try await timeline(bad.arguments + ["--log", log])
        #expect(run.status == bad.status, "\(run)")
        #expect(run.output.isEmpty)
        #expect(run.errors.hasPrefix(bad.message), "\(run.errors)")
        #expect(FileManager.default.contents(atPath: log) == before, "the log changed")
    }

    @Test func aWriterProcessAtWorkLeavesRoomForOtherWritersAndReaders() async throws {
        let stress = try #require(stressToolURL, "timeline-stress not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("store.jsonl")
        let outputPath = directory.path("stress.out")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let helper = Process()
        helper.executableURL = stress
        helper.arguments = [log, "7"]
        helper.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        helper.standardError = FileHandle.nullDevice
        try helper.run()
        // Foundation reaps it; waitUntilExit is not called, as it can hang off the main thread.
        defer { if helper.isRunning { kill(helper.processIdentifier, SIGKILL) } }
        let deadline = ContinuousClock.now + .seconds(30)
        while (FileManager.default.contents(atPath: outputPath)?.isEmpty ?? true), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        try #require(helper.isRunning, "the helper stopped")
        try #require(!(FileManager.default.contents(atPath: outputPath)?.isEmpty ?? true), "the helper wrote nothing")

        // Writers take turns with it: each append waits one append at most. (The writer's
        // random commands may remove a timeline between two of ours, so the event goes to
        // a timeline created in the same run of the tool as its check: the record's
        // position says it was appended after the writer's.)
        for arguments in [["create-timeline", "--timeline", "other", "--name", "Other"], ["repair"]] {
            let run = try await timeline(arguments + ["--log", log])
            #expect(run.status == 0, "\(arguments): \(run)")
        }
        let added = try await timeline(["add-event", "--event", "x", "--timeline", "other", "--title", "X",
                                        "--date", "2000", "--log", log])
        // Decided against the writer's latest state: accepted, or refused by a domain rule
        // (the writer removed "other" meanwhile), never locked out.
        #expect(added.status == 0 || added.errors.hasPrefix("timeline: add-event refused: unknown timeline"), "\(added)")
        // Readers work while the writer keeps appending (a batch caught mid-write is a torn tail, not an error).
        for arguments in [["verify", "--log", log], ["replay", log, "--json"], ["rows", "--log", log, "--json"],
                          ["timelines", "--log", log]] {
            let run = try await timeline(arguments)
            #expect(run.status == 0, "\(arguments): \(run)")
        }
        #expect(helper.isRunning, "the writer was disturbed")
    }
}
