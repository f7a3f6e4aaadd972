import Foundation
import TimelineCore
import TimelineKit

/// `timeline revert SEQ`: a batch undone by a new batch.
enum RevertCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "revert",
        summary: "undo the atomic batch that holds record SEQ, with a new batch",
        positionals: [PositionalSpec(name: "SEQ", help: "the position of any record of the batch to undo")],
        options: [log, OptionSpec(name: "--dry-run", help: "print the commands it would send, append nothing"),
                  OptionSpec(name: "--json", help: "print the records appended (with --dry-run, the commands), as JSON Lines"),
                  offline],
        details: """
            Appends the batch's compensating batch: the commands that bring every event \
            and timeline the batch touched back to their state just before it (a removed \
            event comes back with its dates and title, a removed timeline with its events, \
            a moved event moves back, a closed range reopens, an added event goes). Its \
            command id is undo:N, N the batch's first position, so reverting twice appends \
            once: the second revert is refused (exit 1), naming the undo; reverting that \
            undo redoes. Refused, naming the record, when a later \
            record touched the same events or timelines (revert that one first), and with \
            the rule's message when the rules refuse it (the timeline it needs is gone). \
            A batch that changed nothing (a move to the event's own timeline) has nothing \
            to revert: it says so and exits with status 0. Takes the log's writer lock \
            for the append, as the other store commands do. On a replica it is one \
            submission carrying its condition (nothing touched these events and timelines \
            after the mirror's position), which the shared log checks: it is rejected \
            (changedSince) when another device changed them first.
            """,
        examples: ["timeline revert 42 --log life.jsonl --dry-run", "timeline revert 42 --log life.jsonl"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.revert(arguments)
    }
}

/// `timeline history --event ID`: every record that touched an event.
enum HistoryCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "history",
        summary: "list every record that touched an event, oldest first",
        options: [subject("--event", "ID", "the event"), log,
                  OptionSpec(name: "--json", help: "one JSON object per record, per line")],
        details: """
            A record touches the event when it names it, or removes the timeline the event \
            is in. An id removed and added again shows both lives. Columns: seq, when it \
            was recorded, type, command id (- for none; an undo sent from a replica adds \
            "(undo:N)", N the first record of the batch it undid), data. With --json, each record is
              {"seq":12,"type":"eventRetitled","at":"2026-11-29T12:00:00Z","cmd":null,"data":{"event":"e1","title":"Born"}}
            with "at" null for a record without a time, and "undo":N after "cmd" for an undo \
            sent from a replica. An event no record touched is an \
            error (exit status 1). With a checkpoint, only the lines before it that can touch \
            the event are read, and the records after it.
            """,
        examples: ["timeline history --event e1 --log life.jsonl", "timeline history --event e1 --json"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) throws -> String {
        try runner.history(arguments)
    }
}

/// `revert` and `history`: the log's memory, for people. The rules (what a batch touched,
/// what undoes it, when that is refused) are the library's; this is their presentation.
extension Runner {
    // MARK: revert

    func revert(_ arguments: ParsedArguments) async throws -> String {
        let name = arguments.command.name
        let text = arguments.firstPositional
        // Digits only: `Int64` would take a sign (`+3`).
        let digits = !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard digits, let position = Int64(text), position >= 1 else {
            let why = digits && text.contains(where: { $0 != "0" }) ? "it is larger than any position a log can have"
                : "expected the position of a record, 1 or more"
            throw UsageError(message: "invalid SEQ '\(text)': \(why)", command: name)
        }
        let path = try logPath(arguments)
        if TimelineReplica.isReplica(path) { return try await revertOnReplica(position, arguments, path: path) }
        try refuseOffline(arguments, path: path)
        if !DatabaseLogs.isURL(path) { try requireLog(path) }
        let store = try openStore(path, command: name)
        let compensation: Compensation
        do { compensation = try await store.compensation(forBatchContaining: position) } catch {
            await store.release()
            throw CommandFailure(message(for: error, path: path, command: name))
        }
        let batch = positions(compensation.positions)
        guard !compensation.commands.isEmpty else {
            await store.release()
            let nothing = "nothing to revert: \(batch) changed nothing"
            guard arguments.flag("--json") else { return nothing + "\n" }
            context.diagnose(nothing)
            return ""
        }
        if arguments.flag("--dry-run") {
            await store.release()
            return dryRun(compensation, json: arguments.flag("--json"), id: "cmd \(compensation.commandID)", log: path)
        }
        let records: [Record]
        do { records = try await store.revert(compensation) } catch {
            await store.release()
            throw CommandFailure(message(forWriting: error, path: path, command: name))
        }
        if !records.isEmpty { changes.note() }
        await finish(store)
        if arguments.flag("--json") { return plainLines(records) }
        return "reverted \(batch) (\(positions(records)), cmd \(compensation.commandID))\n"
    }

