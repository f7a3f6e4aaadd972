import Foundation
import TimelineCore
import TimelineKit
import TimelineProjections

/// `timeline replay FILE`: the rows of a log file.
enum ReplayCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "replay",
        summary: "print the date rows of a log file, replayed from scratch",
        positionals: [PositionalSpec(name: "FILE", help: "a log: JSON Lines, one record per line; - for standard input")],
        options: ViewOptions.specs,
        details: """
            Reads every record of FILE, checks each against the format and the domain \
            rules, and prints the rows of the chosen view. An invalid log prints nothing \
            on standard output, names the first bad line on standard error, and exits \
            with status 1. An incomplete last line (a torn write) is named in a warning \
            and not applied. FILE may be a pipe or a FIFO (cat L | timeline replay -, \
            timeline replay <(...)): it is read as a stream to its end.
            """ + "\n\n" + ViewOptions.details + "\n\n" + dateDetails,
        examples: [
            "timeline replay life.jsonl --now 2026-11-29",
            "timeline replay life.jsonl --timeline work --order desc --ongoing last --json",
            "timeline replay life.jsonl --sections decade --upto 40",
            "timeline replay - --json < life.jsonl",
        ])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.replay(arguments, path: arguments.firstPositional, input: true)
    }
}

/// `timeline rows`: the rows of the store's log.
enum RowsCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "rows",
        summary: "print the date rows of the store's log (the options and output of replay)",
        options: [log] + ViewOptions.specs,
        details: "Waits while another process holds the log's writer lock (an import or a rebuild holds it "
            + "for its run), then prints what is committed; 'timeline replay' of the file reads it without "
            + "the lock.\n\n"
            + ViewOptions.details,
        examples: ["timeline rows --log life.jsonl --timeline home --order desc"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.replay(arguments, path: try runner.logPath(arguments))
    }
}

/// `timeline timelines`: the timelines and their counts.
enum TimelinesCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "timelines",
        summary: "list the timelines with their event counts and date spans",
        options: [log, OptionSpec(name: "--upto", value: "SEQ",
                                  help: "apply only the atomic batches that end at or before position SEQ"), json],
        details: """
            Columns: timeline id, name, events, ongoing (open ranges), earliest and latest \
            date. With --json, each timeline is
              {"timeline":"work","name":"Work","events":9,"ongoing":1,"earliest":"2008-10","latest":"2023-01-15"}
            with "earliest" and "latest" null for a timeline without dated rows.
            """,
        examples: ["timeline timelines --log life.jsonl --json"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.timelines(arguments)
    }
}

/// `timeline verify`: checks the store's log.
enum VerifyCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "verify",
        summary: "check the store's log: checksums, positions, domain rules",
        options: [log],
        details: """
            Reads the log without taking its lock (it works while a store writes) and \
            checks every line. Exits with status 1 naming the first bad line; see \
            'timeline repair'. An incomplete last line (a write in progress, or cut short) \
            is named in a warning. On a replica, its mirror is checked as a log and its own \
            files (device id, queue, pending submissions) with it.
            """,
        examples: ["timeline verify --log life.jsonl"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) throws -> String {
        try runner.verify(arguments)
    }
}

/// `timeline export`: the store's log as plain JSON Lines.
enum ExportCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "export",
        summary: "print the store's log as plain JSON Lines",
        options: [log],
        details: """
            One fact per record, renumbered from 1, with "seq", "type", "data", "at", "v", \
            the command id "cmd" and the batch marker "more" (records left in the batch), \
            and a shared log's "sub" (the nonce of a device's submission) and "undo" (the \
            batch a device's undo undoes), \
            but no checksums: a log that 'timeline replay' and 'timeline import' read, \
            with the same batches and command ids. \
            The log is checked and written a chunk at a time (an atomic batch, such as \
            an import's, is one chunk): a bad line stops the export there (exit status \
            1), after the records before its chunk, and the message says how many were \
            written.
            """,
        examples: ["timeline export --log life.jsonl > copy.jsonl"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) throws -> String {
        try runner.export(arguments)
    }
}

/// The commands that read a log without changing it: replay, rows, timelines, verify,
/// export. None of them takes the writer's lock.
extension Runner {
    /// A log read whole and folded into a projection.
    struct FoldedLog {
        var projection: TimelineProjection
        /// The name messages use for the log.
        var name: String
        /// How many records and facts the log holds.
        var records: Int
        var facts: Int
    }

