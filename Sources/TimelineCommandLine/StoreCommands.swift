import Dispatch
import Foundation
import Synchronization
import TimelineCore
import TimelineKit
import SystemShim

/// `timeline import FILE`: the facts of another log, appended all or nothing.
enum ImportCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "import",
        summary: "append the facts of another log to the store's log, all or nothing",
        positionals: [PositionalSpec(name: "FILE", help: "the log to import; - for standard input")],
        options: storeOptions,
        details: """
            Checks FILE completely (format and domain rules, on its own and then after \
            the store's records) before writing anything, then appends all of its facts \
            as one atomic batch, recorded now. A torn last line in FILE refuses the import. \
            FILE may be a pipe or a FIFO, read as a stream. Creates the store's log when \
            there is none yet and FILE has facts to import. With --json, prints the records appended, as export does \
            (none when FILE holds nothing to import).
            The import carries a command id, --command-id ID or else one made from its facts \
            (import-, then 16 hexadecimal digits): importing the same facts again appends \
            nothing and says where they are (and, if a revert undid them since, the revert \
            that brings them back). So when an import's outcome is unknown (the \
            connection to a database lost during its commit), importing the same FILE \
            again is safe.
            """,
        examples: ["timeline import --log timeline.jsonl exported.jsonl",
                   "timeline import - --log new.jsonl < exported.jsonl"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.importLog(arguments)
    }
}

/// `timeline repair`: the bad lines of the store's log moved aside.
enum RepairCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "repair",
        summary: "move the bad lines of the store's log to a side file",
        options: [log, OptionSpec(name: "--dry-run", help: "say what would be done, change nothing")],
        details: """
            Makes every log that 'timeline verify' refuses open again. Every line that is \
            not a valid record, or whose fact the domain rules refuse, is appended byte for \
            byte to PATH.rejected; the good records stay, in order, renumbered without gaps. \
            Nothing is deleted. The file keeps its mode and owner (when it cannot, nothing \
            is changed); a symbolic link's target is repaired. Holds the log's lock for the \
            whole run: writers wait, then append to the repaired log.
            """,
        examples: ["timeline repair --log life.jsonl --dry-run", "timeline repair --log life.jsonl"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.repair(arguments)
    }
}

/// The commands that change the store's log: one per domain command, import and repair.
/// Each takes the log's writer lock for as long as it runs.
extension Runner {
    /// A domain command as the command line gives it: ids the user left out are made
    /// once the store's state is known.
    enum Request {
        case createTimeline(TimelineID?, name: String)
        case addEvent(EventID?, timeline: TimelineID, title: String, dates: EventDates)
        case command(Command)
    }

    /// `--offline` on a log that is not a replica: a usage error (exit 2), before anything is written.
    func refuseOffline(_ arguments: ParsedArguments, path: String) throws {
        guard arguments.flag("--offline") else { return }
        throw UsageError(message: "--offline is for a replica, and \(path) is not one (see 'timeline clone')",
                         command: arguments.command.name)
    }

    /// Sends the domain command of `request` (made from `arguments`, which are all checked
    /// by then, before the log is touched).
    func storeCommand(_ arguments: ParsedArguments, request: Request) async throws -> String {
        let commandID = try commandID(arguments)
        let path = try logPath(arguments)
        if TimelineReplica.isReplica(path) { return try await replicaCommand(request, arguments, path: path) }
        try refuseOffline(arguments, path: path)
        // create-timeline makes a missing log, but never opens a directory or a FIFO as one.
        if !DatabaseLogs.isURL(path),
           arguments.command.name != CreateTimelineCommand.spec.name || FileManager.default.fileExists(atPath: path) {
            try requireLog(path)
        }
        let creating = logFileIsMissing(path)
        let store = try openStore(path, command: arguments.command.name)
        let command: Command
        let records: [Record]
        do {
            // Ids the user left out are made as the command is decided, under the log's lock.
            let sent = try await store.sendReporting(commandID: commandID) { ids in
                switch request {
                case .createTimeline(let id, let name): .createTimeline(id ?? ids.timelineID(name: name), name: name)
                case .addEvent(let id, let timeline, let title, let dates):
                    .addEvent(id ?? ids.eventID(), timeline: timeline, title: title, dates: dates)
                case .command(let given): given
                }
            }
            (command, records) = (sent.command, sent.result.records)
            if sent.result.wasDuplicate, let commandID {
                await finish(store)
                if arguments.flag("--json") { return plainLines(records) }
                return "already done: the command id \(displayText(commandID)) is in \(path) (\(positions(records))); "
                    + "nothing appended\n"
            }
            if !records.isEmpty { changes.note() }
        } catch {
            await release(store, creating: creating)
            throw CommandFailure(message(forWriting: error, path: path, command: arguments.command.name,
                                         commandID: commandID, creating: creating))
        }
        await finish(store)
        if arguments.flag("--json") { return plainLines(records) }
        return displayText(confirmation(for: command, recorded: records)) + " (" + positions(records) + ")\n"
    }

