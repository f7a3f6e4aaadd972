import Synchronization
import TimelineCore
import SystemShim

/// The `timeline` command-line tool: parses the arguments, calls the library, prints.
///
/// Results go to standard output, written only once a command has succeeded, so a
/// failure leaves standard output empty; diagnostics go to standard error, each line
/// prefixed `timeline: `. Exit status: 0 success, 1 failure (a failed write to standard
/// output included), 2 usage error, ``closedOutput`` when the reader of standard output
/// went away.
public enum TimelineTool {
    /// Exit status of a command that did what it was asked.
    public static let success: Int32 = 0
    /// Exit status when a log is invalid, missing or in use, or a command is refused.
    public static let failure: Int32 = 1
    /// Exit status for a mistake on the command line.
    public static let usageError: Int32 = 2
    /// Status returned when standard output's reader went away (`| head`): the
    /// executable then ends as by `SIGPIPE`, quietly, as shells expect.
    public static let closedOutput: Int32 = 128 + 13

    /// Holds standard input, output and error open on `/dev/null` where the caller closed
    /// them (`>&-`), each the wrong way round (output and error read-only, input
    /// write-only): a write to them still fails, with `EBADF` as it would, and no file the
    /// tool opens later (a log) can take their number and receive what the tool prints.
    /// Call it first, before anything opens a file.
    package static func holdClosedStandardDescriptors() {
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // The lowest free number: this one, as the ones below it are open by now.
            let opened = open("/dev/null", descriptor == 0 ? O_WRONLY : O_RDONLY)
            guard opened >= 0, opened != descriptor else { continue }
            dup2(opened, descriptor)
            close(opened)
        }
    }

    /// Ends the process as by `SIGPIPE`, as a pipeline expects once the reader of standard
    /// output went away, even when the signal was ignored when a write failed (exit status
    /// ``closedOutput`` should the signal not end it).
    package static func endAsByClosedPipe() -> Never {
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        exit(closedOutput)
    }

    /// The tool's version, as `timeline --version` prints it.
    public static let version = "0.1.0"

    /// Runs the tool with `arguments` (without the program's name) and returns the exit status.
    public static func run(_ arguments: [String], context: ToolContext = .process) async -> Int32 {
        DatabaseLogs.noteSecrets(in: arguments + [context.environment["TIMELINE_LOG"] ?? ""])
        do {
            let runner = Runner(context: context)
            let output = try await runner.run(arguments)
            return write(output, context: context, changes: runner.changes)
        } catch let error as UsageError {
            context.diagnose(error.message)
            context.diagnose("usage: " + HelpText.usageLine(of: error.command.flatMap(Catalogue.command(named:))?.spec))
            context.diagnose(error.helpHint)
            return usageError
        } catch let error as CommandFailure {
            context.diagnose(error.message)
            return failure
        } catch {
            context.diagnose("\(error)")
            return failure
        }
    }

    /// The one place where results reach standard output: every command's text passes
    /// here, so a failed write is never a success. After a command that changed the log,
    /// the message says so: the change stands, and sending the command again would repeat it.
    private static func write(_ output: String, context: ToolContext, changes: LogChanges) -> Int32 {
        do {
            try context.output.write(output)
            return success
        } catch {
            guard case .failed(let code) = error else { return closedOutput }
            context.diagnose(outputFailure(code, changes: changes))
            return failure
        }
    }

    /// Why standard output could not be written, and what that means for the log.
    static func outputFailure(_ code: Int32, changes: LogChanges) -> String {
        let consequence = changes.happened ? "the command was done, and the log has changed: do not run it again"
            : changes.ranCommand ? "what was written is incomplete; the log is unchanged"
            : "what was written is incomplete"
        return "cannot write to standard output: \(String(cString: strerror(code))) (errno \(code)); " + consequence
    }
}

extension Runner {
    /// Writes `text` to standard output while the command goes on (`watch`, `export`):
    /// a reader gone away ends the process quietly, as SIGPIPE would; a failed write
    /// throws the message the end of a command would give.
    func writeAsItGoes(_ text: String) throws(CommandFailure) {
        do { try context.output.write(text) } catch {
            guard case .failed(let code) = error else { TimelineTool.endAsByClosedPipe() }
            throw CommandFailure(TimelineTool.outputFailure(code, changes: changes))
        }
    }
}

/// Set once a command has changed the log: an output error after it must say that the
/// change stands, and one after a help text or a "nothing to import" must not; one after
/// any other command says that the log is unchanged, one after a help text says nothing
/// of a log.
final class LogChanges: Sendable {
    private let changed = Atomic(false)
    private let ran = Atomic(false)

    /// Notes that the log changed.
    func note() { changed.store(true, ordering: .relaxed) }

    /// Notes that a command runs (not a help text or the version).
    func noteCommand() { ran.store(true, ordering: .relaxed) }

    /// Whether the log changed.
    var happened: Bool { changed.load(ordering: .relaxed) }

    /// Whether a command ran.
    var ranCommand: Bool { ran.load(ordering: .relaxed) }
}

/// A command that could not do its work: exit status 1 and a message.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// Runs one command line; every command returns the text for standard output.
struct Runner {
    let context: ToolContext
    /// Whether the command changed the log (records appended, lines moved by a repair).
    let changes = LogChanges()

    /// Runs the command that `arguments` name: it is looked up in ``Catalogue``, its
    /// arguments are parsed against its spec, and its type runs it.
    func run(_ arguments: [String]) async throws -> String {
        guard let name = arguments.first else {
            throw UsageError(message: "missing command", command: nil)
        }
        let rest = Array(arguments.dropFirst())
        switch name {
        case "--help", "-h":
            return HelpText.overview()
        case "--version":
            return "timeline \(TimelineTool.version)\n"
        case HelpCommand.spec.name:
            return try HelpCommand.text(rest)
        default:
            break
        }
        guard let command = Catalogue.command(named: name) else {
            let kind = name.hasPrefix("-") ? "option" : "command"
            var message = "unknown \(kind) '\(name)'"
            let candidates = name.hasPrefix("-") ? ["--help", "--version"] : Catalogue.names
            if let near = Suggestion.nearest(to: name, among: candidates) { message += "; did you mean '\(near)'?" }
            throw UsageError(message: message, command: nil)
        }
        switch try ArgumentParser.parse(rest, for: command.spec) {
        case .help(let spec):
            return HelpText.page(for: spec)
        case .run(let arguments):
            changes.noteCommand()
            return try await command.run(arguments, self)
        }
    }

    /// The store's log: `--log`, else `$TIMELINE_LOG`, else `./timeline.jsonl`. A database
    /// URL comes back as the name shown for it, without its password.
    func logPath(_ arguments: ParsedArguments) throws(UsageError) -> String {
        if let path = arguments.value("--log") {
            guard !path.isEmpty else { throw UsageError(message: "invalid value '' for --log: expected a path", command: arguments.command.name) }
            if let mistyped = DatabaseLogs.mistypedURL(path, as: "--log") {
                throw UsageError(message: mistyped, command: arguments.command.name)
            }
            return DatabaseLogs.isURL(path) ? DatabaseLogs.name(for: path) : path
        }
        if let path = context.environment["TIMELINE_LOG"], !path.isEmpty {
            if let mistyped = DatabaseLogs.mistypedURL(path, as: "$TIMELINE_LOG") {
                throw UsageError(message: mistyped, command: arguments.command.name)
            }
            return DatabaseLogs.isURL(path) ? DatabaseLogs.name(for: path) : path
        }
        return "timeline.jsonl"
    }
}
