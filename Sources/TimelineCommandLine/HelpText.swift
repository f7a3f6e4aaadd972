/// The help pages: the tool's overview and one page per command.
enum HelpText {
    static let width = 80

    /// `timeline --help`.
    static func overview() -> String {
        var text = """
            timeline: keep timelines of life events in an append-only log, and list their date rows

            Usage:
              timeline COMMAND [ARGUMENTS] [OPTIONS]
              timeline help [COMMAND]
              timeline COMMAND --help
              timeline --version

            """
        let nameWidth = Catalogue.names.map(\.count).max() ?? 0
        for group in Catalogue.groups {
            text += "\n\(group.title):\n"
            for command in group.commands {
                text += "  " + pad(command.spec.name, nameWidth) + "  " + command.spec.summary + "\n"
            }
        }
        text += """

            The store's log is --log PATH, or $TIMELINE_LOG, or ./timeline.jsonl; only
            create-timeline and import create it. A FILE argument may be - (standard input).
            A URL, postgresql://USER@HOST:PORT/DATABASE?log=NAME, names a log on PostgreSQL
            (in a build with `swift build --traits PostgreSQL`).
            \(wrap(Catalogue.dateDetails, indent: ""))
            Exit status: 0 on success, 1 when a log is invalid, missing or in use, a
            command is refused, or standard output cannot be written; 2 for a mistake on
            the command line. When the reader of standard output goes away (| head), the
            command ends quietly, as by SIGPIPE.

            Examples:
              timeline replay Examples/logs/life.jsonl --now 2026-11-29
              timeline create-timeline --timeline life --name "My life"
              timeline add-event --timeline life --title "Born" --date 1990-04-12

            Run 'timeline COMMAND --help' for a command's options.

            """
        return text
    }

    /// `timeline COMMAND --help`.
    static func page(for command: CommandSpec) -> String {
        var text = "timeline \(command.name): \(command.summary)\n\nUsage:\n"
        text += synopsis(of: command) + "\n"
        if !command.positionals.isEmpty {
            text += "\nArguments:\n"
            text += table(command.positionals.map { ($0.name, $0.help) })
        }
        var options = command.options.map { option in
            let names = ([option.name] + option.aliases).joined(separator: ", ")
            return (option.value.map { "\(names) \($0)" } ?? names, option.help)
        }
        options.append(("-h, --help", "show this help"))
        text += "\nOptions:\n" + table(options)
        if let details = command.details {
            text += "\n" + details.split(separator: "\n", omittingEmptySubsequences: false)
                .map { wrap(String($0), indent: "") }.joined(separator: "\n") + "\n"
        }
        text += "\n" + (command.examples.count == 1 ? "Example:\n" : "Examples:\n")
        for example in command.examples { text += "  " + example + "\n" }
        return text
    }

    /// The words of a command's usage after `timeline NAME`: arguments, required
    /// options, then optional ones in brackets.
    static func usageWords(of command: CommandSpec) -> [String] {
        var words = command.positionals.map { $0.isOptional ? "[\($0.name)]" : $0.name }
        if command.name == AddEventCommand.spec.name {
            let grouped = ["--timeline", "--title", "--date", "--start", "--end"]
            words += ["--timeline ID", "--title TITLE", "(--date DATE | --start DATE [--end DATE])"]
            words += command.options.filter { !grouped.contains($0.name) }.map { "[\($0.synopsis)]" }
        } else {
            words += command.options.filter(\.isRequired).map(\.synopsis)
            words += command.options.filter { !$0.isRequired }.map { "[\($0.synopsis)]" }
        }
        return words
    }

    /// `timeline replay FILE [--timeline ID] …` on one line, for a usage error.
    static func usageLine(of command: CommandSpec?) -> String {
        guard let command else { return "timeline COMMAND [ARGUMENTS] [OPTIONS]" }
        return (["timeline", command.name] + usageWords(of: command)).joined(separator: " ")
    }

    /// `  timeline replay FILE [--timeline ID] …`, wrapped under the command's name.
    static func synopsis(of command: CommandSpec) -> String {
        let head = "  timeline \(command.name) "
        var lines: [String] = []
        var line = head
        for word in usageWords(of: command) {
            if line.count + word.count > width, line.count > head.count {
                lines.append(line)
                line = String(repeating: " ", count: head.count)
            }
            line += word + " "
        }
        lines.append(line)
        return lines.map { String($0.dropLast()) }.joined(separator: "\n")
    }

    private static func table(_ entries: [(String, String)]) -> String {
        let nameWidth = min(20, entries.map(\.0.count).max() ?? 0)
        var text = ""
        for (name, help) in entries {
            let indent = String(repeating: " ", count: nameWidth + 4)
            if name.count > nameWidth {
                text += "  \(name)\n" + wrap(help, indent: indent, first: indent) + "\n"
            } else {
                text += wrap(help, indent: indent, first: "  " + pad(name, nameWidth) + "  ") + "\n"
            }
        }
        return text
    }

    /// Wraps `text` at ``width`` columns; lines after the first start with `indent`.
    /// Lines that start with spaces are kept as they are (examples, JSON).
    static func wrap(_ text: String, indent: String, first: String? = nil) -> String {
        let first = first ?? indent
        if text.hasPrefix(" ") { return first + text }
        var lines: [String] = []
        var line = first
        var lineHasWord = false
        for word in text.split(separator: " ") {
            if lineHasWord, line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
                lineHasWord = false
            }
            line += (lineHasWord ? " " : "") + word
            lineHasWord = true
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