    /// A store command's checkpoint is written again once the records replayed after it
    /// reach this many: often enough that a command reads a short tail, rarely enough
    /// that a command seldom pays for writing one.
    static let checkpointRefreshBound = 4_096

    /// Opens the store on the log at `path` from the checkpoint beside it (`PATH.checkpoint`),
    /// reading only the records after it: a command costs what changed since, not the log's
    /// length. The store keeps the list of everything, so that the checkpoint has it.
    /// `now` fixes the store's "now" (`--now`); by default it is the tool's clock. The store
    /// keeps only `views` (what the command prints): a command that prints no rows does
    /// not restore or build any, and ``finish(_:)`` adds the list of everything when it
    /// writes a checkpoint.
    func openStore(_ path: String, command: String, now: Instant? = nil, views: [ViewDefinition] = [])
        throws -> TimelineStore {
        // Only these create a log; any other command refuses a log that is not there.
        let creates = [CreateTimelineCommand.spec.name, ImportCommand.spec.name].contains(command)
        let store: TimelineStore
        let read: @Sendable () -> Instant
        if let now { read = { now } } else { read = context.clock }
        let clock = ContextClock(read: read)
        do {
            // A database log's checkpoint is a local file in the user's cache directory.
            store = try TimelineStore.open(DatabaseLogs.location(path), creating: creates, clock: clock, views: views,
                                           environment: context.environment) { problem in
                if case .cacheDirectoryUnusable = problem { context.warn(DatabaseLogs.noCheckpointWarning(path, problem)) }
            }
        } catch .missing {
            throw CommandFailure(missingLogMessage(path))
        } catch .store(let error) {
            throw CommandFailure(message(for: error, path: path, command: command))
        } catch {
            throw CommandFailure(error.description)
        }
        if let torn = store.openingReport.tornTail {
            context.warn(tornTailWarning(torn, path: path, outcome: store.openingReport.tornTailOutcome))
        }
        return store
    }

    /// What a command says of the torn tail opening the log at `path` found: cut off and
    /// saved, or left as it is and not read, and why.
    func tornTailWarning(_ torn: LogReader.TornTail, path: String, outcome: FileEventLog.TornTailOutcome) -> String {
        let side = FileEventLog.sideFilePath(for: path)
        return switch outcome {
        case .cut: "\(path): \(torn); cut off (saved in \(side))"
        case .leftReadOnly: "\(path): \(torn); not applied (left in the log: it cannot be written here)"
        case .leftUnsaved(let error):
            "\(path): \(torn); not applied (left in the log: \(side) could not take it: \(Self.cause(of: error)); "
                + "the next write tries again)"
        }
    }

    /// A failed system call's cause alone (`No space left on device`), else the whole error.
    static func cause(of error: EventLogError) -> String {
        if case .io(_, _, let code) = error { return String(cString: strerror(code)) }
        return error.description
    }

    /// Releases the store, writing a checkpoint when there was none to start from or the
    /// records after it (read or appended) reach ``checkpointRefreshBound`` (not after
    /// every command). The checkpoint holds the list of everything, which `rows` shows
    /// without building it.
    func finish(_ store: TimelineStore) async {
        var refresh = true
        if let start = store.openingReport.checkpointPosition {
            refresh = await store.position - start >= Self.checkpointRefreshBound
        }
        if refresh {
            await store.keep(ViewDefinition())
            do { try await store.close() } catch {
                // Only the next command's speed depends on it: it reads more of the log.
                context.warn("checkpoint not saved: \(error); the next command reads more of the log")
            }
        } else {
            await store.release()
        }
        context.leaveToExit(store)
    }

