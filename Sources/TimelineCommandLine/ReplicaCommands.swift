import Foundation
import Synchronization
import TimelineCore
import TimelineKit
import TimelineProjections

// The commands of replicas (section 10 of the design): clone, sync, status, notices, and
// the write commands sent on a replica.

/// `timeline clone SHARED --log LOCAL`: a new replica.
enum CloneCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "clone",
        summary: "make a replica of a shared log (or a shared folder) on this device",
        positionals: [PositionalSpec(name: "SHARED",
                                     help: "the shared log: a file log's path or a postgresql:// URL; or a shared folder (a directory)")],
        options: [OptionSpec(name: "--log", value: "LOCAL", isRequired: true,
                             help: "where the replica's mirror goes (a new path)")],
        details: """
            Makes a new device id, mirrors SHARED's records byte for byte into LOCAL, and \
            keeps beside it LOCAL.replica (the device id and where SHARED is) and \
            LOCAL.queue (the submissions not yet decided, and the notices). Refuses when \
            LOCAL exists. Never creates a shared log: a missing one is an error. Every \
            write command on LOCAL is then a submission: saved at once, sent when the \
            shared log can be reached ('timeline sync').
            When SHARED is a directory, it is a shared folder (folder mode: no server; a \
            sync service copies it between devices, and one device runs 'timeline \
            sequence' on it): the replica mirrors what the folder publishes, and its \
            submissions travel as files in the folder until the sequencer decides them.
            """,
        examples: ["timeline clone /shared/life.jsonl --log life.jsonl",
                   "timeline clone ~/Dropbox/Timeline --log life.jsonl",
                   "timeline clone 'postgresql://me@host/db?log=life' --log life.jsonl"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.clone(arguments)
    }
}

/// `timeline sync`: a replica's submissions sent, and others' records mirrored.
enum SyncCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "sync",
        summary: "send a replica's pending submissions and mirror what others committed",
        options: [OptionSpec(name: "--log", value: "LOCAL", help: "the replica (default: $TIMELINE_LOG, else ./timeline.jsonl)"),
                  json,
                  OptionSpec(name: "--watch", help: "keep syncing as either side changes, until interrupted")],
        details: """
            One sync, under the shared log's lock: mirrors what others committed, has the \
            shared log decide this device's pending submissions in order, mirrors their \
            outcomes, and turns rejections into notices ('timeline notices'). On a replica \
            of a shared folder: mirrors what the sequencer published, writes the pending \
            submissions into the folder, and learns the outcomes the sequencer published \
            (they come with a later sync). Prints the outcomes it learned ("pushed": \
            accepted, rejected), what it pulled, and what is still pending; with --json
              {"pushed":N,"accepted":A,"rejected":R,"pulled":M,"position":P,"pending":K}
            Exit status 0 when synced, rejections or not; 1 when the shared log (or the \
            folder) cannot be reached (nothing is lost: what is pending stays pending).
            With --watch, syncs again whenever the shared log changes (file notifications; \
            LISTEN for PostgreSQL) or a command on this replica queues a submission, and \
            while the shared log cannot be reached tries again after 1 s, doubling up to a \
            minute; prints a line (with --json an object) for each sync that moved \
            something and each new reason it could not, until interrupted (Ctrl-C: exit \
            status 0).
            """,
        examples: ["timeline sync --log life.jsonl", "timeline sync --json", "timeline sync --watch --log life.jsonl"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.sync(arguments)
    }
}

/// `timeline status`: a replica's state.
enum StatusCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "status",
        summary: "show a replica's device, position, pending submissions and notices",
        options: [OptionSpec(name: "--log", value: "LOCAL", help: "the replica (default: $TIMELINE_LOG, else ./timeline.jsonl)"),
                  json],
        details: """
            Reads the replica and asks the shared log how far it is (and whether it still \
            continues the mirror). The text lists each pending submission as the commands \
            that send it. With --json
              {"device":"…","shared":"…","position":P,"pending":K,"notices":N,"reachable":true,"head":H}
            with "head" null when the shared log cannot be reached. On a replica of a \
            shared folder, "head" is the last position the folder publishes, and \
            "sequencerSeen" the time the sequencer recorded the last record mirrored \
            (null before any); with \
            submissions pending, the text says "waiting for the sequencer (last seen …)".
            """,
        examples: ["timeline status --log life.jsonl --json"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.status(arguments)
    }
}

