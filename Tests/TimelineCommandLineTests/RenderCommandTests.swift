import Foundation
import Testing
@testable import TimelineCommandLine

/// `timeline render`, end to end: the built tool, its output, its files and its errors.
@Suite("timeline render")
struct RenderCommandTests {
    let life = exampleLogs.appendingPathComponent("life.jsonl").path
    let golden = packageRoot.appendingPathComponent("Tests/TimelineRenderTests/Golden/life.svg")

    @Test func theBundledLogGivesTheGoldenPicture() async throws {
        let run = try await timeline(["render", life, "--now", "2026-11-29"])
        #expect(run.status == 0, "\(run)")
        #expect(run.errors.isEmpty)
        #expect(run.output == (try String(contentsOf: golden, encoding: .utf8)), """
            timeline render differs from Tests/TimelineRenderTests/Golden/life.svg; see \
            DocumentTests.theBundledLogMatchesTheGoldenPicture for how to regenerate it
            """)
    }

    /// The picture never replaces what it is drawn from: the log, its checkpoint, or a
    /// symbolic link to either.
    @Test func theOutputIsNeverTheLogItReads() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("g.jsonl")
        #expect(try await timeline(["import", life, "--log", log]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: log))
        _ = symlink(log, directory.path("link.svg"))
        for arguments in [["--log", log, "--output", log], [log, "--output", log],
                          ["--log", log, "--output", directory.path("link.svg")],
                          ["--log", log, "--output", log + ".checkpoint"]] {
            let run = try await timeline(["render"] + arguments + ["--now", "2026-11-29"])
            #expect(run.status == 1 && run.errors.contains("which render reads: nothing written"), "\(arguments): \(run)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == before)
        #expect(try await timeline(["verify", "--log", log]).status == 0)
        // Before the checkpoint exists too (render saves one, then would write over it),
        // by its name or through a symbolic link to the log.
        _ = symlink(log, directory.path("linked.jsonl"))
        for (read, output) in [(log, log + ".checkpoint"), (directory.path("linked.jsonl"), directory.path("linked.jsonl.checkpoint"))] {
            try? FileManager.default.removeItem(atPath: output)
            let run = try await timeline(["render", "--log", read, "--output", output, "--now", "2026-11-29"])
            #expect(run.status == 1 && run.errors.contains("which render reads: nothing written"), "\(output): \(run)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    @Test func htmlGoesToStandardOutputOrToAFileNamedForIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let page = try await timeline(["render", life, "--now", "2026-11-29", "--format", "html"])
        #expect(page.status == 0)
        #expect(page.output.hasPrefix("<!DOCTYPE html>\n"))
        #expect(page.output.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))

        let toFile = try await timeline(["render", life, "--now", "2026-11-29", "--output", directory.path("life.html")])
        #expect(toFile.status == 0 && toFile.output.isEmpty && toFile.errors.isEmpty, "\(toFile)")
        #expect(try directory.read("life.html") == page.output)

        let svg = try await timeline(["render", life, "--now", "2026-11-29", "--output", directory.path("life.svg")])
        #expect(svg.status == 0)
        #expect(try directory.read("life.svg") == (try String(contentsOf: golden, encoding: .utf8)))

        let dash = try await timeline(["render", life, "--now", "2026-11-29", "--output", "-"])
        #expect(dash.output == (try String(contentsOf: golden, encoding: .utf8)))
    }

    @Test func theStoresLogIsDrawnWithoutAFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("timeline.jsonl", try String(contentsOfFile: life, encoding: .utf8))
        let expected = try String(contentsOf: golden, encoding: .utf8)
        let withLog = try await timeline(["render", "--log", directory.path("timeline.jsonl"), "--now", "2026-11-29"])
        #expect(withLog.output == expected, "\(withLog.errors)")
        let inDirectory = try await timeline(["render", "--now", "2026-11-29"], in: directory.url)
        #expect(inDirectory.output == expected, "\(inDirectory.errors)")
    }

    @Test func theViewOptionsChooseTheRows() async throws {
        let work = try await timeline(["render", life, "--timeline", "work", "--now", "2026-11-29"])
        #expect(work.status == 0)
        #expect(work.output.components(separatedBy: "class=\"tl-lane\"").count == 2)
        #expect(work.output.contains(">\u{2068}Work\u{2069}</text>"))

        let early = try await timeline(["render", life, "--upto", "12", "--now", "2026-11-29"])
        let all = try await timeline(["render", life, "--now", "2026-11-29"])
        let items = { (run: ToolRun) in run.output.components(separatedBy: "class=\"tl-item\"").count - 1 }
        #expect(items(early) > 0 && items(early) < items(all))

        let unknown = try await timeline(["render", life, "--timeline", "wrok", "--now", "2026-11-29"])
        #expect(unknown.status == 0)
        #expect(unknown.errors.contains("there is no timeline \"wrok\"; did you mean 'work'?"))
    }

    @Test func widthAndAxisOptionsShapeThePicture() async throws {
        let run = try await timeline(["render", life, "--now", "2026-11-29", "--width", "800", "--from", "2000",
                                      "--to", "2010-06"])
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("width=\"800\""))
        #expect(run.output.contains("outside the axis not shown"))
        #expect(!run.output.contains("data-event=\"born\""))
    }

    @Test(arguments: [
        (["--log", "other.jsonl"], "give a log FILE or --log PATH, not both"),
        (["--width", "100"], "invalid value '100' for --width: expected a width in pixels from 320 to 20000"),
        (["--width", "wide"], "invalid value 'wide' for --width: expected a width in pixels from 320 to 20000"),
        (["--width", "-5"], "invalid value '-5' for --width: expected a width in pixels from 320 to 20000"),
        (["--width", "99999999999999999999"],
         "invalid value '99999999999999999999' for --width: expected a width in pixels from 320 to 20000"),
        (["--output", ""], "--output needs a path (or - for standard output)"),
        (["--format", "pdf"], "invalid value 'pdf' for --format: expected 'svg' or 'html'"),
        (["--from", "2020", "--to", "2019"], "invalid value for --to: 2019 is not after --from 2020; give an end later than the start"),
        (["--from", "2019-13"], "invalid value for --from: date \"2019-13\""),
        (["--json"], "unknown option '--json' for 'render'"),
    ])
    func mistakesAreUsageErrors(_ options: [String], _ message: String) async throws {
        let run = try await timeline(["render", life] + options)
        #expect(run.status == 2, "\(run)")
        #expect(run.output.isEmpty)
        #expect(run.errors.hasPrefix("timeline: \(message)"), "\(run.errors)")
        #expect(run.errors.contains("usage: timeline render [FILE] [--log PATH]"))
    }

    @Test func aPictureThatCannotBeWrittenIsAFailure() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("missing/life.svg")
        let run = try await timeline(["render", life, "--output", path])
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.errors.hasPrefix("timeline: cannot write the picture to \(path): "), "\(run.errors)")
    }

    /// `--output` replaces a file, but writes through what is not one: a FIFO stays a FIFO
    /// (its reader gets the picture), a symbolic link stays a link (its target gets it).
    /// (Limited in time: a FIFO replaced by mistake would leave its reader waiting.)
    @Test(.timeLimit(.minutes(1)))
    func theOutputIsWrittenThroughAFIFOOrALinkNotReplaced() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        let fifo = directory.path("picture.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let reader = Task.detached { () -> String in
            guard let handle = FileHandle(forReadingAtPath: fifo) else { return "(the FIFO could not be opened)" }
            defer { try? handle.close() }
            return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        }
        let toFIFO = try await timeline(["render", life, "--now", "2026-11-29", "--output", fifo])
        #expect(toFIFO.status == 0, "\(toFIFO)")
        #expect(await reader.value == expected)
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")

        let target = try directory.write("target.svg", "old\n")
        let link = directory.path("link.svg")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let toLink = try await timeline(["render", life, "--now", "2026-11-29", "--output", link])
        #expect(toLink.status == 0, "\(toLink)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try directory.read("target.svg") == expected)
    }

    @Test func anInvalidLogIsAFailureAsForReplay() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("bad.jsonl", "{\"seq\": 1, \"type\": \"nonsense\"}\n")
        let render = try await timeline(["render", path])
        let replay = try await timeline(["replay", path])
        #expect(render.status == 1 && render.output.isEmpty)
        #expect(render.errors == replay.errors)
    }

    @Test func theFileIsOptionalButOnlyOne() throws {
        guard case .run(let none) = try ArgumentParser.parse([], for: RenderCommand.spec) else {
            Issue.record("no run")
            return
        }
        #expect(none.positionals.isEmpty)
        #expect(throws: UsageError(message: "unexpected argument 'b.jsonl'", command: "render")) {
            try ArgumentParser.parse(["a.jsonl", "b.jsonl"], for: RenderCommand.spec)
        }
        #expect(HelpText.usageLine(of: RenderCommand.spec).hasPrefix("timeline render [FILE] [--log PATH] [--timeline ID]"))
    }
}