    /// Releases the store of a command that failed. A log file that the command created
    /// and left empty (its first append failed, on a full disk) is removed, so that the
    /// next command says that there is no log rather than showing an empty one.
    private func release(_ store: TimelineStore, creating: Bool) async {
        await store.release(removingAnEmptyLog: creating)
    }

    /// The message of a store's failure, naming the log at `path` and the rule.
    ///
    /// An append whose outcome is unknown says so, and how to finish it safely: with the
    /// command id it carried (`commandID`), running it again appends it at most once.
    func message(for error: StoreError, path: String, command: String, commandID: String? = nil) -> String {
        switch error {
        case .rejected(let rejection): "\(command) refused: \(rejection)"
        case .log(.appendMayHaveLanded(let path, let operation, let code)):
            EventLogError.io(path: path, operation: operation, code: code).description
                + ", and undoing the append failed too: the record may be in the log or not (its outcome is unknown). "
                + Self.unknownOutcomeAdvice(command: command, commandID: commandID)
        case .log(.commitOutcomeUnknown(let log, let reason)):
            "\(log): \(reason); the connection was lost while the batch was being committed: it may be in the log "
                + "or not (its outcome is unknown). " + Self.unknownOutcomeAdvice(command: command, commandID: commandID)
        case .log(let error): RepairHint.added(to: error.description, for: path, when: error.isCorruption)
        case .invalidRecord(_, let line?, let reason):
            RepairHint.added(to: "\(path): line \(line): \(reason)", for: path, when: true)
        case .invalidRecord(let position, nil, let reason):
            RepairHint.added(to: "\(path): record \(position): \(reason)", for: path, when: true)
        case .importRefused, .linesDoNotMatchFacts: "\(path): \(error)"
        case .undoRefused(let refusal): "\(command) refused: \(refusal)"
        case .commandIDInUse: "\(command) refused in \(path): \(error)"
        }
    }

    /// ``message(for:path:command:commandID:)`` of a failed append: a failed write is undone,
    /// and that is said, as it is what a person asks next. (When even undoing it failed, the
    /// message says that the record may have landed.) A log the command was to create
    /// (`creating`) is removed again: there was none before.
    func message(forWriting error: StoreError, path: String, command: String, commandID: String? = nil,
                 creating: Bool = false) -> String {
        let text = message(for: error, path: path, command: command, commandID: commandID)
        guard case .log(.io) = error else { return text }
        return text + (creating ? "; no log was created" : "; the log is unchanged")
    }

    /// How to finish a command whose outcome is unknown without appending it twice.
    static func unknownOutcomeAdvice(command: String, commandID: String?) -> String {
        if command == ImportCommand.spec.name, let commandID {
            return "Run the same import again: it carries the command id \(displayText(commandID)), so it appends "
                + "nothing if this one landed"
        }
        if command == RevertCommand.spec.name {
            return "Run the same revert again: it refuses a batch undone already, so it appends nothing if this one "
                + "landed"
        }
        if let commandID {
            return "Run \(command) again with --command-id \(shellWord(displayText(commandID))): it appends nothing if "
                + "this one landed"
        }
        return "Check with `timeline rows` before running \(command) again; a command run with --command-id ID "
            + "is never appended twice"
    }

    /// `--command-id`, checked by the rules of an id.
    func commandID(_ arguments: ParsedArguments) throws(UsageError) -> String? {
        guard let id = arguments.value("--command-id") else { return nil }
        if let problem = IdentifierText.problem(in: id) {
            throw UsageError(message: "invalid value \(IdentifierText.quoted(id)) for --command-id: the id \(problem)",
                             command: arguments.command.name)
        }
        // `undo:N` says that a batch undoes record N: only `timeline revert` writes it.
        if UndoMarker.undonePosition(id) != nil {
            throw UsageError(message: "invalid value \(IdentifierText.quoted(id)) for --command-id: undo:N marks the undo "
                             + "of record N, which only 'timeline revert' makes; choose another id",
                             command: arguments.command.name)
        }
        return id
    }