/// `timeline notices`: a replica's rejected submissions.
enum NoticesCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "notices",
        summary: "list (or dismiss) this device's submissions that the shared log rejected",
        options: [OptionSpec(name: "--log", value: "LOCAL", help: "the replica (default: $TIMELINE_LOG, else ./timeline.jsonl)"),
                  OptionSpec(name: "--json", help: "one JSON object per notice, per line"),
                  OptionSpec(name: "--dismiss", value: "ID", help: "dismiss the notice of this command id (D:n)"),
                  OptionSpec(name: "--dismiss-all", help: "dismiss every notice")],
        details: """
            A notice is a submission of this device that the shared log rejected: its \
            command id, the commands as sent, the rule and its message, and the position \
            of the rejection, each command on a line of its own as the command that sends \
            it again, after "sent:". Notices stay until dismissed. \
            With --json, each is
              {"command":"D:n","rule":"R","message":"…","position":P,"commands":[{"command":"retitleEvent","data":{…}},…]}
            """,
        examples: ["timeline notices --log life.jsonl", "timeline notices --dismiss-all"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.notices(arguments)
    }
}

extension Runner {
    /// The replica at `--log` (or `$TIMELINE_LOG`), or a failure saying that the log is not one.
    func openReplica(_ arguments: ParsedArguments) throws -> TimelineReplica {
        let path = try logPath(arguments)
        guard TimelineReplica.isReplica(path) else {
            if !DatabaseLogs.isURL(path), !FileManager.default.fileExists(atPath: path) {
                throw CommandFailure("there is no replica at \(path)\nmake one with: timeline clone SHARED --log "
                    + shellWord(path))
            }
            if !DatabaseLogs.isURL(path) { try requireLog(path) }
            throw CommandFailure("\(path) is not a replica: \(arguments.command.name) works on a replica, made by "
                + "clone\nto make a replica of this log: timeline clone \(shellWord(path)) --log LOCAL")
        }
        let replica: TimelineReplica
        do { replica = try TimelineReplica(path: path, clock: ContextClock(read: context.clock)) } catch {
            throw CommandFailure(replicaMessage(error, local: path))
        }
        warnIfMirroredNothing(path, command: arguments.command.name)
        return replica
    }

