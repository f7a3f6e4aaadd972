import TimelineCore

/// A named option of a command: a flag (`--json`) or an option with a value (`--order asc|desc`).
struct OptionSpec: Sendable {
    /// The option's name, with its dashes: `--order`.
    var name: String
    /// Other names accepted for it.
    var aliases: [String] = []
    /// What the value looks like in usage text (`ID`, `asc|desc`), or `nil` for a flag.
    var value: String?
    /// The values accepted, when they are a fixed set.
    var choices: [String]?
    /// Whether the command cannot run without it.
    var isRequired = false
    /// One line of help.
    var help: String

    var isFlag: Bool { value == nil }

    /// `--order asc|desc`, or `--json`.
    var synopsis: String { value.map { "\(name) \($0)" } ?? name }
}

/// A positional argument of a command, such as `FILE`.
struct PositionalSpec: Sendable {
    var name: String
    var help: String
    /// Whether the command runs without it (only the last positional may be optional).
    var isOptional = false
}

/// Everything the tool knows about a command: how to call it and how to explain it.
struct CommandSpec: Sendable {
    /// The subcommand's name: `replay`.
    var name: String
    /// One line: what it does.
    var summary: String
    /// Its positional arguments, required unless marked optional.
    var positionals: [PositionalSpec] = []
    /// Its options, in the order help lists them.
    var options: [OptionSpec]
    /// A paragraph or two for the help page, after the options.
    var details: String?
    /// Example command lines, each with an optional comment.
    var examples: [String]

    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name || $0.aliases.contains(name) }
    }
}

/// A mistake in the command line: exit status 2, a message, and where to find help.
struct UsageError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, naming the argument.
    var message: String
    /// The command whose help to point to, or `nil` for the tool's.
    var command: String?

    var description: String { message }

    /// `invalid value 'up' for --order: expected 'asc' or 'desc'`, with a suggestion
    /// when a choice is near.
    static func invalidValue(_ text: String, for option: String, reason: String, choices: [String] = [],
                             command: String) -> UsageError {
        var message = "invalid value '\(text)' for \(option): \(reason)"
        if let near = Suggestion.nearest(to: text, among: choices) { message += "; did you mean '\(near)'?" }
        return UsageError(message: message, command: command)
    }

    /// The line pointing to help.
    var helpHint: String {
        if let command { return "see 'timeline \(command) --help'" }
        return "see 'timeline --help'"
    }
}

/// The arguments of one command, parsed against its spec but not yet interpreted.
struct ParsedArguments: Sendable {
    var command: CommandSpec
    var positionals: [String] = []
    /// Option values by the option's name (not an alias).
    var values: [String: String] = [:]
    var flags: Set<String> = []

    /// Whether a flag is given (always `false` for a flag the command does not have).
    func flag(_ name: String) -> Bool {
        assert(command.option(named: name)?.isFlag != false, "\(name) is not a flag")
        return flags.contains(name)
    }

    /// The value of an option, or `nil` when it is not given (or not one of the command's).
    func value(_ name: String) -> String? {
        assert(command.option(named: name)?.isFlag != true, "\(name) takes no value")
        return values[name]
    }

    /// The value of an option the command cannot run without.
    func required(_ name: String) throws(UsageError) -> String {
        guard let value = value(name) else {
            let synopsis = command.option(named: name)?.synopsis ?? name
            throw UsageError(message: "missing \(synopsis)", command: command.name)
        }
        return value
    }

    /// The value of an option restricted to ``OptionSpec/choices``, converted.
    func choice<T: RawRepresentable>(_ name: String, as type: T.Type) throws(UsageError) -> T?
    where T.RawValue == String {
        guard let text = value(name) else { return nil }
        guard let value = T(rawValue: text) else {
            let choices = command.option(named: name)?.choices ?? []
            throw .invalidValue(text, for: name, reason: "expected " + Self.list(choices), choices: choices,
                                command: command.name)
        }
        return value
    }

    /// The value of a date option, parsed as a date value.
    func date(_ name: String) throws(UsageError) -> DateValue? {
        guard let text = value(name) else { return nil }
        do {
            return try DateValue(parsing: text)
        } catch {
            throw UsageError(message: "invalid value for \(name): \(error.description)", command: command.name)
        }
    }