    /// What a command did, with its name or title as recorded (the decider trims it).
    func confirmation(for command: Command, recorded records: [Record]) -> String {
        let recorded = records.lazy.flatMap(\.facts).compactMap { fact -> String? in
            switch fact {
            case .timelineCreated(_, let text), .timelineRenamed(_, let text), .eventRetitled(_, let text): text
            default: nil
            }
        }.first
        return switch command {
        case .createTimeline(let id, let name): "created timeline \(id) \(quotedDisplayText(recorded ?? name))"
        case .renameTimeline(let id, let name): "renamed timeline \(id) to \(quotedDisplayText(recorded ?? name))"
        case .retitleEvent(let id, let title): "retitled event \(id) \(quotedDisplayText(recorded ?? title))"
        case .removeTimeline(let id): "removed timeline \(id) and its events"
        case .addEvent(let id, let timeline, _, let dates): "added event \(id) to timeline \(timeline): \(describe(dates))"
        case .setDate(let id, let date): "set event \(id) to \(date)"
        case .setRange(let id, let start, let end): "set event \(id) to \(describe(.range(start: start, end: end)))"
        case .closeRange(let id, let end): "closed event \(id) at \(end)"
        case .reopenRange(let id): "reopened event \(id)"
        case .moveEvent(let id, let timeline): "moved event \(id) to timeline \(timeline)"
        case .removeEvent(let id): "removed event \(id)"
        }
    }

    private func describe(_ dates: EventDates) -> String {
        switch dates {
        case .single(let date): date.text
        case .range(let start, nil): "\(start.text) to now (open)"
        case .range(let start, let end?): "\(start.text) to \(end.text)"
        }
    }

    /// `record 4`, `records 4-5`.
    func positions(_ records: [Record]) -> String {
        guard let first = records.first?.position, let last = records.last?.position else { return "no records" }
        return positions(first...last)
    }

    /// `record N` or `records N-M`; `no records` for `nil`.
    func positions(_ range: ClosedRange<Int64>?) -> String {
        guard let range else { return "no records" }
        return range.count == 1 ? "record \(range.lowerBound)" : "records \(range.lowerBound)-\(range.upperBound)"
    }

