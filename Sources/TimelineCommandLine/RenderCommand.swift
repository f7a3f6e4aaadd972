import Foundation
import TimelineCore
import TimelineKit
import TimelineProjections
import TimelineRender

/// `timeline render`: a view of a log as a picture.
enum RenderCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "render",
        summary: "draw the rows of a log as a picture: SVG, or a self-contained HTML page",
        positionals: [PositionalSpec(name: "FILE", help: "a log file, read whole (without it, the store's log: --log PATH, "
                                     + "opened from its checkpoint)",
                                     isOptional: true)],
        options: [log] + ViewOptions.specs.filter { $0.name != "--json" } + [
            OptionSpec(name: "--format", value: "svg|html", choices: ["svg", "html"],
                       help: "an SVG picture (the default; html when --output ends in .html) or an HTML page"),
            OptionSpec(name: "--width", value: "N", help: "the picture's width in pixels, 320 to 20000 (default: 1200)"),
            OptionSpec(name: "--from", value: "DATE", help: "where the time axis starts (default: before the first date)"),
            OptionSpec(name: "--to", value: "DATE", help: "where the time axis ends (default: after the last date, or now)"),
            OptionSpec(name: "--output", value: "PATH", help: "write the picture to PATH, not to standard output"),
        ],
        details: """
            One lane per timeline (the --timeline view is one lane), a bar per range from \
            its start to its end, an open range running to now and fading there, a mark \
            per single date, a time axis, and the titles beside or on their items; a title \
            without room is shortened, and every item shows its title and dates when the \
            pointer rests on it. Dates are placed by their instant: 2019 and 2019-03 at the \
            start of their year and month.

            The view options choose the rows as for replay, and the picture places them by \
            date: the lanes come in the order of their first row (with --order desc, the \
            latest first); --ongoing changes nothing, as an open range always runs to now; \
            --sections year, month or decade puts a line at each section's start.

            The HTML page needs no network and no script to show the picture, and follows \
            the system's light or dark appearance (so does the SVG in a browser). A view \
            whose events need more than 150 rows of the picture (a wider picture fits \
            more in a row), or that has more than 2,500 events, is drawn as counts per \
            timeline and period, with a note saying so.

            --output replaces a file atomically (a reader never sees half a picture); a \
            device, a FIFO or a symbolic link is written through, as a shell's > would; \
            never onto the log it reads or its checkpoint.
            """ + "\n\n" + dateDetails,
        examples: [
            "timeline render life.jsonl --format html > life.html",
            "timeline render life.jsonl --timeline work --from 2005 --to 2028 --output work.svg",
            "timeline render --log timeline.jsonl --sections year --width 1600 --output years.html",
        ])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.render(arguments)
    }
}

extension Runner {
    /// The file `path` names, its symbolic links followed; for a file that does not
    /// exist yet (a checkpoint before its first save), the same in its directory.
    private static func resolved(_ path: String) -> String? {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let url = URL(fileURLWithPath: path)
        guard let directory = realpath(url.deletingLastPathComponent().path, nil) else { return nil }
        defer { free(directory) }
        return String(cString: directory) + "/" + url.lastPathComponent
    }

    func render(_ arguments: ParsedArguments) async throws -> String {
        let path: String
        let input: Bool
        if let file = arguments.positionals.first {
            if arguments.value("--log") != nil {
                throw UsageError(message: "give a log FILE or --log PATH, not both", command: arguments.command.name)
            }
            (path, input) = (file, true)
        } else {
            (path, input) = (try logPath(arguments), false)
        }
        let output = arguments.value("--output")
        if output?.isEmpty == true {
            throw UsageError(message: "--output needs a path (or - for standard output)", command: arguments.command.name)
        }
        if let output, output != "-", let resolved = Self.resolved(output),
           let read = [path, TimelineStore.checkpointPath(forLog: path)].first(where: { Self.resolved($0) == resolved }) {
            // Replacing the log (or its checkpoint) with the picture would lose it.
            throw CommandFailure("--output \(output) is \(read), which render reads: "
                                 + "nothing written; give another path for the picture")
        }
        let options = try pictureOptions(arguments, output: output)
        let picture: String
        let viewOptions = ViewOptions(arguments)
        if !input, try viewOptions.upTo() == nil {
            // The store's state now, as rows shows it: from its checkpoint and the log after it.
            let view = try viewOptions.view()
            picture = try await readingStore(arguments, path: path, view: view) {
                await TimelinePicture.render(view, of: $0, options: options)
            }
        } else {
            let (projection, view) = try projectedView(arguments, path: path, input: input)
            picture = TimelinePicture.render(view, of: projection, options: options)
        }
        guard let output, output != "-" else { return picture }
        do {
            try DurableFile.writeOutput(Array(picture.utf8), to: output)
        } catch {
            let missingOrLocked: Bool
            if case .io(_, _, let code) = error { missingOrLocked = [ENOENT, ENOTDIR, EACCES, EPERM, EROFS].contains(code) }
            else { missingOrLocked = false }
            throw CommandFailure("cannot write the picture to \(output): \(error)"
                                 + (missingOrLocked ? "; check that its directory exists and can be written to" : ""))
        }
        return ""
    }

    /// `--format`, `--width`, `--from` and `--to`, checked.
    private func pictureOptions(_ arguments: ParsedArguments, output: String?) throws(UsageError)
        -> TimelinePicture.Options {
        let command = arguments.command.name
        // Extensions are matched in any case: x.HTML is a page too.
        let html = output.map { $0.lowercased().hasSuffix(".html") || $0.lowercased().hasSuffix(".htm") } ?? false
        let format = try arguments.choice("--format", as: TimelinePicture.Options.Format.self) ?? (html ? .html : .svg)
        var width = 1200
        if let text = arguments.value("--width") {
            // Any text that is not such a width (a word, -5, 1e3, too many digits) gets the range.
            guard let number = Int(text), (320...20_000).contains(number) else {
                throw .invalidValue(text, for: "--width", reason: "expected a width in pixels from 320 to 20000",
                                    command: command)
            }
            width = Int(number)
        }
        let from = try arguments.date("--from"), to = try arguments.date("--to")
        if let from, let to, to.instant <= from.instant {
            throw UsageError(message: "invalid value for --to: \(to.text) is not after --from \(from.text); "
                             + "give an end later than the start", command: command)
        }
        return TimelinePicture.Options(format: format, width: width, from: from?.instant, to: to?.instant)
    }
}
