import TimelineCore
import TimelineProjections

/// The view options, shared by every command that shows rows (replay, rows, watch,
/// render): which rows (`--timeline`), in what order (`--order`, `--ongoing`), grouped how
/// (`--sections`), at what "now" (`--now`), up to which position (`--upto`), printed how
/// (`--json`). Their specs and help are here, and so is reading them from the parsed
/// arguments: each value is read when the command needs it, so that a mistake in one is
/// reported where the command meets it.
struct ViewOptions {
    /// The options, in the order help lists them.
    static let specs: [OptionSpec] = [
        OptionSpec(name: "--timeline", value: "ID", help: "only the rows of this timeline's events"),
        OptionSpec(name: "--order", value: "asc|desc", choices: ["asc", "desc"],
                   help: "earliest first (asc, the default) or latest first (desc: the exact reverse)"),
        OptionSpec(name: "--ongoing", value: "now|first|last", choices: ["now", "first", "last"],
                   help: "where the rows of open ranges sort: at now (the default), before or after all dated rows"),
        OptionSpec(name: "--now", value: "DATE", help: "the moment taken as now (default: the system clock)"),
        OptionSpec(name: "--upto", value: "SEQ",
                   help: "apply only the atomic batches that end at or before position SEQ (0: none)"),
        OptionSpec(name: "--json", help: "one JSON object per row, per line, in list order"),
        OptionSpec(name: "--sections", value: "year|month|decade", choices: ["year", "month", "decade"],
                   help: "group the rows by the year, month or decade of their date"),
    ]

    static let details = details(upto: true)

    /// The columns, the table on a terminal, --upto (for a command that takes it) and a row in JSON.
    static func details(upto: Bool) -> String {
        let columns = """
            Columns: kind (single, start, end, ongoing), date (as written in the log; an \
            ongoing row shows "now"), timeline, event (the id that retitle-event, close-range, \
            move-event and the other commands take), title. On a terminal the table fits \
            its width ($COLUMNS, else the terminal's), cutting long titles with "…", and \
            shows the kinds in colour unless $NO_COLOR is set; written to a file or a pipe, \
            it is never cut and has no colour.
            """
        let batches = " --upto never stops inside an atomic batch (the records of one command, or of one "
            + "import): it shows a state that was committed."
        return columns + (upto ? batches : "") + """
             With --json, each row is
              {"event":"e1","timeline":"life","title":"Born","kind":"single","date":"1990-04-12"}
            with "date" null for an ongoing row, and a last member "section" with --sections.
            """
    }

    /// The command's arguments, parsed against a spec that holds (some of) ``specs``.
    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments) { self.arguments = arguments }

    /// The view that `--timeline`, `--ongoing`, `--order` and `--sections` ask for.
    func view() throws(UsageError) -> ViewDefinition {
        ViewDefinition(
            filter: arguments.value("--timeline").map { .timeline(TimelineID($0)) } ?? .all,
            placement: try arguments.choice("--ongoing", as: OngoingPlacement.self) ?? .now,
            order: try arguments.choice("--order", as: ViewOrder.self) ?? .ascending,
            sections: try arguments.choice("--sections", as: Sectioning.self) ?? .none)
    }

    /// `--now`, or `nil` when it is not given (then "now" is the clock's).
    func now() throws(UsageError) -> Instant? {
        try arguments.date("--now")?.instant
    }

    /// `--upto`, or `nil` when it is not given (the whole log).
    func upTo() throws(UsageError) -> Int64? {
        try arguments.nonNegativeInteger("--upto")
    }

    /// `--json`.
    var json: Bool { arguments.flag("--json") }
}
