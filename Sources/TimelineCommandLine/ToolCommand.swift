/// A subcommand of the tool: its spec (name, arguments, options, help) and its run.
///
/// ``Runner`` looks a command up by name in ``Catalogue/groups``, parses its arguments
/// against ``spec`` and calls ``run(_:_:)``: a command listed there is run through its own
/// type, so one without a run does not compile.
///
/// How to add a subcommand:
/// 1. One new file with its type: `enum FrobnicateCommand: ToolCommand`, with
///    `static let spec = CommandSpec(…)` (its help is generated from it) and
///    `static func run(_ arguments: ParsedArguments, _ runner: Runner)`, which reads the
///    arguments (`arguments.value("--x")`, `ViewOptions(arguments)` for the view options),
///    does the work with the runner's helpers (`runner.logPath(arguments)`,
///    `runner.openStore(…)`, `runner.context`) and returns the text for standard output.
///    A command that sends one domain command conforms to ``WriteCommand`` instead and
///    gives only its ``WriteCommand/request(_:)`` (see `WriteCommands.swift`).
/// 2. One line: the type in its group of ``Catalogue/groups``, which `timeline --help`
///    lists in that order.
///
/// Options several commands share are defined once: the view options in ``ViewOptions``,
/// `--log`, `--json`, `--command-id` and `--offline` in ``Catalogue``.
protocol ToolCommand: Sendable {
    /// How to call the command and how to explain it.
    static var spec: CommandSpec { get }

    /// Runs the command with its parsed arguments and returns the text for standard output.
    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String
}

/// A command that changes the store's log with one domain command (on a replica: submits
/// it): the arguments give the command, and ``Runner/storeCommand(_:request:)`` sends it.
protocol WriteCommand: ToolCommand {
    /// The domain command that the arguments ask for; every argument is checked here,
    /// before the log is touched.
    static func request(_ arguments: ParsedArguments) throws -> Runner.Request
}

extension WriteCommand {
    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.storeCommand(arguments, request: request(arguments))
    }
}

/// `timeline help [COMMAND]`: answered before any parsing (its argument is a command's
/// name, and `help --help` is the overview), and it runs no command, so that an output
/// error after it says nothing of a log.
enum HelpCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "help",
        summary: "show the help of the tool or of a command",
        positionals: [],
        options: [],
        examples: ["timeline help replay"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) throws -> String {
        try text(arguments.positionals)
    }

    /// The tool's help, or the page of the command `words` names.
    static func text(_ words: [String]) throws(UsageError) -> String {
        guard let name = words.first else { return HelpText.overview() }
        // `timeline help --help`: the page of help itself, as for any command.
        if name == "--help" || name == "-h" { return HelpText.page(for: spec) }
        guard words.count == 1 else {
            throw UsageError(message: "unexpected argument '\(words[1])'", command: spec.name)
        }
        guard let command = Catalogue.command(named: name) else {
            var message = "no help for '\(name)': there is no such command"
            if let near = Suggestion.nearest(to: name, among: Catalogue.names) {
                message += "; did you mean '\(near)'?"
            }
            throw UsageError(message: message, command: nil)
        }
        return HelpText.page(for: command.spec)
    }
}
