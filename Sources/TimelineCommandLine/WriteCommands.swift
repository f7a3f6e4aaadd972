import TimelineCore

// The commands that change the store's log with one domain command each: their specs, and
// the domain command their arguments give. `WriteCommand` runs them all alike
// (`Runner.storeCommand(_:request:)`).

enum CreateTimelineCommand: WriteCommand {
    static let spec = CommandSpec(
        name: "create-timeline",
        summary: "create a timeline",
        options: [
            required("--name", "NAME", "the timeline's name"),
            subject("--timeline", "ID", "its id (default: made from the name, such as my-life; at most 64 bytes)",
                    required: false),
        ] + storeOptions,
        details: storeDetails,
        examples: ["timeline create-timeline --timeline work --name \"Work\""])

    static func request(_ arguments: ParsedArguments) throws -> Runner.Request {
        .createTimeline(arguments.value("--timeline").map(TimelineID.init(rawValue:)),
                        name: try arguments.required("--name"))
    }
}

enum RenameTimelineCommand: WriteCommand {
    static let spec = CommandSpec(
        name: "rename-timeline",
        summary: "give a timeline a new name",
        options: [subject("--timeline", "ID", "the timeline"), required("--name", "NAME", "its new name")] + storeOptions,
        details: storeDetails,
        examples: ["timeline rename-timeline --timeline work --name \"Career\""])

    static func request(_ arguments: ParsedArguments) throws -> Runner.Request {
        .command(.renameTimeline(try arguments.timeline(), name: try arguments.required("--name")))
    }
}

enum RemoveTimelineCommand: WriteCommand {
    static let spec = CommandSpec(
        name: "remove-timeline",
        summary: "remove a timeline and all of its events",
        options: [subject("--timeline", "ID", "the timeline")] + storeOptions,
        details: storeDetails,
        examples: ["timeline remove-timeline --timeline drafts"])

    static func request(_ arguments: ParsedArguments) throws -> Runner.Request {
        .command(.removeTimeline(try arguments.timeline()))
    }
}

enum AddEventCommand: WriteCommand {
    static let spec = CommandSpec(
        name: "add-event",
        summary: "add an event with one date, or a date range, to a timeline",
        options: [
            required("--timeline", "ID", "the timeline it belongs to"),
            required("--title", "TITLE", "its title"),
            OptionSpec(name: "--date", value: "DATE", help: "its one date"),
            OptionSpec(name: "--start", value: "DATE", help: "or the start of its range"),
            OptionSpec(name: "--end", value: "DATE", help: "and the range's end (without it, the range is open)"),
            subject("--event", "ID", "its id (default: a free e1, e2, ...)", required: false),
        ] + storeOptions,
        details: "Give either --date, or --start with or without --end.\n\n" + storeDetails + "\n\n" + dateDetails,
        examples: [
            "timeline add-event --timeline life --title \"Born\" --date 1990-04-12 --event e1",
            "timeline add-event --timeline home --title \"Living in Berlin\" --start 2019-03",
        ])

    static func request(_ arguments: ParsedArguments) throws -> Runner.Request {
        let name = spec.name
        let dates: EventDates
        switch (try arguments.date("--date"), try arguments.date("--start"), try arguments.date("--end")) {
        case (let date?, nil, nil): dates = .single(date)
        case (nil, let start?, let end): dates = .range(start: start, end: end)
        case (_?, _?, _): throw UsageError(message: "give either --date or --start, not both", command: name)
        case (_?, nil, _?): throw UsageError(message: "--end goes with --start, not with --date", command: name)
        case (nil, nil, _): throw UsageError(message: "missing --date DATE or --start DATE", command: name)
        }
        return .addEvent(arguments.value("--event").map(EventID.init(rawValue:)), timeline: try arguments.timeline(),
                         title: try arguments.required("--title"), dates: dates)
    }
}

enum RetitleEventCommand: WriteCommand {
    static let spec = CommandSpec(
        name: "retitle-event",
        summary: "give an event a new title",
        options: [subject("--event", "ID", "the event"), required("--title", "TITLE", "its new title")] + storeOptions,
        details: storeDetails,
        examples: ["timeline retitle-event --event e1 --title \"Born in Leipzig\""])

