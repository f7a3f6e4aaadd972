import Foundation
import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineCommandLine

@Suite("Argument parser")
struct ArgumentParserTests {
    func parse(_ arguments: [String], for command: CommandSpec = ReplayCommand.spec) throws(UsageError) -> ParsedArguments {
        switch try ArgumentParser.parse(arguments, for: command) {
        case .run(let parsed): return parsed
        case .help: throw UsageError(message: "asked for help", command: nil)
        }
    }

    func usageError(_ arguments: [String], for command: CommandSpec = ReplayCommand.spec) -> UsageError? {
        do {
            _ = try parse(arguments, for: command)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("replay", "replay", 0), ("replya", "replay", 1), ("rplay", "replay", 1), ("order", "odrer", 1),
        ("timeline", "timelines", 1), ("kitten", "sitting", 3), ("", "abc", 3), ("abc", "", 3),
    ])
    func editDistance(_ a: String, _ b: String, _ expected: Int) {
        #expect(Suggestion.editDistance(a, b) == expected)
        #expect(Suggestion.editDistance(b, a) == expected)
    }

    @Test(arguments: [
        ("--ordr", "--order"), ("--oder", "--order"), ("--Order", "--order"), ("--jsn", "--json"),
        ("--timelnie", "--timeline"), ("--ti", "--timeline"), ("--ongong", "--ongoing"), ("--upt", "--upto"),
        ("--section", "--sections"), ("-now", "--now"),
    ])
    func suggestsTheNearestOption(_ typo: String, _ expected: String) {
        let names = ReplayCommand.spec.options.map(\.name)
        #expect(Suggestion.nearest(to: typo, among: names) == expected)
    }

    @Test(arguments: ["--verbose", "--frobnicate", "--x", "--"])
    func suggestsNothingFarAway(_ word: String) {
        #expect(Suggestion.nearest(to: word, among: ReplayCommand.spec.options.map(\.name)) == nil)
    }

    @Test func suggestsCommands() {
        let names = Catalogue.names
        #expect(Suggestion.nearest(to: "replya", among: names) == "replay")
        #expect(Suggestion.nearest(to: "add-evnet", among: names) == "add-event")
        #expect(Suggestion.nearest(to: "timline", among: names) == "timelines")
        #expect(Suggestion.nearest(to: "close-rang", among: names) == "close-range")
        #expect(Suggestion.nearest(to: "clone", among: names) == "clone")
        #expect(Suggestion.nearest(to: "notice", among: names) == "notices")
        #expect(Suggestion.nearest(to: "launch", among: names) == nil)
    }

    @Test func unknownOptionNamesItAndSuggests() throws {
        let error = try #require(usageError(["log.jsonl", "--ordr", "asc"]))
        #expect(error.message == "unknown option '--ordr' for 'replay'; did you mean '--order'?")
        #expect(error.helpHint == "see 'timeline replay --help'")
    }

    @Test func parsesEveryViewOption() throws {
        let parsed = try parse([
            "--timeline", "work", "log.jsonl", "--order", "desc", "--ongoing=last", "--now", "2026-11-29",
            "--upto", "12", "--json", "--sections", "month",
        ])
        #expect(parsed.positionals == ["log.jsonl"])
        #expect(parsed.value("--timeline") == "work")
        #expect(try parsed.choice("--order", as: TimelineProjections.ViewOrder.self) == .descending)
        #expect(try parsed.choice("--ongoing", as: OngoingPlacement.self) == .last)
        #expect(try parsed.choice("--sections", as: Sectioning.self) == .month)
        #expect(try parsed.date("--now")?.text == "2026-11-29")
        #expect(try parsed.nonNegativeInteger("--upto") == 12)
        #expect(parsed.flag("--json"))
    }

    /// A word after an option that needs a value is that value unless it reads as an
    /// option: `--` and a letter, or `-h`.
    @Test func dashesThatNameNoOptionAreValues() throws {
        for value in ["---", "--", "-", "-5 degrees", "--5", "-- draft"] {
            #expect(try parse(["f", "--timeline", value]).value("--timeline") == value, "\(value)")
        }
        #expect(usageError(["f", "--timeline", "--json"])?.message == "option --timeline needs a value (--timeline ID)")
        #expect(try parse(["f", "--timeline=--json"]).value("--timeline") == "--json")
    }

    @Test func defaultsAreAbsent() throws {
        let parsed = try parse(["log.jsonl"])
        #expect(try parsed.choice("--order", as: TimelineProjections.ViewOrder.self) == nil)
        #expect(try parsed.date("--now") == nil)
        #expect(try parsed.nonNegativeInteger("--upto") == nil)
        #expect(!parsed.flag("--json"))
    }

