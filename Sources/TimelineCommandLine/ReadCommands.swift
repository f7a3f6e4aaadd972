import Foundation
import TimelineCore
import TimelineProjections

/// The commands that read a log without changing it: replay, rows, timelines, verify,
/// rebuild, export. None of them takes the writer's lock.
extension Runner {
    /// Reads a whole log without its lock; a log that cannot be read is a command failure.
    func readContents(_ path: String) throws -> LogReader.Contents {
        if DatabaseLogs.isURL(path) { return try DatabaseLogs.read(DatabaseLogs.name(for: path)) }
        try requireLog(path)
        do {
            return try FileEventLog.read(path: path)
        } catch {
            throw CommandFailure(RepairHint.added(to: error.description, for: path, when: error.isCorruption))
        }
    }

    /// Reads a whole log without its lock; a torn last line is named in a warning.
    func readLog(_ path: String) throws -> LogReader.Contents {
        let contents = try readContents(path)
        if let torn = contents.tornTail {
            context.warn("\(path): \(torn); not applied")
        }
        return contents
    }

    /// Reads a log given as a file argument (`-`: standard input) as a stream; a torn
    /// last line is named in a warning.
    func readInput(_ path: String) throws -> (contents: LogReader.Contents, input: InputLog) {
        let input = try InputLog.read(path)
        let contents = try input.contents()
        if let torn = contents.tornTail {
            context.warn("\(input.name): \(torn); not applied")
        }
        return (contents, input)
    }

    /// Checks every record of a log against the domain rules.
    func validate(_ contents: LogReader.Contents, path: String, repairable: Bool = true) throws -> DomainState {
        do {
            return try LogValidator.validate(contents)
        } catch {
            throw CommandFailure(RepairHint.added(to: "\(path): \(error)", for: path, when: repairable))
        }
    }

    /// "Now": `--now`, else the clock.
    func now(_ arguments: ParsedArguments) throws -> Instant {
        try arguments.date("--now")?.instant ?? context.clock()
    }

    /// The records up to `--upto`, or all of them.
    func records(_ contents: LogReader.Contents, _ arguments: ParsedArguments) throws -> ArraySlice<Record> {
        guard let upTo = try arguments.nonNegativeInteger("--upto") else { return contents.records[...] }
        return Self.records(contents.records, upTo: upTo)
    }

    /// The records of the whole atomic batches that end at or before position `upTo`:
    /// a state that was committed, never one inside a batch.
    static func records(_ records: [Record], upTo: Int64) -> ArraySlice<Record> {
        var end = 0
        for (index, record) in records.enumerated() {
            guard record.position <= upTo else { break }
            if record.batchRemainder == 0 { end = index + 1 }
        }
        return records[..<end]
    }

    // MARK: replay, rows

    /// `replay FILE` (`input`: the path is a file argument, read as a stream) or `rows`
    /// (the store's log).
    func replay(_ arguments: ParsedArguments, path: String, input: Bool = false) throws -> String {
        let (projection, view) = try projectedView(arguments, path: path, input: input)
        let printer = RowPrinter(rows: projection.rows(view) ?? RowList(), sections: Array(projection.sections(view)))
        return arguments.flag("--json") ? printer.json()
            : printer.table(width: context.tableWidth, colour: context.usesColour)
    }

    /// The view that the view options choose, and the projection of the log at `path`
    /// (checked, up to `--upto`, at `--now`) that maintains it; warns about an unknown
    /// `--timeline`. What replay, rows and render show. With `input`, `path` is a file
    /// argument (`-` for standard input), read as a stream.
    func projectedView(_ arguments: ParsedArguments, path: String,
                       input: Bool = false) throws -> (TimelineProjection, ViewDefinition) {
        let view = try view(arguments)
        let now = try now(arguments)
        _ = try arguments.nonNegativeInteger("--upto")
        let contents: LogReader.Contents
        var path = path
        if input {
            let read = try readInput(path)
            contents = read.contents
            path = read.input.name
            _ = try validate(contents, path: path, repairable: read.input.isRepairable)
        } else {
            contents = try readLog(path)
            _ = try validate(contents, path: path)
        }
        let projection = TimelineProjection(records: try records(contents, arguments), views: [view], now: now)
        if case .timeline(let id) = view.filter, !projection.timelineSummaries.contains(where: { $0.id == id }) {
            var message = "\(path): there is no timeline \"\(id)\""
            if let near = Suggestion.nearest(to: id.rawValue, among: projection.timelineSummaries.map(\.id.rawValue)) {
                message += "; did you mean '\(near)'?"
            }
            context.warn(message)
        }
        return (projection, view)
    }