    /// Warns that the replica at `path` has mirrored nothing (a clone killed before its
    /// first sync leaves one): what it shows is empty, not the shared log's rows. The sync
    /// that finishes it, status and repair say it their own way.
    func warnIfMirroredNothing(_ path: String, command: String) {
        guard ![SyncCommand.spec.name, StatusCommand.spec.name, RepairCommand.spec.name].contains(command),
              (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0 else { return }
        context.warn("the replica \(path) has mirrored nothing of its shared log yet (a clone cut short?): what it "
            + "shows is not the shared log's; to finish it: timeline sync --log \(shellWord(path))")
    }

    /// Opens the shared log a replica names (``TimelineReplica/openSharedLog(_:)``), with
    /// the URL as given on this command line when it was (its password included).
    func openShared(_ shared: String) throws(ReplicaError) -> any EventLog {
        let opened = try TimelineReplica.openSharedLogReporting(DatabaseLogs.location(shared))
        // Opening a log file cuts a torn tail off, for a sync or a status as for a store:
        // said as a store's opening says it.
        if let torn = opened.tornTail { context.warn(tornTailWarning(torn.tail, path: shared, outcome: torn.outcome)) }
        return opened.log
    }

    // MARK: clone

    func clone(_ arguments: ParsedArguments) async throws -> String {
        let given = arguments.firstPositional
        guard let local = arguments.value("--log"), !local.isEmpty else {
            throw UsageError(message: "missing --log LOCAL", command: arguments.command.name)
        }
        guard !DatabaseLogs.isURL(local) else {
            throw UsageError(message: "--log \(DatabaseLogs.name(for: local)) is a URL: a replica is a local file "
                + "(its mirror), so --log names a new file on this device", command: arguments.command.name)
        }
        guard !FileManager.default.fileExists(atPath: local) else {
            // A clone cut short (killed) leaves a replica that has mirrored nothing: a sync finishes it.
            if TimelineReplica.isReplica(local),
               (try? FileManager.default.attributesOfItem(atPath: local)[.size] as? Int) == 0 {
                throw CommandFailure("\(local) exists already: a replica that has mirrored nothing yet (a clone cut "
                    + "short?); to finish it: timeline sync --log \(shellWord(local)); or clone onto a new path")
            }
            throw CommandFailure("\(local) exists already: a replica is made on a new path")
        }
        let shared = DatabaseLogs.isURL(given) ? DatabaseLogs.name(for: given)
            : URL(fileURLWithPath: given).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        if !DatabaseLogs.isURL(given), FileManager.default.fileExists(atPath: shared, isDirectory: &isDirectory),
           isDirectory.boolValue {
            let replica: TimelineReplica
            do {
                replica = try await TimelineReplica.clone(folder: shared, to: local, clock: ContextClock(read: context.clock))
            } catch { throw CommandFailure(cloneMessage(error)) }
            changes.note()
            if await replica.position == 0 {
                context.warn("the folder \(displayText(shared)) holds no published records yet (its segments may be "
                    + "still on their way to this device): a sync fetches them once they arrive: timeline sync --log "
                    + shellWord(local))
            }
            return "cloned the shared folder \(displayText(shared)) into \(displayText(local)): device \(await replica.device), "
                + "\(count(Int(await replica.position), "record"))\n"
        }
        if !DatabaseLogs.isURL(given), TimelineReplica.isReplica(shared) {
            throw CommandFailure("\(given) is a replica's mirror, not a shared log: clone the log it mirrors "
                + "('timeline status --log \(shellWord(given))' names it)")
        }
        if !DatabaseLogs.isURL(given), !FileManager.default.fileExists(atPath: shared) {
            throw CommandFailure("there is no shared log at \(given): clone never creates one")
        }
        let replica: TimelineReplica
        do {
            let log = try openShared(shared)
            replica = try await TimelineReplica.clone(log, shared: shared, to: local,
                                                      clock: ContextClock(read: context.clock))
        } catch { throw CommandFailure(cloneMessage(error)) }
        changes.note()
        if DatabaseLogs.isURL(given), DatabaseLogs.redacted(given).secrets.isEmpty == false {
            // The replica keeps the URL without its password (never written to a file).
            context.warn("the replica keeps \(shared) without its password: for sync to connect, give the password "
                         + "in PGPASSWORD or ~/.pgpass")
        }
        return "cloned \(displayText(shared)) into \(displayText(local)): device \(await replica.device), \(count(Int(await replica.position), "record"))\n"
    }

    /// A failed clone's message: nothing was made, so nothing is pending to sync.
    func cloneMessage(_ error: any Error) -> String {
        switch error as? ReplicaError {
        case .unreachable(let shared, let reason)?:
            "the shared log \(shared) cannot be reached: \(reason); nothing was cloned: run timeline clone again "
                + "once it can be reached"
        case .noSharedLog(let shared)?: "there is no shared log at \(shared): clone never creates one"
        default: replicaMessage(error)
        }
    }

    // MARK: sync

    func sync(_ arguments: ParsedArguments) async throws -> String {
        let replica = try openReplica(arguments)
        if arguments.flag("--watch") { return try await syncContinuously(replica, json: arguments.flag("--json")) }
        let report: SyncReport
        let waiting = warnWhileWaiting("waiting for the shared log \(replica.shared), which another process holds "
            + "(nothing is lost if you stop this)")
        defer { waiting.cancel() }
        do { report = try await replica.sync(connecting: { () throws(ReplicaError) in try openShared(replica.shared) }) } catch {
            throw CommandFailure(replicaMessage(error, local: replica.path, shared: replica.shared))
        }
        if report.pulled > 0 { changes.note() }
        for notice in report.notices { context.warn(noticeLine(notice)) }
        return Self.describe(report, shared: replica.shared, json: arguments.flag("--json"))
    }

    /// Warns `message` once a call to the shared log has waited 2 s (its lock is held by
    /// another process, a connection hangs), until the returned task is cancelled: a
    /// command never waits without saying why.
    func warnWhileWaiting(_ message: String) -> Task<Void, any Error> {
        let context = context
        return Task {
            try await Task.sleep(for: .seconds(2))
            context.warn(message)
        }
    }

    /// A sync's report: one line, or the contract's JSON object.
    static func describe(_ report: SyncReport, shared: String, json: Bool) -> String {
        if json {
            return "{\"pushed\":\(report.pushed),\"accepted\":\(report.accepted),\"rejected\":\(report.rejected),"
                + "\"pulled\":\(report.pulled),\"position\":\(report.position),\"pending\":\(report.pending)}\n"
        }
        return "synced with \(shared): pushed \(report.pushed) (\(report.accepted) accepted, "
            + "\(report.rejected) rejected), pulled \(count(report.pulled, "record")), at position \(report.position), "
            + "\(report.pending) pending\n"
    }

    /// `sync --watch`: syncs as either side changes until SIGINT (exit 0), printing each
    /// sync that moved something and each new reason it could not.
    private func syncContinuously(_ replica: TimelineReplica, json: Bool) async throws -> String {
        let interrupt = exitingOnInterrupt()
        let runner = self, shared = replica.shared, reporter = RunReporter(self)
        await replica.syncContinuously(connect: replica.openSharedLog) { result in
            switch result {
            case .success(let report):
                for notice in report.notices { runner.context.warn(runner.noticeLine(notice)) }
                let moved = report.pushed > 0 || report.pulled > 0
                reporter.succeeded(printing: moved ? Self.describe(report, shared: shared, json: json) : nil)
            case .failure(let error):
                reporter.failed(runner.replicaMessage(error, local: replica.path, shared: shared))
            }
        }
        interrupt.cancel()
        return ""
    }

    /// One line for a notice: the command id, the rule and the message.
    func noticeLine(_ notice: Notice) -> String {
        "\(notice.id) rejected by the shared log at position \(notice.position) (\(notice.rule)): \(notice.message)"
    }

    // MARK: status

    func status(_ arguments: ParsedArguments) async throws -> String {
        let replica = try openReplica(arguments)
        let waiting = warnWhileWaiting("waiting for the shared log \(replica.shared), which another process holds, "
            + "to read its head")
        let status = await replica.status(connecting: { () throws(ReplicaError) in try openShared(replica.shared) })
        waiting.cancel()
        let head = status.head, folder = status.isFolder
        if arguments.flag("--json") {
            return "{\"device\":\(JSONText.string(status.device.rawValue)),"
                + "\"shared\":\(JSONText.string(status.shared)),\"position\":\(status.position),"
                + "\"pending\":\(status.pending),\"notices\":\(status.notices),"
                + "\"reachable\":\(head != nil),\"head\":\(head.map(String.init) ?? "null")"
                + (folder ? ",\"sequencerSeen\":" + (status.lastRecordedAt.map { JSONText.string($0.text) } ?? "null") : "")
                + "}\n"
        }
        var text = "device \(status.device)\nshared \(status.shared)\(folder ? " (a shared folder)" : "")\n"
            + "position \(status.position)" + (head.map { " of \($0)" } ?? "") + "\npending \(status.pending)\n"
        // What each pending submission holds, as the commands that send it (on a stopped
        // replica, what to send again from a new one).
        for submission in await replica.pending {
            let undo = submission.condition?.undoes.map { " (the undo of record \($0))" } ?? ""
            for command in submission.commands {
                text += "  \(submission.id): " + Self.commandLine(command, log: replica.path) + undo + "\n"
            }
        }
        text += "notices \(status.notices)\n"
        if folder, status.pending > 0, status.conflict == nil {
            text += "waiting for the sequencer (last seen \(status.lastRecordedAt?.text ?? "never")): 'timeline sequence' "
                + "runs on the device that keeps the shared log\n"
        }
        switch status.sharedProblem {
        case let problem? where problem.isUnreachable: text += "unreachable: \(problem)\n"
        case let problem?: text += "cannot sync: " + replicaMessage(problem) + "\n"
        case nil: break
        }
        if let problem = status.mirrorProblem { text += "mirror damaged: \(problem); the next sync fetches it again\n" }
        if let conflict = status.conflict { text += "stopped: \(ReplicaError.stopped(conflict: conflict))\n" }
        return text
    }

    // MARK: notices

    func notices(_ arguments: ParsedArguments) async throws -> String {
        let replica = try openReplica(arguments)
        if arguments.value("--dismiss") != nil, arguments.flag("--dismiss-all") {
            throw UsageError(message: "give either --dismiss ID or --dismiss-all, not both", command: arguments.command.name)
        }
        if let given = arguments.value("--dismiss") {
            guard let id = SubmissionID(commandID: given) else {
                throw UsageError(message: "invalid value '\(given)' for --dismiss: expected a command id D:n",
                                 command: arguments.command.name)
            }
            do {
                guard try await replica.dismissNotice(id) else { throw CommandFailure("there is no notice \(given)") }
            } catch let error as ReplicaError { throw CommandFailure(replicaMessage(error, local: replica.path)) }
            return "dismissed \(given)\n"
        }
        if arguments.flag("--dismiss-all") {
            do { return "dismissed \(count(try await replica.dismissAllNotices(), "notice"))\n" } catch {
                throw CommandFailure(replicaMessage(error, local: replica.path))
            }
        }
        let notices = await replica.notices
        if arguments.flag("--json") { return notices.map { SyncCoding.json($0) + "\n" }.joined() }
        guard !notices.isEmpty else { return "(no notices)\n" }
        // Each with what was sent, as the commands that send it again: a person knows
        // which change it was, and how to make it once it can pass.
        return notices.map { notice in
            displayText(noticeLine(notice)) + "\n" + notice.commands.map {
                "  sent: " + displayText(Self.commandLine($0, log: replica.path)) + "\n"
            }.joined()
        }.joined()
    }

    // MARK: Write commands on a replica

    /// A write command on a replica: checked against what the replica shows, saved as a
    /// submission, then (without `--offline`) one sync. Exit 1 when the shared log rejects
    /// this submission; 0 when it is saved but not synced, saying why.
    func replicaCommand(_ request: Request, _ arguments: ParsedArguments, path: String) async throws -> String {
        let replica: TimelineReplica
        do { replica = try TimelineReplica(path: path, clock: ContextClock(read: context.clock)) } catch {
            throw CommandFailure(replicaMessage(error, local: path))
        }
        warnIfMirroredNothing(path, command: arguments.command.name)
        // Ids the user left out are made as the submission is saved, under the replica's lock.
        return try await submit(on: replica, arguments, making: { ids in
            switch request {
            case .createTimeline(let id, let name): [.createTimeline(id ?? ids.timelineID(name: name), name: name)]
            case .addEvent(let id, let timeline, let title, let dates):
                [.addEvent(id ?? ids.eventID(), timeline: timeline, title: title, dates: dates)]
            case .command(let given): [given]
            }
        }, describing: { commands in displayText(commands.map { confirmation(for: $0, recorded: []) }.joined(separator: "; ")) })
    }

    /// Saves `commands` as one submission on `replica` (checked against what it shows),
    /// then, without `--offline`, syncs once; `done` says what was done.
    func submit(_ commands: [Command], on replica: TimelineReplica, _ arguments: ParsedArguments,
                condition: UndoCondition? = nil, importID: String? = nil, describing done: String) async throws -> String {
        try await submit(on: replica, arguments, condition: condition, importID: importID, making: { _ in commands },
                         describing: { _ in done })
    }

    /// ``submit(_:on:_:condition:describing:)`` of the commands `make` builds with the ids
    /// it makes on the replica; `describe` says what was done from the commands sent.
    /// `importID`: an import's id made from its facts, the submission's own id on this
    /// replica unless `--command-id` gives one, so that importing the same facts again
    /// queues nothing.
    func submit(on replica: TimelineReplica, _ arguments: ParsedArguments, condition: UndoCondition? = nil,
                importID: String? = nil,
                making make: @Sendable (NewIdentifiers) -> [Command], describing describe: ([Command]) -> String)
        async throws -> String {
        let name = arguments.command.name
        let given = arguments.value("--command-id")
        let localID = given ?? importID
        let id: SubmissionID
        var done = ""
        do {
            let sent = try await replica.send(condition: condition, localID: localID, making: make)
            (id, done) = (sent.submission.id, describe(sent.commands))
        } catch {
            switch error {
            case .rejected(let rejection): throw CommandFailure("\(name) refused: \(rejection)")
            case .changedSince(let change): throw CommandFailure("\(name) refused: \(change)")
            case .undoRefused(let refusal): throw CommandFailure("\(name) refused: \(refusal)")
            case .replica(let failure): throw CommandFailure(failure.description + "; nothing was queued")
            case .localIDInUse(_, let sent):
                throw CommandFailure("\(name) refused: " + (given.map { "--command-id \(displayText($0))" } ?? "the import's id")
                    + " was given to another command on this replica, sent as \(sent): a command id names one command: "
                    + "give this one another id; nothing was queued")
            case .alreadySent(let sent):
                // A resend with the app's own id: the first send's submission, reported as a send would be.
                let undoneBy = (try? await replica.mirroredBatch(commandID: sent.description))??.undoneBy
                context.warn((given.map { "--command-id \($0) was sent" } ?? "these facts were imported")
                    + " on this replica already, as \(sent): nothing was queued again"
                    + (undoneBy.map { "; it was undone since, by record \($0); to bring it back: timeline revert \($0) "
                        + "--log \(shellWord(replica.path))" } ?? ""))
                (id, done) = (sent, "\(name) saved as \(sent) before")
            }
        }
        changes.note()
        // What is printed: the sentence, or with --json one object.
        let json = arguments.flag("--json")
        func saved(pending: Bool, position: Int64, _ state: String) -> String {
            guard json else { return done + " (\(state))\n" }
            return JSONText.object(["command": JSONText.string(id.description), "pending": String(pending),
                                    "position": String(position)]) + "\n"
        }
        // A resend of a submission decided already needs no sync: it is said as it stands.
        let decided = await !replica.pending.contains { $0.id == id }
        if arguments.flag("--offline") && !decided {
            // A stopped replica (another copy of this device was found) never syncs again.
            if let conflict = await replica.conflict {
                context.warn("saved on this replica as \(id), but it cannot sync: \(ReplicaError.stopped(conflict: conflict))")
            } else {
                context.warn("saved on this replica as \(id), not synced (--offline); to send it: timeline sync --log "
                    + shellWord(replica.path))
            }
            return saved(pending: true, position: await replica.position, "pending")
        }
        var report: SyncReport?
        if !decided {
            // A sync that waits (another process holds the shared log's lock) says, after a
            // moment, that the change is saved: stopping it then must not make a person send
            // it again, as a second send is a second change.
            let waiting = warnWhileWaiting("saved on this replica as \(id); waiting for the shared log \(replica.shared), "
                + "which another process holds: if you stop this, the change stays pending and the next sync sends it "
                + "(do not run the command again; see: timeline status --log \(shellWord(replica.path)))")
            defer { waiting.cancel() }
            do { report = try await replica.sync() } catch {
                if case .sentNotRecorded(_, let sent, _, _) = error, sent.contains(id) {
                    // The shared log has it: sending it again would record it twice.
                    context.warn(replicaMessage(error, local: replica.path))
                    return saved(pending: true, position: await replica.position, "sent; its outcome is not recorded here yet")
                }
                context.warn("saved on this replica as \(id), not synced: " + replicaMessage(error, local: replica.path, shared: replica.shared))
                return saved(pending: true, position: await replica.position, "pending")
            }
        }
        let notices = report?.notices ?? []
        for notice in notices where notice.id != id { context.warn(noticeLine(notice)) }
        let earlier = await replica.notices.first { $0.id == id }
        if let notice = notices.first(where: { $0.id == id }) ?? earlier {
            throw CommandFailure("\(name) rejected by the shared log (\(notice.rule)): \(notice.message); "
                + "kept as notice \(notice.id) ('timeline notices')")
        }
        let mirrored = await replica.position
        let position = report?.position ?? mirrored
        if replica.isFolder, await replica.pending.contains(where: { $0.id == id }) {
            // Folder mode: in the folder now; the sequencer decides it.
            return saved(pending: true, position: position, "pending: in the shared folder, waiting for the sequencer")
        }
        return saved(pending: false, position: position, "synced: position \(position)")
    }

    /// `import` on a replica: the file's facts, as the commands that record them, are one submission.
    func importOnReplica(_ facts: [Fact], from file: String, _ arguments: ParsedArguments, path: String) async throws
        -> String {
        let replica = try openReplica(arguments)
        let commands = facts.compactMap(Command.init(recording:))
        guard !commands.isEmpty else { return "\(file): nothing to import\n" }
        let digest = ImportDigest.commandID(of: facts)
        // What the shared log holds now decides whether it was imported there (and undone):
        // an out-of-date mirror would send facts that were imported and reverted again.
        if !arguments.flag("--offline") { _ = try? await replica.sync() }
        // Imported into the shared log itself (a plain import there): said as on a plain log.
        if arguments.value("--command-id") == nil, let found = try? await replica.mirroredBatch(commandID: digest) {
            let undone = found.undoneBy.map { ", undone by record \($0)" } ?? ""
            return "already imported: the command id \(displayText(digest)) is in the shared log "
                + "(\(positions(found.positions))\(undone)); nothing queued\n"
                + (found.undoneBy.map { "to bring it back: timeline revert \($0) --log \(shellWord(path))\n" } ?? "")
        }
        return try await submit(commands, on: replica, arguments, importID: digest,
                                describing: "imported \(count(commands.count, "fact")) from \(file) as one submission")
    }

    /// `repair` on a replica: the mirror is fetched again from the shared log.
    func repairReplica(_ arguments: ParsedArguments) async throws -> String {
        let replica = try openReplica(arguments)
        if arguments.flag("--dry-run") {
            return "would fetch the mirror \(replica.path) again from \(replica.shared) (pending submissions kept)\n"
        }
        do {
            let records = replica.isFolder ? try await replica.fetchMirrorAgainFromFolder()
                : try await replica.fetchMirrorAgain(from: try replica.openSharedLog())
            changes.note()
            return "fetched the mirror \(replica.path) again from \(replica.shared): \(count(records, "record"))\n"
        } catch { throw CommandFailure(replicaMessage(error, local: replica.path, shared: replica.shared)) }
    }
}

extension Runner {
    /// `watch` on a replica: what it shows (the mirror with its pending submissions on
    /// top), first as a reset, then as a reset whenever it changes, each row saying whether
    /// it is pending; until SIGINT (exit 0).
    func watchReplica(_ arguments: ParsedArguments, path: String) async throws -> String {
        let replica = try openReplica(arguments)
        let options = ViewOptions(arguments)
        let view = try options.view()
        let fixedNow = try options.now()
        let clock = context.clock
        let json = options.json
        let interrupt = exitingOnInterrupt()
        defer { interrupt.cancel() }
        var from: Int64?
        for await shown in await replica.shownChanges(view, now: { fixedNow ?? clock() }) {
            let printer = RowPrinter(rows: shown.rows, sections: Array(shown.sections), pending: shown.pending)
            if json {
                let rows = printer.json().split(separator: "\n").joined(separator: ",")
                try writeAsItGoes("{\"type\":\"reset\",\"from\":\(from ?? shown.position),\"to\":\(shown.position),"
                    + "\"rows\":[\(rows)]}\n")
            } else {
                try writeAsItGoes("── rows at \(shown.position) (* pending) ──\n"
                    + printer.table(width: context.tableWidth, colour: context.usesColour))
            }
            from = shown.position
        }
        return ""
    }
}

extension Runner {
    /// `revert` on a replica: the commands that undo the batch, worked out from the mirror,
    /// sent as one submission that carries its condition (nothing touched the batch's events
    /// and timelines after the mirror's position), which the shared log checks
    /// (`changedSince`). The mirror is only read.
    func revertOnReplica(_ position: Int64, _ arguments: ParsedArguments, path: String) async throws -> String {
        let name = arguments.command.name
        let replica = try openReplica(arguments)
        let plan: (compensation: Compensation, condition: UndoCondition)
        do { plan = try await replica.revertPlan(batchContaining: position) } catch {
            switch error {
            case .replica(let failure): throw CommandFailure(replicaMessage(failure, local: path, shared: replica.shared))
            case .undoRefused(.noSuchRecord):
                // The mirror may be behind the shared log.
                throw CommandFailure("\(name) refused: \(error) (this replica's copy of the shared log); to fetch "
                    + "newer records: timeline sync --log \(shellWord(path))")
            default: throw CommandFailure("\(name) refused: \(error)")
            }
        }
        let compensation = plan.compensation
        guard !compensation.commands.isEmpty else {
            let nothing = "nothing to revert: \(positions(compensation.positions)) changed nothing"
            guard arguments.flag("--json") else { return nothing + "\n" }
            context.diagnose(nothing)
            return ""
        }
        if arguments.flag("--dry-run") {
            return dryRun(compensation, json: arguments.flag("--json"), id: "one submission of this replica", log: path)
        }
        return try await submit(compensation.commands, on: replica, arguments, condition: plan.condition,
                                describing: "reverted \(positions(compensation.positions))")
    }
}