    @Test(arguments: [
        (["f", "--order", "up"], "invalid value 'up' for --order: expected 'asc' or 'desc'"),
        (["f", "--order", "des"], "invalid value 'des' for --order: expected 'asc' or 'desc'; did you mean 'desc'?"),
        (["f", "--ongoing", "later"], "invalid value 'later' for --ongoing: expected 'now', 'first' or 'last'"),
        (["f", "--sections", "yaer"],
         "invalid value 'yaer' for --sections: expected 'year', 'month' or 'decade'; did you mean 'year'?"),
        (["f", "--order"], "option --order needs a value (--order asc|desc)"),
        (["f", "--now", "--json"], "option --now needs a value (--now DATE)"),
        (["f", "--json=yes"], "option --json takes no value"),
        (["f", "--order", "asc", "--order", "desc"], "option --order is given more than once"),
        ([], "missing FILE"),
        (["f", "g"], "unexpected argument 'g'"),
    ])
    func refusesBadArguments(_ arguments: [String], _ message: String) {
        #expect(usageError(arguments)?.message == message)
    }

    @Test(arguments: [
        ("2019-13", #"invalid value for --now: date "2019-13": month must be 01–12"#),
        ("yesterday", #"invalid value for --now: date "yesterday""#),
        ("2019-3-1", #"invalid value for --now: date "2019-3-1""#),
    ])
    func refusesBadDatesWithTheLibrarysMessage(_ text: String, _ prefix: String) throws {
        let parsed = try parse(["f", "--now", text])
        #expect(throws: UsageError.self) { try parsed.date("--now") }
        do {
            _ = try parsed.date("--now")
        } catch {
            #expect(error.message.hasPrefix(prefix), "\(error.message)")
        }
    }

    @Test(arguments: ["-1", "x", "1.5", "", "99999999999999999999", "+3"])
    func refusesBadPositions(_ text: String) throws {
        let parsed = try parse(["f", "--upto", text])
        #expect(throws: UsageError.self) { try parsed.nonNegativeInteger("--upto") }
    }

    @Test func acceptsPositionZero() throws {
        #expect(try parse(["f", "--upto", "0"]).nonNegativeInteger("--upto") == 0)
    }

    @Test func helpWinsOverOtherMistakes() throws {
        for arguments in [["--help"], ["-h"], ["--bogus", "--help"], ["a", "b", "c", "-h"]] {
            guard case .help(let command) = try ArgumentParser.parse(arguments, for: ReplayCommand.spec) else {
                Issue.record("\(arguments) did not ask for help")
                continue
            }
            #expect(command.name == "replay")
        }
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try parse(["--json", "--", "--odd-name.jsonl"])
        #expect(parsed.positionals == ["--odd-name.jsonl"])
        #expect(parsed.flag("--json"))
    }

    @Test func valuesMayStartWithOneDashOrBeGivenInline() throws {
        let parsed = try parse(["--title", "-3 degrees", "--timeline=--odd", "--name", "-"], for: CreateTimelineCommand.spec
            .withOptions(["--title", "--name", "--timeline"]))
        #expect(parsed.value("--title") == "-3 degrees")
        #expect(parsed.value("--timeline") == "--odd")
        #expect(parsed.value("--name") == "-")
    }

    @Test func aliasesAreStoredUnderTheOptionsName() throws {
        let parsed = try parse(["--id", "e7", "--timeline", "life", "--title", "Born", "--date", "1990"],
                               for: AddEventCommand.spec)
        #expect(parsed.value("--event") == "e7")
    }

    @Test func requiredOptionsAreNamedWhenMissing() {
        #expect(usageError(["--title", "Born"], for: AddEventCommand.spec)?.message == "missing --timeline ID")
        #expect(usageError(["--event", "e1"], for: CloseRangeCommand.spec)?.message == "missing --end DATE")
        #expect(usageError(["--end", "2020"], for: CloseRangeCommand.spec)?.message == "missing --event ID")
    }

    /// The table is the dispatch: every command in it is found by its name, and runs as its own type.
    @Test func everyListedCommandIsFoundByItsName() {
        #expect(Set(Catalogue.names).count == Catalogue.all.count)
        for command in Catalogue.all {
            #expect(Catalogue.command(named: command.spec.name).map { ObjectIdentifier($0) } == ObjectIdentifier(command))
        }
    }

    @Test func everyCommandHasHelpAndAnExample() {
        for command in Catalogue.all.map({ $0.spec }) {
            let page = HelpText.page(for: command)
            #expect(page.hasPrefix("timeline \(command.name): \(command.summary)\n"))
            #expect(page.contains("Usage:\n  timeline \(command.name)"))
            #expect(!command.examples.isEmpty)
            for example in command.examples { #expect(example.hasPrefix("timeline \(command.name)")) }
            for option in command.options { #expect(page.contains(option.name), "\(command.name) \(option.name)") }
        }
        let overview = HelpText.overview()
        for command in Catalogue.all.map({ $0.spec }) { #expect(overview.contains("  \(command.name) ")) }
    }

    /// A command's help speaks only of options it takes (watch's once spoke of --upto).
    @Test func everyOptionAHelpPageNamesIsOneItTakes() throws {
        let word = try Regex("--[a-z][a-z-]*")
        for command in Catalogue.all.map({ $0.spec }) {
            let taken = Set(command.options.map(\.name) + command.options.flatMap(\.aliases) + ["--help"])
            let details = command.details ?? ""
            for match in details.matches(of: word) {
                let named = String(details[match.range])
                #expect(taken.contains(named), "\(command.name) --help names \(named)")
            }
        }
        let watch = HelpText.page(for: WatchCommand.spec)
        #expect(watch.contains("--json                one JSON object per change, per line, as it happens"), "\(watch)")
    }

    @Test func theContractsFlagsAreReplays() {
        let names = Set(ReplayCommand.spec.options.map(\.name))
        #expect(names == ["--timeline", "--order", "--ongoing", "--now", "--upto", "--json", "--sections"])
        #expect(RowsCommand.spec.options.map(\.name) == ["--log"] + ReplayCommand.spec.options.map(\.name))
    }
}

/// The library's message for a text that is not a date.
func dateError(_ text: String) -> String {
    do {
        _ = try DateValue(parsing: text)
        return "accepted"
    } catch {
        return error.description
    }
}

extension CommandSpec {
    /// A command with value options of these names, for parser tests.
    func withOptions(_ names: [String]) -> CommandSpec {
        var copy = self
        copy.options = names.map { OptionSpec(name: $0, value: "X", help: "") }
        return copy
    }
}

@Suite("Output formats")
struct OutputFormatTests {
    @Test(arguments: [
        ("plain", #""plain""#),
        ("say \"hi\"", #""say \"hi\"""#),
        ("back\\slash", #""back\\slash""#),
        ("line\nbreak\ttab\rreturn", #""line\nbreak\ttab\rreturn""#),
        ("\u{01}\u{08}\u{0C}\u{1F}", #""\u0001\b\f\u001f""#),
        ("Zürich 東京 🎉", "\"Zürich 東京 🎉\""),
        ("/slash\u{7F}", "\"/slash\u{7F}\""),
    ])
    func escapesJSONStrings(_ text: String, _ json: String) {
        #expect(JSONText.string(text) == json)
    }

    @Test func nullForNoString() {
        #expect(JSONText.string(nil as String?) == "null")
    }

    @Test func tableCellsKeepOneLine() {
        #expect(displayText("two\nlines") == "two\\nlines")
        #expect(displayText("plain Zürich") == "plain Zürich")
        // C0 and C1 controls and DEL are escaped; a no-break space (0xC2 0xA0 in UTF-8,
        // beside the C1 range) and other text are not.
        #expect(displayText("a\u{7F}b\u{85}c\u{9F}") == "a\\u{7f}b\\u{85}c\\u{9f}")
        #expect(displayText("\u{A0}\u{C2}東京\u{1F600}") == "\u{A0}\u{C2}東京\u{1F600}")
        // Line and paragraph separators and bidirectional controls would break the line or
        // reorder the rest of it; their neighbours (U+2027, U+202F, U+2065, U+206A) are kept.
        #expect(displayText("a\u{2028}b\u{2029}c\u{202E}d\u{2066}e\u{2069}")
                == "a\\u{2028}b\\u{2029}c\\u{202e}d\\u{2066}e\\u{2069}")
        #expect(displayText("\u{2027}\u{202F}\u{2065}\u{206A}") == "\u{2027}\u{202F}\u{2065}\u{206A}")
        // The bidirectional marks, and their neighbours kept.
        #expect(displayText("r\u{200F}l\u{200E}\u{61C}") == "r\\u{200f}l\\u{200e}\\u{61c}")
        #expect(displayText("\u{61B}\u{200D}\u{2010}") == "\u{61B}\u{200D}\u{2010}")
    }

    /// Widths read from UTF-8 bytes (with a fast path for Latin letters) are those of
    /// the text's characters.
    @Test(arguments: ["plain", "Tomás", "Ærøskøbing", "ʔaʕ", "soft\u{AD}hyphen", "e\u{301}", "東京に住む",
                      "🇩🇪 flag", "Ⅻ", "ÿ\u{300}", "\u{2FF}\u{300}", "", "a\u{200B}b"])
    func widthsFromBytesAreWidthsOfCharacters(_ text: String) {
        var text = text
        let fromBytes = text.withUTF8 { DisplayWidth.of(utf8: $0) }
        #expect(fromBytes == DisplayWidth.of(text))
    }

    /// A soft hyphen takes a cell, as terminals draw it (and as `wcwidth` counts it).
    @Test func aSoftHyphenTakesACell() {
        #expect(DisplayWidth.of("a\u{AD}b") == 3)
    }

    @Test func tableWidthsCountCellsNotBytes() {
        var table = TextTable(header: ["A", "B"])
        table.rows = [["東京", "x"], ["ab", "y"], ["e\u{301}", "z"]]
        #expect(table.render() == "A     B\n東京  x\nab    y\ne\u{301}     z\n")
    }

    /// The last column is not padded, nor is an empty last cell; a cell's own spaces (a
    /// title that ends in spaces) are shown as they are.
    @Test func tablesAlignAndDoNotPadTheLastColumn() {
        var table = TextTable(header: ["A", "BB"])
        table.rows = [["long cell", "x"], ["s", "y  "], ["e", ""]]
        #expect(table.render() == "A          BB\nlong cell  x\ns          y  \ne\n")
    }
}

@Suite("Tool in-process")
struct InProcessToolTests {
    func run(_ arguments: [String], environment: [String: String] = [:]) async -> (Int32, String, String) {
        let output = CapturedOutput()
        let errors = CapturedOutput()
        let context = ToolContext(output: output, errors: errors, environment: environment,
                                  clock: { Instant(microsecondsSinceEpoch: 0) })
        let status = await TimelineTool.run(arguments, context: context)
        return (status, output.text, errors.text)
    }

    @Test(arguments: [
        ([], "timeline: missing command\ntimeline: see 'timeline --help'\n"),
        (["replya", "f"], "timeline: unknown command 'replya'; did you mean 'replay'?\ntimeline: see 'timeline --help'\n"),
        (["--verbose"], "timeline: unknown option '--verbose'\ntimeline: see 'timeline --help'\n"),
        (["help", "add-evnt"],
         "timeline: no help for 'add-evnt': there is no such command; did you mean 'add-event'?\ntimeline: see 'timeline --help'\n"),
        (["add-event", "--timeline", "t", "--title", "T", "--date", "2019-02-30"],
         "timeline: invalid value for --date: \(dateError("2019-02-30"))\n"
            + "timeline: see 'timeline add-event --help'\n"),
        (["add-event", "--timeline", "t", "--title", "T", "--end", "2019"],
         "timeline: missing --date DATE or --start DATE\ntimeline: see 'timeline add-event --help'\n"),
        (["add-event", "--timeline", "t", "--title", "T", "--date", "2019", "--end", "2020"],
         "timeline: --end goes with --start, not with --date\ntimeline: see 'timeline add-event --help'\n"),
        (["rows", "--log", ""], "timeline: invalid value '' for --log: expected a path\ntimeline: see 'timeline rows --help'\n"),
    ])
    func usageErrorsExitTwoWithNothingOnStandardOutput(_ arguments: [String], _ expected: String) async {
        let (status, output, errors) = await run(arguments)
        #expect(status == 2)
        #expect(output.isEmpty)
        // The message, the usage line, and where to find help.
        var lines = errors.split(separator: "\n", omittingEmptySubsequences: false).map { $0 + "\n" }
        lines.removeLast()
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix("timeline: usage: timeline "))
        lines.remove(at: 1)
        #expect(lines.joined() == expected)
    }

    @Test func aUsageErrorShowsTheCommandsUsageLine() async {
        let (_, _, errors) = await run(["close-range", "--event", "e1", "--ende", "2020"])
        #expect(errors.contains("timeline: usage: timeline close-range --event ID --end DATE [--log PATH] [--json] [--command-id ID] [--offline]\n"))
        let (_, _, overall) = await run(["frobnicate"])
        #expect(overall.contains("timeline: usage: timeline COMMAND [ARGUMENTS] [OPTIONS]\n"))
    }

    @Test func helpGoesToStandardOutput() async {
        for arguments in [["--help"], ["-h"], ["help"], ["help", "replay"], ["replay", "--help"]] {
            let (status, output, errors) = await run(arguments)
            #expect(status == 0)
            #expect(output.contains("Usage:"))
            #expect(errors.isEmpty)
        }
    }

    /// `help --help` is the page of help, as `COMMAND --help` is any command's.
    @Test func helpOfHelpIsItsOwnPage() async {
        let (status, output, _) = await run(["help", "--help"])
        #expect(status == 0 && output == HelpText.page(for: HelpCommand.spec))
        #expect(!output.contains("Reading a log file:"))
    }

    @Test func storeCommandsCheckArgumentsBeforeTouchingTheLog() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("never.jsonl")
        let (status, _, _) = await run(["set-date", "--event", "e1", "--date", "2019-13", "--log", path])
        #expect(status == 2)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