    /// What `revert --dry-run` prints: the commands it would send.
    func dryRun(_ compensation: Compensation, json: Bool, id: String, log: String) -> String {
        if json { return compensation.commands.map { Self.commandJSON($0) + "\n" }.joined() }
        return "would revert \(positions(compensation.positions)) with \(count(compensation.commands.count, "command")) "
            + "(\(id)):\n" + compensation.commands.map { "  " + Self.commandLine($0, log: log) + "\n" }.joined()
            + "(dry run: nothing appended)\n"
    }

    /// A command as the tool's own command line would give it, on the log at `log`, each
    /// word quoted for a shell (``shellWord(_:)``), so that it pastes back as it is.
    static func commandLine(_ command: Command, log: String) -> String {
        let words = commandWords(command)
        return (["timeline", words.name] + (words.arguments + ["--log", log]).map(shellWord)).joined(separator: " ")
    }

    /// A command as one JSON object: `{"command":"move-event","arguments":["--event","e1",…]}`.
    static func commandJSON(_ command: Command) -> String {
        let words = commandWords(command)
        return #"{"command":"# + JSONText.string(words.name) + #","arguments":["#
            + words.arguments.map(JSONText.string).joined(separator: ",") + "]}"
    }

    /// The subcommand and the arguments that send `command`.
    private static func commandWords(_ command: Command) -> (name: String, arguments: [String]) {
        func dates(_ dates: EventDates) -> [String] {
            switch dates {
            case .single(let date): ["--date", date.text]
            case .range(let start, let end): ["--start", start.text] + (end.map { ["--end", $0.text] } ?? [])
            }
        }
        return switch command {
        case .createTimeline(let id, let name): ("create-timeline", ["--timeline", id.rawValue, "--name", name])
        case .renameTimeline(let id, let name): ("rename-timeline", ["--timeline", id.rawValue, "--name", name])
        case .removeTimeline(let id): ("remove-timeline", ["--timeline", id.rawValue])
        case .addEvent(let id, let timeline, let title, let eventDates):
            ("add-event", ["--event", id.rawValue, "--timeline", timeline.rawValue, "--title", title] + dates(eventDates))
        case .retitleEvent(let id, let title): ("retitle-event", ["--event", id.rawValue, "--title", title])
        case .setDate(let id, let date): ("set-date", ["--event", id.rawValue, "--date", date.text])
        case .setRange(let id, let start, let end): ("set-range", ["--event", id.rawValue] + dates(.range(start: start, end: end)))
        case .closeRange(let id, let end): ("close-range", ["--event", id.rawValue, "--end", end.text])
        case .reopenRange(let id): ("reopen-range", ["--event", id.rawValue])
        case .moveEvent(let id, let timeline): ("move-event", ["--event", id.rawValue, "--timeline", timeline.rawValue])
        case .removeEvent(let id): ("remove-event", ["--event", id.rawValue])
        }
    }

    // MARK: history

