import Foundation
import SystemShim
import Testing
import TimelineKit
import TimelineTestSupport
@testable import TimelineCommandLine

/// `timeline rebuild`: the whole log read once and checked, the checkpoint written for the
/// next command, and progress on standard error.
@Suite("timeline rebuild")
struct RebuildCommandTests {
    @Test func rebuildWritesTheCheckpointThatTheNextCommandOpensFrom() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", ToolCheckpointTests.handWrittenLog(events: 20))
        let checkpoint = log + ".checkpoint"
        let run = try await timeline(["rebuild", "--log", log])
        #expect(run.status == 0, "\(run)")
        #expect(run.output == "rebuilt \(log): 21 records, 20 rows, 1 timeline, 1 view; checkpoint written\n")
        #expect(FileManager.default.fileExists(atPath: checkpoint))
        // A record before the checkpoint damaged in place: the next write command starts at
        // the checkpoint and never reads it.
        try ToolCheckpointTests.damageInPlace(log)
        let written = Array(try Data(contentsOf: URL(fileURLWithPath: checkpoint)))
        let add = try await timeline(["add-event", "--event", "x1", "--timeline", "life", "--title", "X",
                                      "--date", "2000", "--log", log])
        #expect(add.status == 0, "\(add)")
        // rebuild ignores the checkpoint: it reads the whole log, finds the damage, and
        // leaves the checkpoint as it was.
        let again = try await timeline(["rebuild", "--log", log])
        #expect(again.status == 1, "\(again)")
        #expect(again.output.isEmpty)
        #expect(again.errors.contains("line 5"), "\(again)")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: checkpoint))) == written)
    }

    @Test func aRebuildReplacesAStaleCheckpoint() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", ToolCheckpointTests.handWrittenLog(events: 5))
        let first = try await timeline(["rebuild", "--log", log])
        #expect(first.status == 0, "\(first)")
        let before = try Data(contentsOf: URL(fileURLWithPath: log + ".checkpoint"))
        // Another writer appends without refreshing the checkpoint (below the refresh bound).
        let add = try await timeline(["add-event", "--event", "x1", "--timeline", "life", "--title", "X",
                                      "--date", "2000", "--log", log])
        #expect(add.status == 0, "\(add)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log + ".checkpoint")) == before)
        let second = try await timeline(["rebuild", "--log", log])
        #expect(second.status == 0, "\(second)")
        #expect(second.output == "rebuilt \(log): 7 records, 6 rows, 1 timeline, 1 view; checkpoint written\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log + ".checkpoint")) != before)
    }

    @Test func progressOnANonTerminalIsPlainLinesEndingAtOneHundredPercent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", ToolCheckpointTests.handWrittenLog(events: 20))
        let run = try await timeline(["rebuild", "--log", log])
        #expect(run.status == 0, "\(run)")
        #expect(!run.errors.contains("\r"), "no redrawn line when standard error is not a terminal")
        #expect(!run.errors.contains("\u{1B}"))
        let lines = run.errors.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("timeline: ") }, "\(run)")
        let last = try #require(lines.last)
        #expect(last.hasPrefix("timeline: rebuilt: 100%, 21 records in "), "\(run)")
        #expect(last.hasSuffix(" records/s"), "\(run)")
    }

    @Test func aRefusedRecordFailsNamingItsLineAndWritesNoCheckpoint() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", """
            {"type":"timelineCreated","data":{"timeline":"life","name":"Life"}}
            {"type":"eventAdded","data":{"event":"e1","timeline":"life","title":"A","date":"2001"}}
            {"type":"eventAdded","data":{"event":"e2","timeline":"nowhere","title":"B","date":"2002"}}
            {"type":"eventAdded","data":{"event":"e3","timeline":"life","title":"C","date":"2003"}}

            """)
        let run = try await timeline(["rebuild", "--log", log])
        #expect(run.status == 1, "\(run)")
        #expect(run.output.isEmpty)
        #expect(run.errors.contains("line 3"), "\(run)")
        #expect(run.errors.contains("timeline repair"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: log + ".checkpoint"))
    }

    @Test func aBadLineFailsNamingItAndWritesNoCheckpoint() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", ToolCheckpointTests.handWrittenLog(events: 6)
            .replacingOccurrences(of: #""date":"1903"}"#, with: #""date":"19X3"}"#))
        let run = try await timeline(["rebuild", "--log", log])
        #expect(run.status == 1, "\(run)")
        #expect(run.errors.contains("line 5"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: log + ".checkpoint"))
    }

    @Test func anEmptyLogRebuildsToNothingAndAMissingOneIsNamed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", "")
        let run = try await timeline(["rebuild", "--log", log])
        #expect(run.status == 0, "\(run)")
        #expect(run.output == "rebuilt \(log): 0 records, 0 rows, 0 timelines, 1 view; checkpoint written\n")
        let verify = try await timeline(["verify", "--log", log])
        #expect(verify.status == 0, "\(verify)")
        let missing = directory.path("missing.jsonl")
        let absent = try await timeline(["rebuild", "--log", missing])
        let verifyAbsent = try await timeline(["verify", "--log", missing])
        #expect(absent.status == 1)
        #expect(absent.errors == verifyAbsent.errors)
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(!FileManager.default.fileExists(atPath: missing + ".checkpoint"))
    }

    @Test func theCheckpointGetsTheLogsPermissions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = try directory.write("store.jsonl", ToolCheckpointTests.handWrittenLog(events: 3))
        #expect(chmod(log, 0o640) == 0)
        let run = try await timeline(["rebuild", "--log", log])
        #expect(run.status == 0, "\(run)")
        let attributes = try FileManager.default.attributesOfItem(atPath: log + ".checkpoint")
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
    }

    @Test func helpSaysWhatRebuildDoes() async throws {
        let run = try await timeline(["rebuild", "--help"])
        #expect(run.status == 0)
        for phrase in ["checkpoint", "records per second", "time left", "plain line", "status 1"] {
            #expect(run.output.contains(phrase), "\(phrase)")
        }
    }
}

/// The progress lines, as pure functions of how far the read is and how long it took.
@Suite("rebuild progress lines")
struct ProgressLineTests {
    @Test func theTerminalLineHasABarThePercentTheRateAndTheTimeLeft() {
        #expect(ProgressMeter.terminalLine(fraction: 0.5, records: 500_000, seconds: 1, barWidth: 10)
            == "[=====>    ]  50%  500,000 records/s  0:01 left")
        #expect(ProgressMeter.terminalLine(fraction: 0, records: 0, seconds: 0, barWidth: 4)
            == "[>   ]   0%  - records/s  ? left")
        #expect(ProgressMeter.terminalLine(fraction: 1, records: 10, seconds: 2, barWidth: 4)
            == "[====] 100%  5 records/s  0:00 left")
        #expect(ProgressMeter.terminalLine(fraction: nil, records: 1_234_567, seconds: 2)
            == "rebuilding: 1,234,567 records  617,000 records/s")
    }

    @Test func percentIsWholeAndReachesOneHundredOnlyAtTheEnd() {
        #expect(ProgressMeter.percent(0.999) == " 99%")
        #expect(ProgressMeter.percent(1) == "100%")
        #expect(ProgressMeter.percent(0.07) == "  7%")
    }

    @Test func theRateHasThreeSignificantFigures() {
        #expect(ProgressMeter.rateText(records: 652_340, seconds: 1) == "652,000 records/s")
        #expect(ProgressMeter.rateText(records: 1_234_567, seconds: 1) == "1,230,000 records/s")
        #expect(ProgressMeter.rateText(records: 98, seconds: 0.5) == "196 records/s")
        #expect(ProgressMeter.rateText(records: 0, seconds: 1) == "- records/s")
    }

    @Test func theTimeLeftFollowsThePaceSoFar() {
        #expect(ProgressMeter.timeLeft(fraction: 0.25, seconds: 3) == "0:09 left")
        #expect(ProgressMeter.timeLeft(fraction: 0.5, seconds: 3700) == "1:01:40 left")
        #expect(ProgressMeter.timeLeft(fraction: 0, seconds: 3) == "? left")
    }

    @Test func thePlainAndFinalLines() {
        #expect(ProgressMeter.plainLine(fraction: 0.4, records: 400_000, seconds: 2)
            == "rebuilding: 40%, 400,000 records, 200,000 records/s, 0:03 left")
        #expect(ProgressMeter.plainLine(fraction: nil, records: 100_000, seconds: 1)
            == "rebuilding: 100,000 records, 100,000 records/s")
        #expect(ProgressMeter.finalLine(records: 1_000_000, seconds: 1.5204)
            == "rebuilt: 100%, 1,000,000 records in 1.520 s, 658,000 records/s")
    }

    /// For any fraction, the bar keeps its width and fills with the fraction.
    @Test(arguments: [UInt64(1), 2, 3])
    func theBarKeepsItsWidth(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var previous = -1
        for step in 0...200 {
            let fraction = Double(step) / 200
            let width = Int.random(in: 1...60, using: &generator)
            let line = ProgressMeter.terminalLine(fraction: fraction, records: step, seconds: 1, barWidth: width)
            let bar = line.prefix(width + 2)
            #expect(bar.first == "[" && bar.last == "]", "\(line)")
            let filled = bar.filter { $0 == "=" }.count
            #expect(filled == Int((fraction * Double(width)).rounded(.down)), "\(line)")
            let percent = Int(ProgressMeter.percent(fraction).trimmingCharacters(in: .whitespaces).dropLast())!
            #expect(percent >= previous)
            previous = percent
        }
    }

    @Test func aNonTerminalGetsOneLinePerTenthAndTheFinalLine() {
        let errors = CapturedOutput()
        var meter = ProgressMeter(context: ToolContext(output: CapturedOutput(), errors: errors), started: .now)
        for step in stride(from: 0, through: 1000, by: 50) {
            meter.update(RebuildProgress(records: step, completed: step, total: 1000))
        }
        meter.finish(records: 1000)
        let lines = errors.text.split(separator: "\n")
        #expect(lines.count == 10, "\(errors.text)")
        #expect(lines.dropLast().map { String($0.split(separator: ",")[0]) }
            == (1...9).map { "timeline: rebuilding: \($0 * 10)%" })
        #expect(lines.last?.hasPrefix("timeline: rebuilt: 100%, 1,000 records in ") == true)
    }

    @Test func withoutASizeANonTerminalGetsALinePerHundredThousandRecords() {
        let errors = CapturedOutput()
        var meter = ProgressMeter(context: ToolContext(output: CapturedOutput(), errors: errors), started: .now)
        for records in stride(from: 0, through: 350_000, by: 25_000) {
            meter.update(RebuildProgress(records: records, completed: records, total: nil))
        }
        let lines = errors.text.split(separator: "\n")
        #expect(lines.map { String($0.split(separator: ", ")[0]) }
            == ["timeline: rebuilding: 100,000 records", "timeline: rebuilding: 200,000 records",
                "timeline: rebuilding: 300,000 records"])
    }

    @Test func aTerminalGetsALineRedrawnInPlaceAndClearedAtTheEnd() {
        let errors = CapturedOutput()
        var meter = ProgressMeter(context: ToolContext(output: CapturedOutput(), errors: errors, errorsIsTerminal: true),
                                  started: .now)
        meter.update(RebuildProgress(records: 10, completed: 10, total: 100))
        #expect(errors.text.hasPrefix("\r\u{1B}[K["), "\(errors.text)")
        #expect(!errors.text.contains("\n"))
        meter.finish(records: 100)
        #expect(errors.text.contains("\r\u{1B}[Ktimeline: rebuilt: 100%, 100 records in "), "\(errors.text)")
        #expect(errors.text.hasSuffix(" records/s\n"))
    }
}