    static func request(_ arguments: ParsedArguments) throws -> Runner.Request {
        .command(.retitleEvent(try arguments.event(), title: try arguments.required("--title")))
    }
}

enum SetDateCommand: WriteCommand {
    static let spec = CommandSpec(
        name: "set-date",
        summary: "give an event one date (a range becomes a single date)",
        options: [subject("--event", "ID", "the event"), required("--date", "DATE", "its date")] + storeOptions,
        details: storeDetails + "\n\n" + dateDetails,
        examples: ["timeline set-date --event e1 --date 1990-04-12"])

    static func request(_ arguments: ParsedArguments) throws -> Runner.Request {
        .command(.setDate(try arguments.event(), try arguments.requiredDate("--date")))
    }
}

enum SetRangeCommand: WriteCommand {
    static let spec = CommandSpec(
        name: "set-range",
        summary: "give an event a date range, open or closed",
        options: [
            subject("--event", "ID", "the event"),
            required("--start", "DATE", "the range's start"),
            OptionSpec(name: "--end", value: "DATE", help: "its end (without it, the range is open)"),
        ] + storeOptions,
        details: storeDetails + "\n\n" + dateDetails,
        examples: ["timeline set-range --event school --start 1996-09 --end 2008-06"])

    static func request(_ arguments: ParsedArguments) throws -> Runner.Request {
        .command(.setRange(try arguments.event(), start: try arguments.requiredDate("--start"),
                           end: try arguments.date("--end")))
    }
}

enum CloseRangeCommand: WriteCommand {
    static let spec = CommandSpec(
        name: "close-range",
        summary: "give an open range its end",
        options: [subject("--event", "ID", "the event"), required("--end", "DATE", "the range's end")] + storeOptions,
        details: storeDetails + "\n\n" + dateDetails,
        examples: ["timeline close-range --event berlin --end 2024-05"])

    static func request(_ arguments: ParsedArguments) throws -> Runner.Request {
        .command(.closeRange(try arguments.event(), end: try arguments.requiredDate("--end")))
    }
}

enum ReopenRangeCommand: WriteCommand {
    static let spec = CommandSpec(
        name: "reopen-range",
        summary: "take the end off a closed range, so it is open again",
        options: [subject("--event", "ID", "the event")] + storeOptions,
        details: storeDetails,
        examples: ["timeline reopen-range --event berlin"])

    static func request(_ arguments: ParsedArguments) throws -> Runner.Request {
        .command(.reopenRange(try arguments.event()))
    }
}

enum MoveEventCommand: WriteCommand {
    static let spec = CommandSpec(
        name: "move-event",
        summary: "move an event to another timeline",
        options: [subject("--event", "ID", "the event"), required("--timeline", "ID", "the timeline to move it to")]
            + storeOptions,
        details: storeDetails,
        examples: ["timeline move-event --event e7 --timeline travel"])

    static func request(_ arguments: ParsedArguments) throws -> Runner.Request {
        .command(.moveEvent(try arguments.event(), to: try arguments.timeline()))
    }
}

enum RemoveEventCommand: WriteCommand {
    static let spec = CommandSpec(
        name: "remove-event",
        summary: "remove an event",
        options: [subject("--event", "ID", "the event")] + storeOptions,
        details: storeDetails,
        examples: ["timeline remove-event --event e7"])

    static func request(_ arguments: ParsedArguments) throws -> Runner.Request {
        .command(.removeEvent(try arguments.event()))
    }
}

extension ParsedArguments {
    /// `--timeline`, which the command cannot run without.
    func timeline() throws(UsageError) -> TimelineID { TimelineID(try required("--timeline")) }

    /// `--event`, which the command cannot run without.
    func event() throws(UsageError) -> EventID { EventID(try required("--event")) }

    /// The value of a date option the command cannot run without.
    func requiredDate(_ option: String) throws(UsageError) -> DateValue {
        if let date = try date(option) { return date }
        throw UsageError(message: "missing \(option) DATE", command: command.name)
    }
}
