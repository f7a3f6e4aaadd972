import Dispatch
import Foundation
import Synchronization
import TimelineCore
import TimelineKit
import SystemShim

/// `timeline watch`: its spec and its run.
enum WatchCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "watch",
        summary: "follow a view of the store's log live, while any process writes it",
        options: [log] + ViewOptions.specs.compactMap { option in
            switch option.name {
            case "--upto": nil
            case "--json": OptionSpec(name: "--json", help: "one JSON object per change, per line, as it happens")
            default: option
            }
        },
        details: """
            Prints the view's rows, then each change as it happens, until interrupted \
            (Ctrl-C: exit status 0) or until the reader of a pipe goes away (| head -1 \
            ends it at once, as SIGPIPE would, with no change to wait for); Ctrl-\\ ends \
            it as SIGQUIT does. Other processes' appends arrive through the \
            operating system's file notifications, not by polling; for a PostgreSQL log, \
            through LISTEN/NOTIFY, on a connection that connects again after a loss and \
            catches up. The view follows what the path names now: a log replaced, \
            overwritten in place or cut and written again, a symbolic link re-pointed, a \
            directory removed and made again, each ends in a reset. Without --now, "now" \
            follows the clock, so an ongoing row that passes a date moves. With --json, \
            one object per line, each written as it happens. The first is a reset of the \
            rows at the log's position, "from" and "to" both that position. A later \
            reset goes from the position before it to the one after (a change too big to \
            animate), or again has both at the new position (the log replaced by repair):
              {"type":"reset","from":12,"to":12,"rows":[ROW,...]}
              {"type":"change","from":12,"to":13,"removals":[i,...],"insertions":[{"index":i,"row":ROW},...],\
            "moves":[[a,b],...],"updates":[{"index":i,"row":ROW},...]}
            where ROW is an object as in 'replay --json', removals and move sources are \
            old indices, insertions, move destinations and updates new ones, and a change \
            from the clock has "from" equal to "to". A missing log is an error; a log \
            that cannot be read on (a line Timeline did not write, a file cut shorter or \
            gone, a database server that cannot be reached) holds the view where it is, \
            with a warning saying why, until the log can be read on again, which is \
            said too.
            """ + "\n\n" + ViewOptions.details(upto: false),
        examples: ["timeline watch --log life.jsonl", "timeline watch --log life.jsonl --timeline work --json"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.watch(arguments)
    }
}

/// `timeline watch`: a view followed live while any process writes the log.
extension Runner {
    /// Prints the view's rows, then each change set as it comes, until SIGINT (exit 0).
    /// Other processes' appends arrive through the store's log notifications; without
    /// `--now`, "now" follows the system clock, so ongoing rows that pass a date move.
    func watch(_ arguments: ParsedArguments) async throws -> String {
        let path = try logPath(arguments)
        if TimelineReplica.isReplica(path) { return try await watchReplica(arguments, path: path) }
        let options = ViewOptions(arguments)
        let view = try options.view()
        let fixedNow = try options.now()
        let json = options.json
        let store: TimelineStore
        if DatabaseLogs.isURL(path) {
            // A PostgreSQL log is followed through LISTEN/NOTIFY, on a connection of the
            // follower's own that connects again after a loss and catches up.
            store = try openStore(path, command: WatchCommand.spec.name, now: fixedNow, views: [view])
        } else {
            store = try openFileStore(path, view: view, fixedNow: fixedNow)
        }
        try await follow(store, view: view, path: path, fixedNow: fixedNow, json: json)
        return ""
    }

    /// The store of the log file at `path`, for watch.
    private func openFileStore(_ path: String, view: ViewDefinition, fixedNow: Instant?) throws -> TimelineStore {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("no log at \(path): nothing to watch; start one with "
                + "'timeline create-timeline --log \(shellWord(path)) --timeline ID --name NAME'")
        }
        try requireLog(path)
        let clock: any TimelineClock = fixedNow.map { FixedClock(instant: $0) } ?? SystemClock()
        do { return try TimelineStore(path: path, clock: clock, views: [view]) } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Prints the view's rows, then each change set, until SIGINT or the output fails.
    private func follow(_ store: TimelineStore, view: ViewDefinition, path: String, fixedNow: Instant?,
                        json: Bool) async throws {
        // As rows says it; the watch goes on, since another process may create it.
        warnIfMissing(view, among: await store.timelineSummaries, path: path)
        // SIGINT ends the watch with status 0: the output written so far is complete
        // lines, each written with one call.
        // The view holds when the log cannot be read on (a bad line appended, the
        // file cut shorter): say why, once for each reason, and go on watching.
        let lastWarning = Mutex<String?>(nil)
        let context = context
        await store.onFollowingFailure({ [self] error in
            let text = message(for: error, path: path, command: "watch")
            guard lastWarning.withLock({ last in defer { last = text }; return last != text }) else { return }
            context.warn("the view waits until the log can be read on: \(text)")
        }, whenReadingAgain: {
            lastWarning.withLock { $0 = nil }
            context.diagnose("the log can be read again: the view follows it")
        })
        // Ctrl-\ (SIGQUIT), or SIGABRT or SIGSEGV sent by another process, ends the watch
        // as the signal's default does: the runtime's crash handler would print a crash
        // report for what is no crash, and leave the watch running.
        for quitting in [SIGQUIT, SIGABRT, SIGSEGV] { signal(quitting, SIG_DFL) }
        let interrupt = exitingOnInterrupt()
        defer { interrupt.cancel() }
        if let output = context.output as? FileDescriptorOutput { Self.endWhenReaderLeaves(output.descriptor) }
        if fixedNow == nil { await store.startClock(every: .seconds(1)) }
        // On a terminal, tables and lines fit its width and show colour, as rows does.
        let (width, colour) = (context.tableWidth, context.usesColour)
        for await change in await store.changes(view) {
            do {
                try writeAsItGoes(json ? WatchText.json(change, sectioned: view.sections != .none)
                                  : WatchText.readable(change, width: width, colour: colour))
            } catch {
                await store.release()
                throw error
            }
        }
    }

