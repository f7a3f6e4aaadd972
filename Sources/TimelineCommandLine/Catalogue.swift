/// Every command of the tool, in one table: the groups that `timeline --help` lists, each
/// command a ``ToolCommand`` type holding its spec and its run. Running a command, its
/// help page and its usage line all look it up here, so a command is listed and run in
/// one step (see ``ToolCommand`` for adding one).
enum Catalogue {
    /// The commands, grouped as the tool's help lists them.
    static let groups: [(title: String, commands: [any ToolCommand.Type])] = [
        ("Reading a log file", [ReplayCommand.self, RenderCommand.self]),
        ("Reading the store's log (--log PATH)", [
            RowsCommand.self, WatchCommand.self, TimelinesCommand.self, HistoryCommand.self, VerifyCommand.self,
            RebuildCommand.self, ExportCommand.self,
        ]),
        ("Changing the store's log (--log PATH)", [
            CreateTimelineCommand.self, RenameTimelineCommand.self, RemoveTimelineCommand.self, AddEventCommand.self,
            RetitleEventCommand.self, SetDateCommand.self, SetRangeCommand.self, CloseRangeCommand.self,
            ReopenRangeCommand.self, MoveEventCommand.self, RemoveEventCommand.self, RevertCommand.self,
            ImportCommand.self, RepairCommand.self,
        ]),
        ("Syncing a person's devices (replicas of a shared log or a shared folder)", [
            CloneCommand.self, SyncCommand.self, StatusCommand.self, NoticesCommand.self, SequenceCommand.self,
        ]),
        ("Help", [HelpCommand.self]),
    ]

    static let all: [any ToolCommand.Type] = groups.flatMap(\.commands)

    /// Every command's name, in the order of ``all``.
    static let names: [String] = all.map { $0.spec.name }

    static func command(named name: String) -> (any ToolCommand.Type)? { all.first { $0.spec.name == name } }

    static let dateDetails = """
        Dates: YYYY, YYYY-MM, YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS[.fraction]] followed by Z \
        or ±HH:MM (years 0001-9999; a fraction has 1-9 digits).
        """
}

/// The options and help paragraphs that several commands share, defined once; a command's
/// type names them unqualified in its spec (`options: [log, json]`). The view options are
/// ``ViewOptions``.
extension ToolCommand {
    static var log: OptionSpec {
        OptionSpec(name: "--log", value: "PATH", help: "the store's log (default: $TIMELINE_LOG, else ./timeline.jsonl)")
    }

    static var json: OptionSpec { OptionSpec(name: "--json", help: "print JSON, one object per line") }

    static var commandID: OptionSpec {
        OptionSpec(
            name: "--command-id", value: "ID",
            help: "the command's id: run again with the same ID, it appends nothing (on a replica: queues nothing); another command given an ID in use is refused (an id's rules: as an event's)")
    }

    static var offline: OptionSpec {
        OptionSpec(name: "--offline", help: "on a replica: save the submission without trying to sync")
    }

    /// The options of every command that appends to the store's log, after its own.
    static var storeOptions: [OptionSpec] {
        [log, OptionSpec(name: "--json", help: "print the records appended as JSON Lines (on a replica: its submission, one object)"),
         commandID, offline]
    }

    /// An option naming what the command acts on, also accepted as `--id`.
    static func subject(_ name: String, _ value: String, _ help: String, required: Bool = true) -> OptionSpec {
        OptionSpec(name: name, aliases: ["--id"], value: value, isRequired: required, help: help)
    }

    static func required(_ name: String, _ value: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: value, isRequired: true, help: help)
    }

    static var dateDetails: String { Catalogue.dateDetails }

    static var storeDetails: String {
        """
        Takes the log's writer lock for its run: waits while another process holds it \
        (an append, an import, a rebuild). Only create-timeline and import create a log that does not exist \
        yet; every other command fails saying so. On success prints one line; with \
        --json, the records appended, as JSON Lines. With --command-id ID the records \
        carry ID: the same command run again with the same ID appends nothing and says \
        where its records are, so a command whose outcome is unknown (the log's \
        database lost during the commit, a failed undo) can be run again safely; \
        another command given an ID in use is refused (exit 1), nothing appended.
        """
    }
}