    /// Records as export writes them: plain JSON Lines with their command id and batch
    /// marker, no checksums.
    func plainLines(_ records: [Record]) -> String {
        var bytes: [UInt8] = []
        let encoder = RecordEncoder(layout: .plain)
        for record in records {
            encoder.encode(record, into: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: import

    func importLog(_ arguments: ParsedArguments) async throws -> String {
        let path = try logPath(arguments)
        let givenCommandID = try commandID(arguments)
        if !DatabaseLogs.isURL(path), FileManager.default.fileExists(atPath: path) { try requireLog(path) }
        // The foreign log is read whole before the store is touched; its facts are checked by
        // the store, in the state after the store's records. Without a log yet, they are
        // checked as they are read (so that a refused import leaves no empty log behind),
        // and folded into the projection the new store takes, with the list of everything
        // its checkpoint holds.
        let input = try openInput(arguments.firstPositional)
        let file = input.name
        let everything = [ViewDefinition()]
        let creating = logFileIsMissing(path)
        var reading: ImportReading
        do {
            reading = try ImportReading.read(input, foldingInto: creating ? everything : nil, now: context.clock())
        } catch .log(let error) {
            throw CommandFailure(error.description + "; nothing imported"
                + (error.isCorruption && input.isRegularFile ? "\n" + RepairHint.line(for: file) : ""))
        } catch .fact(let refusal) {
            throw CommandFailure("\(file): \(refusal); nothing imported")
        }
        let (facts, lines, ending) = (reading.facts, reading.lines, reading)
        if TimelineReplica.isReplica(path), ending.tornTail == nil {
            return try await importOnReplica(facts, from: file, arguments, path: path)
        }
        try refuseOffline(arguments, path: path)
        if let torn = ending.tornTail {
            throw CommandFailure("\(file): \(torn); nothing imported" + (input.isRegularFile ? "\n" + RepairHint.line(for: file) : ""))
        }
        guard !facts.isEmpty else {
            // With --json the output holds the records imported, one per line: none.
            guard arguments.flag("--json") else { return "\(file): nothing to import\n" }
            context.diagnose("\(file): nothing to import")
            return ""
        }

        var folded = reading.folded.take()
        // The same facts imported again append nothing: after an import whose outcome was
        // unknown, importing the same FILE again is safe.
        let commandID = givenCommandID ?? ImportDigest.commandID(of: facts)
        let store = try openStore(path, command: arguments.command.name, views: folded == nil ? [] : everything)
        let appended: AppendResult
        do {
            appended = try await store.importFacts(facts, lines: lines, commandID: commandID,
                                                   foldedOnAnEmptyLog: folded.take())
            if !appended.wasDuplicate { changes.note() }
        } catch .importRefused(_, let line?, let type, let rejection) {
            await release(store, creating: creating)
            throw CommandFailure("\(file): line \(line): \(type.rawValue): \(rejection) in \(path); nothing imported")
        } catch {
            await release(store, creating: creating)
            // An append is all or nothing, unless even undoing it failed: those messages, and
            // the import's own refusals, say what landed.
            var text = message(for: error, path: path, command: arguments.command.name, commandID: commandID)
            switch error {
            case .log(let failure) where failure.isOutcomeUnknown: break
            case .importRefused, .linesDoNotMatchFacts: break
            default: text += "; nothing imported"
            }
            throw CommandFailure(text)
        }
        // Imported, then undone: the same command id appends nothing again; say how to bring it back.
        var undoneBy: Int64?
        if appended.wasDuplicate, let range = appended.positions, let later = try? store.log.records(after: range.upperBound) {
            undoneBy = Compensation.undoInForce(of: range, amongLater: later)
        }
        await finish(store)
        // The process ends next: freeing a million facts one by one would only cost time.
        context.leaveToExit(facts)
        context.leaveToExit(appended)
        let bringBack = undoneBy.map { "to bring it back: timeline revert \($0) --log \(shellWord(path))" }
        if arguments.flag("--json") {
            if let undoneBy, let bringBack { context.diagnose("already imported, and undone by record \(undoneBy); \(bringBack)") }
            return plainLines(appended.records)
        }
        if appended.wasDuplicate {
            let undone = undoneBy.map { ", undone by record \($0)" } ?? ""
            return "already imported: the command id \(displayText(commandID)) is in \(path) "
                + "(\(positions(appended.positions))\(undone)); nothing appended\n"
                + (bringBack.map { $0 + "\n" } ?? "")
        }
        return "imported \(count(facts.count, "fact")) from \(file) into \(path) (\(positions(appended.positions)))\n"
    }

    // MARK: repair

    func repair(_ arguments: ParsedArguments) async throws -> String {
        let path = try logPath(arguments)
        if TimelineReplica.isReplica(path) { return try await repairReplica(arguments) }
        if DatabaseLogs.isURL(path) { throw CommandFailure(DatabaseLogs.repairDoesNotApply(path)) }
        try requireLog(path)
        let dryRun = arguments.flag("--dry-run")
        let report: FileEventLog.RepairReport
        do {
            report = try FileEventLog.repair(path: path, dryRun: dryRun)
        } catch {
            throw CommandFailure(error.description)
        }
        guard report.rewritten else {
            return "\(path): nothing to repair: \(count(report.kept, "record")) kept\n"
        }
        if !dryRun { changes.note() }
        let would = dryRun ? "would " : ""
        var text: String
        if let side = report.sideFile {
            text = "\(path): \(dryRun ? "would move" : "moved") \(count(report.moved.count, "line")) to \(side), "
                + "\(dryRun ? "would keep" : "kept") \(count(report.kept, "record"))\n"
        } else {
            text = "\(path): \(would)renumber \(count(report.kept, "record")) without gaps; no line moved\n"
        }
        for line in report.moved { text += "  \(displayText(line.description))\n" }
        if dryRun { text += "(dry run: nothing changed)\n" }
        return text
    }
}

/// The tool's clock (`ToolContext.clock`) as a store's clock.
struct ContextClock: TimelineClock {
    let read: @Sendable () -> Instant

    func now() -> Instant { read() }
}