    /// Reads the log at `path` to its end without its lock, checks every record and folds
    /// the records up to `upTo` into a projection of `views`, in one pass, a chunk at a
    /// time; `each` sees every chunk's contents once it is checked. With `input`, `path` is
    /// a file argument (`-`: standard input, a pipe, a FIFO); otherwise it is the store's
    /// log (a file, or a database URL). A torn last line is named in a warning; a bad line
    /// or a refused fact is a failure naming its line.
    func foldLog(_ path: String, input: Bool, views: [ViewDefinition], now: Instant, upTo: Int64? = nil,
                 each: (LogReader.Contents) throws -> Void = { _ in }) throws -> FoldedLog {
        var fold = TimelineProjection.Loader(views: views, now: now, validating: true, upTo: upTo)
        if !input, DatabaseLogs.isURL(path) {
            let contents = try DatabaseLogs.read(DatabaseLogs.name(for: path), ifMissing: missingLogMessage(path))
            do { try fold.add(contents) } catch { throw CommandFailure("\(path): \(error)") }
            try each(contents)
            if let torn = contents.tornTail { context.warn("\(path): \(torn); not applied") }
            return FoldedLog(projection: fold.finish(), name: path, records: fold.recordCount, facts: fold.factCount)
        }
        if !input { try requireLog(path) }
        let log = try openInput(path)
        let ending = try readWhole(log) { contents in
            do { try fold.add(contents) } catch {
                throw CommandFailure("\(log.name): \(error)" + (log.isRegularFile ? "\n" + RepairHint.line(for: log.name) : ""))
            }
            try each(contents)
        }
        if let torn = ending.tornTail { context.warn("\(log.name): \(torn); not applied") }
        return FoldedLog(projection: fold.finish(), name: log.name, records: fold.recordCount, facts: fold.factCount)
    }

    /// "Now": `--now`, else the clock.
    func now(_ arguments: ParsedArguments) throws -> Instant {
        try arguments.date("--now")?.instant ?? context.clock()
    }

    // MARK: replay, rows

    /// `replay FILE` (`input`: the path is a file argument, read as a stream) or `rows`
    /// (the store's log).
    func replay(_ arguments: ParsedArguments, path: String, input: Bool = false) async throws -> String {
        let options = ViewOptions(arguments)
        let view = try options.view()
        let rows: RowList, sections: SectionList
        var pending: Set<EventID>?
        if !input, TimelineReplica.isReplica(path), try options.upTo() == nil {
            // A replica shows its mirror with its pending submissions on top, and says
            // which rows rest on them.
            let replica = try openReplica(arguments)
            let now = try now(arguments)
            let shown: (projection: TimelineProjection, pending: Set<EventID>)
            do { shown = try await replica.shownProjection(views: [view], now: now) } catch {
                throw CommandFailure(error.description)
            }
            warnIfMissing(view, among: shown.projection.timelineSummaries, path: path)
            (rows, sections) = (shown.projection.rows(view) ?? RowList(), shown.projection.sections(view))
            pending = shown.pending
        } else if !input, TimelineReplica.isReplica(path) {
            // --upto reads the mirror: no row rests on a pending submission.
            let (projection, _) = try projectedView(arguments, path: path, input: input)
            (rows, sections) = (projection.rows(view) ?? RowList(), projection.sections(view))
            pending = []
        } else if !input, try options.upTo() == nil {
            let snapshot = try await readingStore(arguments, path: path, view: view) { await $0.snapshot(view) }
            (rows, sections) = (snapshot.rows, snapshot.sections)
        } else {
            let (projection, _) = try projectedView(arguments, path: path, input: input)
            (rows, sections) = (projection.rows(view) ?? RowList(), projection.sections(view))
        }
        let printer = RowPrinter(rows: rows, sections: Array(sections), pending: pending)
        return options.json ? printer.json()
            : printer.table(width: context.tableWidth, colour: context.usesColour)
    }

    /// `body`'s reading of the store at `path` as it stands now (`rows`, `render --log`):
    /// opened from its checkpoint and the log after it, keeping only `view`, at `--now`;
    /// warns about an unknown `--timeline` and refreshes the checkpoint when it is due.
    func readingStore<Result: Sendable>(_ arguments: ParsedArguments, path: String, view: ViewDefinition,
                                        _ body: (TimelineStore) async -> Result) async throws -> Result {
        if !DatabaseLogs.isURL(path) { try requireLog(path) }
        let store = try openStore(path, command: arguments.command.name, now: try now(arguments), views: [view])
        let result = await body(store)
        warnIfMissing(view, among: await store.timelineSummaries, path: path)
        await finish(store)
        return result
    }

    /// The view that the view options choose, and the projection of the log at `path`
    /// (checked, up to `--upto`, at `--now`) that maintains it; warns about an unknown
    /// `--timeline`. What replay, rows and render show. With `input`, `path` is a file
    /// argument (`-` for standard input), read as a stream.
    func projectedView(_ arguments: ParsedArguments, path: String,
                       input: Bool = false) throws -> (TimelineProjection, ViewDefinition) {
        let options = ViewOptions(arguments)
        let view = try options.view()
        let now = try now(arguments)
        let upTo = try options.upTo()
        let folded = try foldLog(path, input: input, views: [view], now: now, upTo: upTo)
        warnIfMissing(view, among: folded.projection.timelineSummaries, path: folded.name)
        return (folded.projection, view)
    }