    /// The value of an option that must be a whole number 0 or more.
    func nonNegativeInteger(_ name: String) throws(UsageError) -> Int64? {
        guard let text = value(name) else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw .invalidValue(text, for: name, reason: "expected a whole number, 0 or more", command: command.name)
        }
        guard let number = Int64(text) else {
            throw .invalidValue(text, for: name, reason: "too large: at most \(Int64.max)", command: command.name)
        }
        return number
    }

    /// The single positional argument of a command that takes one.
    var firstPositional: String { positionals[0] }

    /// `'asc' or 'desc'`, `'now', 'first' or 'last'`.
    static func list(_ words: [String]) -> String {
        let quoted = words.map { "'\($0)'" }
        guard quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
    }
}

/// Parses a command's arguments: options anywhere, `--name value` or `--name=value`,
/// `--` ends the options, `-h`/`--help` asks for help.
enum ArgumentParser {
    /// What the arguments ask for.
    enum Outcome {
        case run(ParsedArguments)
        case help(CommandSpec)
    }

    static func parse(_ arguments: [String], for command: CommandSpec) throws(UsageError) -> Outcome {
        // Help wins over every other mistake on the line.
        for argument in arguments {
            if argument == "--" { break }
            if argument == "--help" || argument == "-h" { return .help(command) }
        }
        var parsed = ParsedArguments(command: command)
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            // A negative number is a value the positional's own check refuses by name
            // (`revert -1`: "invalid SEQ"), never an unknown option.
            let negativeNumber = argument.count > 1 && argument.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
                && !command.positionals.isEmpty
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") || negativeNumber {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = command.option(named: name) else {
                var message = "unknown option '\(name)' for '\(command.name)'"
                let names = command.options.flatMap { [$0.name] + $0.aliases } + ["--help"]
                if let near = Suggestion.nearest(to: name, among: names) { message += "; did you mean '\(near)'?" }
                throw UsageError(message: message, command: command.name)
            }
            if option.isFlag {
                if inlineValue != nil {
                    throw UsageError(message: "option \(option.name) takes no value", command: command.name)
                }
                parsed.flags.insert(option.name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count, !looksLikeOption(arguments[index]) {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError(message: "option \(option.name) needs a value (\(option.synopsis))",
                                 command: command.name)
            }
            if parsed.values[option.name] != nil {
                throw UsageError(message: "option \(option.name) is given more than once", command: command.name)
            }
            if let choices = option.choices, !choices.contains(value) {
                throw .invalidValue(value, for: option.name, reason: "expected " + ParsedArguments.list(choices),
                                    choices: choices, command: command.name)
            }
            parsed.values[option.name] = value
        }
        if parsed.positionals.count < command.positionals.count(where: { !$0.isOptional }) {
            let missing = command.positionals[parsed.positionals.count...].filter { !$0.isOptional }.map(\.name)
                .joined(separator: " ")
            throw UsageError(message: "missing \(missing)", command: command.name)
        }
        if parsed.positionals.count > command.positionals.count {
            let extra = parsed.positionals[command.positionals.count]
            throw UsageError(message: "unexpected argument '\(extra)'", command: command.name)
        }
        for option in command.options where option.isRequired && parsed.values[option.name] == nil {
            throw UsageError(message: "missing \(option.synopsis)", command: command.name)
        }
        return .run(parsed)
    }

    /// Whether the word after an option that needs a value is another option rather than
    /// the value: `-h` or `--` followed by a letter (write `--title=--draft` for such a
    /// value). Other words, `-5`, `-`, `--` and `---` included, are values.
    private static func looksLikeOption(_ word: String) -> Bool {
        word == "-h" || (word.hasPrefix("--") && word.dropFirst(2).first?.isLetter == true)
    }
}

/// "Did you mean …?": the nearest known name by edit distance.
enum Suggestion {
    /// The candidate nearest to `word`, if one is near enough to be a likely typo.
    ///
    /// Distance is the optimal string alignment distance (insertions, deletions,
    /// substitutions and swaps of neighbours), case-insensitive, ignoring leading dashes.
    static func nearest(to word: String, among candidates: [String]) -> String? {
        let target = normalized(word)
        guard !target.isEmpty else { return nil }
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let other = normalized(candidate)
            let distance = editDistance(target, other)
            let limit = max(1, min(3, max(target.count, other.count) / 3))
            guard distance <= limit, distance < (best?.distance ?? .max) else { continue }
            best = (candidate, distance)
        }
        if best == nil, target.count >= 2 {
            // A unique prefix (`--ti` for `--timeline`) is a likely slip too.
            let prefixed = candidates.filter { normalized($0).starts(with: target) }
            if prefixed.count == 1 { return prefixed[0] }
        }
        return best?.name
    }

    private static func normalized(_ word: String) -> [Character] {
        Array(word.drop { $0 == "-" }.lowercased())
    }

    /// The optimal string alignment distance between two words.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        editDistance(Array(a), Array(b))
    }
}
