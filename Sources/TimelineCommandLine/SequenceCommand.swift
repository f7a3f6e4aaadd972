import Foundation
import TimelineCore
import TimelineKit

/// `timeline sequence --log SHARED --folder DIR [--watch]`: the sequencer of a shared
/// folder (folder mode, section 10 of the design).
enum SequenceCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "sequence",
        summary: "keep a shared folder's log: decide what devices left there, publish the log",
        options: [OptionSpec(name: "--log", value: "SHARED", isRequired: true,
                             help: "the shared log this device keeps: a file log's path or a postgresql:// URL"),
                  OptionSpec(name: "--folder", value: "DIR", isRequired: true,
                             help: "the shared folder (synced by iCloud Drive, Dropbox, Syncthing, …)"),
                  json,
                  OptionSpec(name: "--watch", help: "keep sequencing as devices write into DIR, until interrupted")],
        details: """
            Folder mode: devices sync through DIR with no server. One device, the sequencer \
            (one that is often on), keeps SHARED: each run publishes SHARED's new records \
            into DIR as sealed segments, decides the submissions devices wrote into DIR \
            (each device's in number order), and publishes their outcomes. Files that are \
            not whole yet, conflicted copies and other names are skipped and read again \
            later. Devices make replicas with 'timeline clone DIR --log LOCAL'. Prints what \
            it decided and published; with --json
              {"decided":N,"accepted":A,"rejected":R,"published":M,"skipped":K,"position":P}
            Exit status 0 whenever DIR could be read and written; 1 when it could not, or \
            SHARED cannot be used (a missing SHARED is never created: start it with \
            'timeline create-timeline' or 'timeline import').
            With --watch, runs again whenever a device's files or SHARED change (file \
            notifications), printing a line for each run that did something, until \
            interrupted (Ctrl-C: exit status 0).
            """,
        examples: ["timeline sequence --log life.jsonl --folder ~/Dropbox/Timeline",
                   "timeline sequence --log life.jsonl --folder ~/Dropbox/Timeline --watch"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.sequence(arguments)
    }
}

extension Runner {
    func sequence(_ arguments: ParsedArguments) async throws -> String {
        let name = arguments.command.name
        guard let given = arguments.value("--log"), !given.isEmpty else {
            throw UsageError(message: "missing --log SHARED", command: name)
        }
        guard let folderGiven = arguments.value("--folder"), !folderGiven.isEmpty else {
            throw UsageError(message: "missing --folder DIR", command: name)
        }
        let folder = URL(fileURLWithPath: folderGiven).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        let folderExists = FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory)
        if folderExists, !isDirectory.boolValue {
            throw CommandFailure("\(folderGiven) is not a directory: give a shared folder")
        }
        let logName = DatabaseLogs.isURL(given) ? DatabaseLogs.name(for: given) : given
        if !DatabaseLogs.isURL(given) {
            guard FileManager.default.fileExists(atPath: given) else {
                throw CommandFailure("there is no log at \(given): the sequencer never creates its shared log; start it "
                    + "with 'timeline create-timeline --name NAME --log \(shellWord(given))', or give your log's path")
            }
            guard !TimelineReplica.isReplica(given) else {
                throw CommandFailure("\(given) is a replica's mirror: the sequencer keeps the shared log itself")
            }
        }
        let log: any EventLog
        do { log = try openShared(DatabaseLogs.isURL(given) ? DatabaseLogs.name(for: given) : given) } catch .noSharedLog {
            throw CommandFailure("there is no log at \(logName): the sequencer never creates its shared log"
                + (DatabaseLogs.isURL(given) ? "; give the URL of your log" : ""))
        } catch {
            throw CommandFailure(error.description)
        }
        // Made once the log is known (a refused run leaves no folder behind, in a synced
        // folder above all); only the folder itself: a missing parent is a mistyped path.
        if !folderExists {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false) } catch {
                log.close()
                throw CommandFailure("cannot make the shared folder \(folderGiven): \(error.localizedDescription)")
            }
        }
        let sequencer: TimelineSequencer
        do {
            sequencer = try TimelineSequencer(log: log, logName: logName, folder: folder,
                                              clock: ContextClock(read: context.clock))
        } catch { throw CommandFailure(error.description) }
        let json = arguments.flag("--json")
        if arguments.flag("--watch") {
            let interrupt = exitingOnInterrupt()
            let reporter = RunReporter(self)
            await sequencer.runContinuously { result in
                switch result {
                case .success(let report):
                    let moved = report.decided > 0 || report.published > 0
                    reporter.succeeded(printing: moved ? Self.describe(report, log: logName, folder: folder, json: json) : nil)
                case .failure(let error):
                    reporter.failed(error.description)
                }
            }
            interrupt.cancel()
            return ""
        }
        let report: SequenceReport
        do { report = try await sequencer.run() } catch { throw CommandFailure(error.description) }
        if report.decided > 0 { changes.note() }
        return Self.describe(report, log: logName, folder: folder, json: json)
    }

    /// A sequencer run's report: one line, or its JSON object.
    static func describe(_ report: SequenceReport, log: String, folder: String, json: Bool) -> String {
        if json {
            return "{\"decided\":\(report.decided),\"accepted\":\(report.accepted),\"rejected\":\(report.rejected),"
                + "\"published\":\(report.published),\"skipped\":\(report.skipped),\"position\":\(report.position)}\n"
        }
        return "sequenced \(log) through \(folder): decided \(report.decided) (\(report.accepted) accepted, "
            + "\(report.rejected) rejected), published \(count(report.published, "record")), at position "
            + "\(report.position)" + (report.skipped > 0 ? ", skipped \(count(report.skipped, "file")) not whole or not ours" : "")
            + "\n"
    }
}