    /// Warns when the view shows one timeline and there is no such timeline.
    func warnIfMissing(_ view: ViewDefinition, among summaries: [TimelineSummary], path: String) {
        guard case .timeline(let id) = view.filter, !summaries.contains(where: { $0.id == id }) else { return }
        var message = "\(path): there is no timeline \"\(id)\""
        if let near = Suggestion.nearest(to: id.rawValue, among: summaries.map(\.id.rawValue)) {
            message += "; did you mean '\(near)'?"
        }
        context.warn(message)
    }

    // MARK: timelines

    func timelines(_ arguments: ParsedArguments) async throws -> String {
        let path = try logPath(arguments)
        let summaries: [TimelineSummary]
        if let upTo = try arguments.nonNegativeInteger("--upto") {
            summaries = try foldLog(path, input: false, views: [], now: context.clock(), upTo: upTo)
                .projection.timelineSummaries
        } else if TimelineReplica.isReplica(path) {
            // What the replica shows: the mirror with its pending submissions on top.
            let replica = try openReplica(arguments)
            do { summaries = try await replica.shownProjection(views: [], now: context.clock()).projection.timelineSummaries }
            catch { throw CommandFailure(error.description) }
        } else {
            if !DatabaseLogs.isURL(path) { try requireLog(path) }
            let store = try openStore(path, command: arguments.command.name)
            summaries = await store.timelineSummaries
            await finish(store)
        }
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
            table.appendRow([
                summary.id.rawValue, summary.name, String(summary.eventCount),
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
        // A replica's mirror is verified as a log, and its own files with it, read only.
        var replica: (shared: String, queue: ReplicaQueue)?
        if !DatabaseLogs.isURL(path), TimelineReplica.isReplica(path) {
            do { replica = try FileReplicaStorage.inspect(path: path) } catch {
                throw CommandFailure(replicaMessage(error, local: path))
            }
        }
        // A submission whose outcome the mirror holds is no longer pending (a sync killed
        // before saving its queue leaves it listed; the next opening learns it).
        var undecided = Set(replica?.queue.pending.map(\.id.description) ?? [])
        let folded = try foldLog(path, input: false, views: [], now: context.clock()) { contents in
            guard !undecided.isEmpty else { return }
            for record in contents.records { if let id = record.commandID { undecided.remove(id) } }
        }
        var ofReplica = ""
        if let replica {
            ofReplica = "; a replica of \(replica.shared), \(undecided.count) pending"
            if case .stopped(let conflict) = replica.queue.state {
                ofReplica += ", stopped: another copy of this device sent \(conflict)"
            }
        }
        return "\(path): ok: \(count(folded.records, "record")), \(count(folded.facts, "fact")), "
            + "\(count(folded.projection.timelineSummaries.count, "timeline")), "
            + "\(count(folded.projection.eventCount, "event"))\(ofReplica)\n"
    }

    // MARK: export

    /// The records `export` encodes and writes at once: a few megabytes of text.
    static let exportSlice = 8_192

    func export(_ arguments: ParsedArguments) throws -> String {
        let path = try logPath(arguments)
        let encoder = RecordEncoder(layout: .plain)
        var position: Int64 = 0
        var bytes: [UInt8] = []
        var writeFailed = false
        // Each chunk is written once its records are checked: the export holds one chunk,
        // not the log. A bad line stops it there, after the records before it.
        do {
            _ = try foldLog(path, input: false, views: [], now: context.clock()) { contents in
                // A chunk holds whole batches, and a batch may be the whole log (an import):
                // it is written a slice at a time, each line's `more` read from its record.
                var start = contents.records.startIndex
                while start < contents.records.endIndex {
                    let end = min(start + Self.exportSlice, contents.records.endIndex)
                    bytes.removeAll(keepingCapacity: true)
                    encoder.encodeRenumbered(contents.records[start..<end], after: &position, into: &bytes)
                    do { try writeAsItGoes(String(decoding: bytes, as: UTF8.self)) } catch {
                        writeFailed = true
                        throw error
                    }
                    start = end
                }
            }
        } catch let failure as CommandFailure where position > 0 && !writeFailed {
            throw CommandFailure(failure.message + "\n(the export stops there: its first \(count(Int(position), "record")) "
                                 + "were written)")
        }
        return ""
    }
}

/// `3 records`, `1 record`.
func count(_ number: Int, _ noun: String) -> String {
    "\(number) \(noun)\(number == 1 ? "" : "s")"
}