    // MARK: timelines

    func timelines(_ arguments: ParsedArguments) throws -> String {
        let path = try logPath(arguments)
        _ = try arguments.nonNegativeInteger("--upto")
        let contents = try readLog(path)
        _ = try validate(contents, path: path)
        let projection = TimelineProjection(records: try records(contents, arguments), views: [], now: context.clock())
        let summaries = projection.timelineSummaries
        if arguments.flag("--json") {
            return summaries.map { summary in
                JSONText.object([
                    "timeline": JSONText.string(summary.id.rawValue),
                    "name": JSONText.string(summary.name),
                    "events": String(summary.eventCount),
                    "ongoing": String(summary.ongoingCount),
                    "earliest": JSONText.string(summary.earliest?.text),
                    "latest": JSONText.string(summary.latest?.text),
                ]) + "\n"
            }.joined()
        }
        guard !summaries.isEmpty else { return "(no timelines)\n" }
        var table = TextTable(header: ["TIMELINE", "NAME", "EVENTS", "ONGOING", "EARLIEST", "LATEST"])
        for summary in summaries {
            table.rows.append([
                displayText(summary.id.rawValue), displayText(summary.name), String(summary.eventCount),
                String(summary.ongoingCount), summary.earliest?.text ?? "-", summary.latest?.text ?? "-",
            ])
        }
        table.colour = context.usesColour
        if let width = context.tableWidth { table.fit(to: width, cutting: [1, 0]) }
        return table.render()
    }

    // MARK: verify

    func verify(_ arguments: ParsedArguments) throws -> String {
        let path = try logPath(arguments)
        let contents = try readLog(path)
        let state = try validate(contents, path: path)
        let facts = contents.records.reduce(0) { $0 + $1.facts.count }
        return "\(path): ok: \(count(contents.records.count, "record")), \(count(facts, "fact")), "
            + "\(count(state.timelines.count, "timeline")), \(count(state.events.count, "event"))\n"
    }

    // MARK: rebuild

    func rebuild(_ arguments: ParsedArguments) throws -> String {
        let path = try logPath(arguments)
        let now = try now(arguments)
        let progress = Progress(context: context)
        let started = ContinuousClock.now
        progress.show("reading \(path)")
        let contents = try readLog(path)
        progress.show("checking \(count(contents.records.count, "record"))")
        let state = try validate(contents, path: path)
        progress.show("projecting \(count(contents.records.count, "record"))")
        let views = [ViewDefinition()] + state.timelines.keys.sorted { EventID.compareUTF8($0.rawValue, $1.rawValue) < 0 }
            .map { ViewDefinition(filter: .timeline($0)) }
        let projection = TimelineProjection(records: contents.records, views: views, now: now)
        let elapsed = ContinuousClock.now - started
        progress.clear()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let rate = seconds > 0 ? Double(contents.records.count) / seconds : 0
        context.diagnose("\(count(contents.records.count, "record")) in \(String(format: "%.3f", seconds)) s: "
            + "\(String(format: "%.0f", rate)) records/s")
        let rows = projection.rows(ViewDefinition())?.count ?? 0
        return "rebuilt \(path): \(count(contents.records.count, "record")), \(count(rows, "row")), "
            + "\(count(projection.timelineSummaries.count, "timeline")), \(count(views.count, "view"))\n"
    }

    // MARK: export

    func export(_ arguments: ParsedArguments) throws -> String {
        let path = try logPath(arguments)
        let contents = try readLog(path)
        _ = try validate(contents, path: path)
        var bytes: [UInt8] = []
        let encoder = RecordEncoder(layout: .plain)
        var position: Int64 = 0
        for record in contents.records {
            for fact in record.facts {
                position += 1
                encoder.encode(fact, position: position, recordedAt: record.recordedAt, into: &bytes)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// `3 records`, `1 record`.
func count(_ number: Int, _ noun: String) -> String {
    "\(number) \(noun)\(number == 1 ? "" : "s")"
}

/// A progress line on standard error, rewritten in place, shown only on a terminal.
struct Progress {
    let context: ToolContext

    func show(_ step: String) {
        guard context.errorsIsTerminal else { return }
        try? context.errors.write("\r\u{1B}[Ktimeline: \(step)...")
    }

    func clear() {
        guard context.errorsIsTerminal else { return }
        try? context.errors.write("\r\u{1B}[K")
    }
}