    func history(_ arguments: ParsedArguments) throws -> String {
        let given = try arguments.required("--event")
        // No record can touch an event whose id breaks the rules: a mistake in the arguments.
        if let problem = IdentifierText.problem(in: given) {
            throw UsageError(message: "invalid value \(IdentifierText.quoted(given)) for --event: the id \(problem)",
                             command: arguments.command.name)
        }
        let event = EventID(given)
        let path = try logPath(arguments)
        let records: [Record]
        let isFile = !DatabaseLogs.isURL(path)
        if isFile { try requireLog(path) }
        if isFile, let found = try? TimelineStore.eventHistory(of: event, logPath: path) {
            records = found.records  // the checkpoint vouches for the log up to it: only lines that can touch the event are read
            if let torn = found.tornTail { context.warn("\(path): \(torn); not applied") }
        } else {
            var history = EventHistory(event: event)
            _ = try foldLog(path, input: false, views: [], now: context.clock()) { contents in
                history.add(contentsOf: contents.records)
            }
            records = history.records
        }
        // On a replica, its pending submissions that name the event are in no record yet:
        // said, never left out silently (read only: nothing of the replica is changed).
        var pending = 0
        if isFile, TimelineReplica.isReplica(path) {
            do {
                pending = try FileReplicaStorage.inspect(path: path).queue.pending
                    .filter { $0.commands.contains { $0.mentions(event) } }.count
            } catch {
                throw CommandFailure(replicaMessage(error, local: path))
            }
        }
        let named = "\(count(pending, "pending submission")) on this replica \(pending == 1 ? "names" : "name") event "
            + quotedDisplayText(event.rawValue)
        let syncLine = "to send \(pending == 1 ? "it" : "them"): timeline sync --log \(shellWord(path))"
        guard !records.isEmpty else {
            if pending > 0 {
                throw CommandFailure("\(path): \(named), which has no record until it is synced\n\(syncLine)")
            }
            // A replica's mirror may not hold the shared log's newer records yet.
            let newer = isFile && TimelineReplica.isReplica(path)
                ? " (this replica's copy of the shared log)\nto fetch newer records: timeline sync --log \(shellWord(path))"
                : ""
            throw CommandFailure("\(path): no record touched event \(quotedDisplayText(event.rawValue))\(newer)\n"
                                 + "to list the events: timeline rows --log \(shellWord(path))")
        }
        if pending > 0 { context.warn("\(path): \(named): not in this history until synced; \(syncLine)") }
        let json = arguments.flag("--json")
        var text = ""
        for record in records {
            for fact in record.facts {
                let data = Self.dataJSON(fact, position: record.position)
                if json {
                    text += #"{"seq":\#(record.position),"type":"\#(fact.type.rawValue)","at":"#
                        + (record.recordedAt.map { JSONText.string($0.text) } ?? "null")
                        + #","cmd":"# + (record.commandID.map(JSONText.string) ?? "null")
                        + (record.undoes.map { #","undo":\#($0)"# } ?? "")
                        + #","data":"# + data + "}\n"
                } else {
                    // A replica's undo is marked by its `undo`, its command id being the device's.
                    let command = (record.commandID ?? "-") + (record.undoes.map { " (undo:\($0))" } ?? "")
                    text += displayText([String(record.position), record.recordedAt?.text ?? "-", fact.type.rawValue,
                                         command, data].joined(separator: "  ")) + "\n"
                }
            }
        }
        return text
    }

    /// The `data` object of `fact`, exactly as the log writes it.
    static func dataJSON(_ fact: Fact, position: Int64) -> String {
        var bytes: [UInt8] = []
        RecordEncoder(layout: .plain).encode(fact, position: position, into: &bytes)
        let line = String(decoding: bytes, as: UTF8.self)
        // The plain line is {"seq":N,"type":"T","data":{…},"v":1}: strings inside `data` are
        // escaped, so `,"v":` after it cannot occur within it.
        guard let start = line.range(of: #""data":"#)?.upperBound, let end = line.range(of: #","v":"#, options: .backwards)?.lowerBound
        else { return "{}" }
        return String(line[start..<end])
    }
}
