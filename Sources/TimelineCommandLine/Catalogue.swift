/// Every command of the tool: its name, options, help and examples.
enum Catalogue {
    // MARK: Shared options

    static let log = OptionSpec(
        name: "--log", value: "PATH",
        help: "the store's log (default: $TIMELINE_LOG, else ./timeline.jsonl)")
    static let json = OptionSpec(name: "--json", help: "print JSON, one object per line")
    static let commandID = OptionSpec(
        name: "--command-id", value: "ID",
        help: "the command's id: run again with the same ID, it appends nothing (on a replica: queues nothing) (an id's rules: as an event's)")

    static let viewOptions: [OptionSpec] = [
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

    static let viewDetails = viewDetails(upto: true)

    /// The columns, the table on a terminal, --upto (for a command that takes it) and a row in JSON.
    static func viewDetails(upto: Bool) -> String {
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

    static let dateDetails = """
        Dates: YYYY, YYYY-MM, YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS[.fraction]] followed by Z \
        or ±HH:MM (years 0001-9999; a fraction has 1-9 digits).
        """

    static func subject(_ name: String, _ value: String, _ help: String, required: Bool = true) -> OptionSpec {
        OptionSpec(name: name, aliases: ["--id"], value: value, isRequired: required, help: help)
    }

    static func required(_ name: String, _ value: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: value, isRequired: true, help: help)
    }

    static let storeDetails = """
        Takes the log's writer lock for its run: waits while another process holds it \
        (an append, an import, a rebuild). Only create-timeline and import create a log that does not exist \
        yet; every other command fails saying so. On success prints one line; with \
        --json, the records appended, as JSON Lines. With --command-id ID the records \
        carry ID: the same command run again with the same ID appends nothing and says \
        where its records are, so a command whose outcome is unknown (the log's \
        database lost during the commit, a failed undo) can be run again safely.
        """

    // MARK: Commands

    static let replay = CommandSpec(
        name: "replay",
        summary: "print the date rows of a log file, replayed from scratch",
        positionals: [PositionalSpec(name: "FILE", help: "a log: JSON Lines, one record per line; - for standard input")],
        options: viewOptions,
        details: """
            Reads every record of FILE, checks each against the format and the domain \
            rules, and prints the rows of the chosen view. An invalid log prints nothing \
            on standard output, names the first bad line on standard error, and exits \
            with status 1. An incomplete last line (a torn write) is named in a warning \
            and not applied. FILE may be a pipe or a FIFO (cat L | timeline replay -, \
            timeline replay <(...)): it is read as a stream to its end.
            """ + "\n\n" + viewDetails + "\n\n" + dateDetails,
        examples: [
            "timeline replay life.jsonl --now 2026-11-29",
            "timeline replay life.jsonl --timeline work --order desc --ongoing last --json",
            "timeline replay life.jsonl --sections decade --upto 40",
            "timeline replay - --json < life.jsonl",
        ])

    static let rows = CommandSpec(
        name: "rows",
        summary: "print the date rows of the store's log (the options and output of replay)",
        options: [log] + viewOptions,
        details: "Waits while another process holds the log's writer lock (an import or a rebuild holds it "
            + "for its run), then prints what is committed; 'timeline replay' of the file reads it without "
            + "the lock.\n\n"
            + viewDetails,
        examples: ["timeline rows --log life.jsonl --timeline home --order desc"])

    static let watch = CommandSpec(
        name: "watch",
        summary: "follow a view of the store's log live, while any process writes it",
        options: [log] + viewOptions.compactMap { option in
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
            gone) holds the view where it is, with a warning saying why, until the log \
            can be read on again.
            """ + "\n\n" + viewDetails(upto: false),
        examples: ["timeline watch --log life.jsonl", "timeline watch --log life.jsonl --timeline work --json"])

    static let timelines = CommandSpec(
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

    static let verify = CommandSpec(
        name: "verify",
        summary: "check the store's log: checksums, positions, domain rules",
        options: [log],
        details: """
            Reads the log without taking its lock (it works while a store writes) and \
            checks every line. Exits with status 1 naming the first bad line; see \
            'timeline repair'. An incomplete last line (a write in progress, or cut short) \
            is named in a warning.
            """,
        examples: ["timeline verify --log life.jsonl"])

    static let rebuild = CommandSpec(
        name: "rebuild",
        summary: "rebuild the projections from the whole log and write the checkpoint",
        options: [log, OptionSpec(name: "--now", value: "DATE", help: "the moment taken as now (default: the system clock)")],
        details: """
            Reads the whole log once, ignoring any checkpoint, checks every record, builds \
            the date-row list of everything, of each timeline, and the timeline summaries \
            from scratch, and writes the checkpoint that the other commands open from \
            (PATH.checkpoint, with the log's permissions; for a PostgreSQL log, a file in \
            the user's cache directory). Holds the log's writer lock while it reads. A \
            record that is not valid, or that the domain rules refuse, fails with status 1 \
            naming its line, and no checkpoint is written.
            Progress goes to standard error, measured in bytes of the log read: on a \
            terminal, one line redrawn in place at most ten times a second (a bar, the \
            percent, records per second and the time left), cleared at the end; otherwise \
            a plain line at each tenth of the log. An atomic batch (an import's) is read \
            whole, so progress steps over it at once. Both end with a line of the records, \
            the time and the records per second.
            """,
        examples: ["timeline rebuild --log life.jsonl"])

    static let repair = CommandSpec(
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

    static let export = CommandSpec(
        name: "export",
        summary: "print the store's log as plain JSON Lines",
        options: [log],
        details: """
            One fact per record, renumbered from 1, with "seq", "type", "data", "at", "v", \
            the command id "cmd" and the batch marker "more" (records left in the batch) \
            but no checksums: a log that 'timeline replay' and 'timeline import' read, \
            with the same batches and command ids. \
            The log is checked and written a chunk at a time (an atomic batch, such as \
            an import's, is one chunk): a bad line stops the export there (exit status \
            1), after the records before its chunk, and the message says how many were \
            written.
            """,
        examples: ["timeline export --log life.jsonl > copy.jsonl"])

    static let importLog = CommandSpec(
        name: "import",
        summary: "append the facts of another log to the store's log, all or nothing",
        positionals: [PositionalSpec(name: "FILE", help: "the log to import; - for standard input")],
        options: [log, json, commandID, offline],
        details: """
            Checks FILE completely (format and domain rules, on its own and then after \
            the store's records) before writing anything, then appends all of its facts \
            as one atomic batch, recorded now. A torn last line in FILE refuses the import. \
            FILE may be a pipe or a FIFO, read as a stream. Creates the store's log when \
            there is none yet and FILE has facts to import. With --json, prints the records appended, as export does \
            (none when FILE holds nothing to import).
            The import carries a command id, --command-id ID or else one made from its facts \
            (import-, then 16 hexadecimal digits): importing the same facts again appends \
            nothing and says where they are. So when an import's outcome is unknown (the \
            connection to a database lost during its commit), importing the same FILE \
            again is safe.
            """,
        examples: ["timeline import --log timeline.jsonl exported.jsonl",
                   "timeline import - --log new.jsonl < exported.jsonl"])

    static let createTimeline = CommandSpec(
        name: "create-timeline",
        summary: "create a timeline",
        options: [
            required("--name", "NAME", "the timeline's name"),
            subject("--timeline", "ID", "its id (default: made from the name, such as my-life; at most 64 bytes)",
                    required: false),
            log, json, commandID, offline,
        ],
        details: storeDetails,
        examples: ["timeline create-timeline --timeline work --name \"Work\""])

    static let renameTimeline = CommandSpec(
        name: "rename-timeline",
        summary: "give a timeline a new name",
        options: [subject("--timeline", "ID", "the timeline"), required("--name", "NAME", "its new name"), log, json, commandID, offline],
        details: storeDetails,
        examples: ["timeline rename-timeline --timeline work --name \"Career\""])

    static let removeTimeline = CommandSpec(
        name: "remove-timeline",
        summary: "remove a timeline and all of its events",
        options: [subject("--timeline", "ID", "the timeline"), log, json, commandID, offline],
        details: storeDetails,
        examples: ["timeline remove-timeline --timeline drafts"])

    static let addEvent = CommandSpec(
        name: "add-event",
        summary: "add an event with one date, or a date range, to a timeline",
        options: [
            required("--timeline", "ID", "the timeline it belongs to"),
            required("--title", "TITLE", "its title"),
            OptionSpec(name: "--date", value: "DATE", help: "its one date"),
            OptionSpec(name: "--start", value: "DATE", help: "or the start of its range"),
            OptionSpec(name: "--end", value: "DATE", help: "and the range's end (without it, the range is open)"),
            subject("--event", "ID", "its id (default: a free e1, e2, ...)", required: false),
            log, json, commandID, offline,
        ],
        details: "Give either --date, or --start with or without --end.\n\n" + storeDetails + "\n\n" + dateDetails,
        examples: [
            "timeline add-event --timeline life --title \"Born\" --date 1990-04-12 --event e1",
            "timeline add-event --timeline home --title \"Living in Berlin\" --start 2019-03",
        ])

    static let retitleEvent = CommandSpec(
        name: "retitle-event",
        summary: "give an event a new title",
        options: [subject("--event", "ID", "the event"), required("--title", "TITLE", "its new title"), log, json, commandID, offline],
        details: storeDetails,
        examples: ["timeline retitle-event --event e1 --title \"Born in Leipzig\""])

    static let setDate = CommandSpec(
        name: "set-date",
        summary: "give an event one date (a range becomes a single date)",
        options: [subject("--event", "ID", "the event"), required("--date", "DATE", "its date"), log, json, commandID, offline],
        details: storeDetails + "\n\n" + dateDetails,
        examples: ["timeline set-date --event e1 --date 1990-04-12"])

    static let setRange = CommandSpec(
        name: "set-range",
        summary: "give an event a date range, open or closed",
        options: [
            subject("--event", "ID", "the event"),
            required("--start", "DATE", "the range's start"),
            OptionSpec(name: "--end", value: "DATE", help: "its end (without it, the range is open)"),
            log, json, commandID, offline,
        ],
        details: storeDetails + "\n\n" + dateDetails,
        examples: ["timeline set-range --event school --start 1996-09 --end 2008-06"])

    static let closeRange = CommandSpec(
        name: "close-range",
        summary: "give an open range its end",
        options: [subject("--event", "ID", "the event"), required("--end", "DATE", "the range's end"), log, json, commandID, offline],
        details: storeDetails + "\n\n" + dateDetails,
        examples: ["timeline close-range --event berlin --end 2024-05"])

    static let reopenRange = CommandSpec(
        name: "reopen-range",
        summary: "take the end off a closed range, so it is open again",
        options: [subject("--event", "ID", "the event"), log, json, commandID, offline],
        details: storeDetails,
        examples: ["timeline reopen-range --event berlin"])

    static let moveEvent = CommandSpec(
        name: "move-event",
        summary: "move an event to another timeline",
        options: [subject("--event", "ID", "the event"), required("--timeline", "ID", "the timeline to move it to"),
                  log, json, commandID, offline],
        details: storeDetails,
        examples: ["timeline move-event --event e7 --timeline travel"])

    static let removeEvent = CommandSpec(
        name: "remove-event",
        summary: "remove an event",
        options: [subject("--event", "ID", "the event"), log, json, commandID, offline],
        details: storeDetails,
        examples: ["timeline remove-event --event e7"])

    static let revert = CommandSpec(
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
            once; reverting a revert redoes. Refused, naming the record, when a later \
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

    static let history = CommandSpec(
        name: "history",
        summary: "list every record that touched an event, oldest first",
        options: [subject("--event", "ID", "the event"), log,
                  OptionSpec(name: "--json", help: "one JSON object per record, per line")],
        details: """
            A record touches the event when it names it, or removes the timeline the event \
            is in. An id removed and added again shows both lives. Columns: seq, when it \
            was recorded, type, command id (- for none), data. With --json, each record is
              {"seq":12,"type":"eventRetitled","at":"2026-11-29T12:00:00Z","cmd":null,"data":{"event":"e1","title":"Born"}}
            with "at" null for a record without a time. An event no record touched is an \
            error (exit status 1).
            """,
        examples: ["timeline history --event e1 --log life.jsonl", "timeline history --event e1 --json"])

    static let help = CommandSpec(
        name: "help",
        summary: "show the help of the tool or of a command",
        positionals: [],
        options: [],
        examples: ["timeline help replay"])

    /// The commands, grouped as the tool's help lists them.
    static let groups: [(title: String, commands: [CommandSpec])] = [
        ("Reading a log file", [replay, render]),
        ("Reading the store's log (--log PATH)", [rows, watch, timelines, history, verify, rebuild, export]),
        ("Changing the store's log (--log PATH)", [
            createTimeline, renameTimeline, removeTimeline, addEvent, retitleEvent, setDate, setRange,
            closeRange, reopenRange, moveEvent, removeEvent, revert, importLog, repair,
        ]),
        ("Syncing a person's devices (replicas of a shared log)", [clone, sync, status, notices]),
        ("Help", [help]),
    ]

    static let all: [CommandSpec] = groups.flatMap(\.commands)

    static func command(named name: String) -> CommandSpec? { all.first { $0.name == name } }
}