    /// Ends the process as a failed write to `descriptor` would (as by SIGPIPE) once the
    /// reader of the pipe or socket it writes to has gone away (`| head -1`), without
    /// waiting for a change to write, which may not come for hours: `poll` tells a pipe's
    /// writer that its reader is gone. Other outputs (a file, a terminal) are left alone.
    private static func endWhenReaderLeaves(_ descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0,
              [S_IFIFO, S_IFSOCK].contains(info.st_mode & S_IFMT) else { return }
        Thread.detachNewThread {
            // No events asked for: `poll` still reports an error or hang-up, and only those.
            var watched = pollfd(fd: descriptor, events: 0, revents: 0)
            while poll(&watched, 1, -1) < 0 && errno == EINTR {}
            if watched.revents & Int16(POLLERR | POLLHUP) != 0 { TimelineTool.endAsByClosedPipe() }
        }
    }
}

/// A clock that always reads the same instant (`--now`).
private struct FixedClock: TimelineClock {
    let instant: Instant
    func now() -> Instant { instant }
}

/// How `timeline watch` writes a change set.
enum WatchText {
    /// One JSON object on one line: a reset with its rows, or a change with from/to,
    /// removals (old indices), insertions and updates (new indices, with their rows) and moves.
    static func json(_ change: ChangeSet, sectioned: Bool) -> String {
        let rows = change.rows
        func row(_ index: Int) -> String {
            RowPrinter.jsonObject(rows[index], section: sectioned ? sectionTitle(change, row: index) : nil)
        }
        if change.isReset {
            return "{\"type\":\"reset\",\"from\":\(change.from),\"to\":\(change.to),\"rows\":["
                + rows.indices.map(row).joined(separator: ",") + "]}\n"
        }
        let updated = indices(of: change.updates, in: change)
        return "{\"type\":\"change\",\"from\":\(change.from),\"to\":\(change.to)"
            + ",\"removals\":[" + change.removals.map(String.init).joined(separator: ",") + "]"
            + ",\"insertions\":[" + change.insertions.map { "{\"index\":\($0),\"row\":\(row($0))}" }.joined(separator: ",") + "]"
            + ",\"moves\":[" + change.moves.map { "[\($0.from),\($0.to)]" }.joined(separator: ",") + "]"
            + ",\"updates\":[" + updated.map { "{\"index\":\($0),\"row\":\(row($0))}" }.joined(separator: ",") + "]}\n"
    }

    /// Lines a person reads: the table on a reset, one line per change otherwise; fitted
    /// to `width` (cut with "…") when given, the table's kinds in colour with `colour`, as
    /// `rows` prints them on a terminal.
    static func readable(_ change: ChangeSet, width: Int? = nil, colour: Bool = false) -> String {
        let rows = change.rows
        func fitted(_ line: String) -> String {
            guard let width else { return line }
            return DisplayWidth.truncate(line, to: width)
        }
        if change.isReset {
            return fitted("── rows at \(change.to) ──") + "\n"
                + RowPrinter(rows: rows, sections: Array(change.sections)).table(width: width, colour: colour)
        }
        func describe(_ index: Int) -> String {
            let row = rows[index]
            return "\(row.kind.rawValue) \(displayText(row.date?.text ?? "now")) \(displayText(row.title)) "
                + "[\(displayText(row.event.rawValue))]"
        }
        var lines = [change.from == change.to ? "── now moved ──" : "── \(change.from) → \(change.to) ──"]
        for index in change.removals { lines.append("- removed row \(index)") }
        for move in change.moves { lines.append("~ row \(move.from) → \(move.to): \(describe(move.to))") }
        for index in change.insertions { lines.append("+ \(index): \(describe(index))") }
        for index in indices(of: change.updates, in: change) { lines.append("* \(index): \(describe(index))") }
        return lines.map { fitted($0) + "\n" }.joined()
    }

    /// The new indices of the rows with `ids`.
    private static func indices(of ids: [RowID], in change: ChangeSet) -> [Int] {
        guard !ids.isEmpty else { return [] }
        let wanted = Set(ids)
        return change.rows.indices.filter { wanted.contains(change.rows[$0].id) }
    }

    private static func sectionTitle(_ change: ChangeSet, row: Int) -> String? {
        change.sections.sectionIndex(ofRow: row).map { change.sections[$0].title }
    }
}
