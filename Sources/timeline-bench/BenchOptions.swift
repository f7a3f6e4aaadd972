/// What to measure and at which sizes, from the command line.
struct BenchOptions {
    enum Section: String, CaseIterable {
        case command, replay, open, memory, append, processes, tool, sync, undo, folder, sqlite
    }

    var quick = false
    var sections = Set(Section.allCases)
    var commandSizes = [10_000, 100_000, 1_000_000]
    var records = 1_000_000
    var events = 1_000_000
    var commands = 3_000
    /// How many times each time target is measured, later runs apart (``CommandRepetitions``).
    var repetitions = 3
    var seed: UInt64 = 42
    var showHelp = false
    /// The PostgreSQL server for measurement 7 (`--postgres URL`).
    var postgresURL: String?
    /// Only the pure pieces of measurement 1, synchronously (``CommandProfile``).
    var profile = false
    /// Set in the child process that measures memory: what to build, and from which log.
    var memoryChild: (subject: String, path: String)?
    /// Set in a child process that repeats the pure pieces of measurement 1.
    var commandChild = false
    /// Set in a writer child of measurement 6: the log, its ids' prefix, how many commands, the pause (µs).
    var writerChild: (path: String, prefix: String, count: Int, pause: Int)?
    /// Set in the child that runs one command of measurement 8 and reports its time and peak.
    var toolChild: [String]?
    /// Only write the replay logs (`--write-logs DIR`) into this directory, and stop.
    var writeLogsDirectory: String?

    static let usage = """
    USAGE: timeline-bench [--quick] [--only LIST] [--sizes LIST] [--records N] [--events N]
                          [--commands N] [--repetitions N] [--seed N]
           timeline-bench --profile [--sizes LIST] [--commands N] [--seed N]
           timeline-bench --postgres URL [--quick] [--records N] [--commands N] [--seed N]
           timeline-bench --write-logs DIR [--quick] [--records N] [--seed N]

    Measures the timeline core and prints each figure beside a baseline measured in the
    same run, with the ratio, then a summary of the performance targets (PASS/MISS).
    Build with -c release; figures from a debug build mean nothing.

      1 command  one command at N rows, kept live in three views: the pure pieces, and
                 TimelineStore (from the main actor, from a task, on the main actor's
                 executor), beside (a) sorted arrays and (b) re-sort + difference(from:)
      2 replay   parsing and rebuilding a log (store's layout, hand-written), beside JSONDecoder
      3 open     opening a store on a log file: full replay, from a checkpoint
      4 memory   peak and resident bytes per event (child process), beside sorted arrays
      5 append   durable appends through FileEventLog, beside raw write + fsync
      6 processes  send → change set in another process, beside polling every 10 ms; a
                 send while another process follows, beside none; two writers, beside one
      7 postgres only with --postgres URL, alone, in a build with `--traits PostgreSQL`:
                 the log on PostgreSQL beside the file log
      8 tool     the timeline executable built beside this program (swift build -c
                 release first), whole processes (median of 3, peak RSS from wait4):
                 add-event, rows from the checkpoint beside without it; import and
                 replay --json beside python3's json.loads and JSONSerialization
      9 sync     replicas of a shared file log: send, rebase, push, sync → change set,
                 clone, each beside its plain-log counterpart
     10 undo     undo and redo at the largest of --sizes, beside the send; the tool's
                 history --event beside rows with and without the checkpoint
                 (a record after it, as every write leaves it)
     11 folder   folder mode: the sequencer, a clone of a folder, a sealed segment
                 arriving → change set, beside a replica, a file log, a plain send
     12 sqlite   the store's rows beside an SQLite table of them (the sqlite3 command,
                 when on the PATH): opening, the first rows, a durable insert, a range

    OPTIONS:
      --quick           small sizes, for CI: 10k rows, 20k records, 20k events, fewer
                        samples; finishes in seconds
      --only LIST       comma-separated sections to run: command, replay, open, memory,
                        append, processes, tool, sync, undo, folder, sqlite
                        (default: all)
      --sizes LIST      rows present for the one-command measurement (the undo
                        measurement takes the largest)
                        (default 10k,100k,1M; with --quick 10k); k and M suffixes allowed
      --records N       records in the replay and open log (default 1M; --quick 20k)
      --events N        events in the store whose memory is measured (default 1M; --quick 20k)
      --commands N      measured commands per path and size, at most (default 3000;
                        --quick 1000); slow paths stop earlier on a time budget
      --repetitions N   times each time target is measured (default 3; --quick 2; at
                        most 20): with its section, then once after each later section
                        (one command's pure pieces in a fresh process), any left over at
                        the end. Neighbours can only slow a run down, so a time target
                        is judged on its fastest run; every run is printed
      --seed N          seed of the random workload (default 42)
      --profile         only the pure pieces of measurement 1, at each of --sizes
                        (default 1M): one line each, the median command and stages. To
                        compare builds, alternate runs pinned to one core (taskset -c 1);
                        callgrind counts the function profiledCommands, repeatably with
                        fixed hash seeds:
                          SWIFT_DETERMINISTIC_HASHING=1 \\
                          valgrind --tool=callgrind --collect-atstart=no \\
                            --toggle-collect='*profiledCommands*' \\
                            timeline-bench --profile --sizes 100k --commands 500
      --postgres URL    run measurement 7 alone on the server at URL
                        (postgresql://USER@HOST:PORT/DATABASE); it creates logs
                        named bench-*; one command and the latency take --commands
                        samples, the catch-up reads a log of --records records
      --write-logs DIR  only write the replay logs of --records records into DIR
                        (store.jsonl in the store's layout, hand-written.jsonl as a
                        person writes it), to measure the timeline tool by hand
      -h, --help        show this help

    Exit status: 0 when the benchmark ran (missed targets are reported, not failed),
    1 when a measurement failed, 2 for a usage error.
    """

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    init(arguments: [String]) throws(UsageError) {
        var explicitSizes: [Int]?, explicitRecords: Int?, explicitEvents: Int?, explicitCommands: Int?
        var explicitRepetitions: Int?
        var index = 0
        func value(_ option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(option) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--quick": quick = true
            case "--profile": profile = true
            case "-h", "--help": showHelp = true
            case "--only":
                var chosen = Set<Section>()
                for name in try value(argument).split(separator: ",") {
                    guard let section = Section(rawValue: String(name)) else {
                        throw UsageError(description: "unknown section '\(name)' for --only; expected "
                            + Section.allCases.map(\.rawValue).joined(separator: ", "))
                    }
                    chosen.insert(section)
                }
                sections = chosen
            case "--sizes":
                explicitSizes = try value(argument).split(separator: ",").map { text throws(UsageError) in
                    try Self.number(String(text), for: argument)
                }
            case "--records": explicitRecords = try Self.number(try value(argument), for: argument)
            case "--events": explicitEvents = try Self.number(try value(argument), for: argument)
            case "--commands": explicitCommands = try Self.number(try value(argument), for: argument)
            case "--repetitions": explicitRepetitions = try Self.number(try value(argument), for: argument)
            case "--seed": seed = UInt64(try Self.number(try value(argument), for: argument))
            case "--postgres": postgresURL = try value(argument)
            case "--write-logs": writeLogsDirectory = try value(argument)
            case "--command-child": commandChild = true
            case "--writer-child":
                let path = try value(argument), prefix = try value(argument)
                let count = try Self.number(try value(argument), for: argument)
                let pauseText = try value(argument)
                guard let pause = Int(pauseText), pause >= 0 else {
                    throw UsageError(description: "\(argument): the pause is microseconds, 0 or more, not '\(pauseText)'")
                }
                writerChild = (path, prefix, count, pause)
            case "--tool-child":
                guard index + 1 < arguments.count else { throw UsageError(description: "\(argument) needs a command") }
                toolChild = Array(arguments[(index + 1)...])
                index = arguments.count
                continue
            case "--memory-child":
                let subject = try value(argument)
                memoryChild = (subject, try value(argument))
            default:
                throw UsageError(description: "unknown option '\(argument)'")
            }
            index += 1
        }
        if profile { commandSizes = [1_000_000] }
        if quick { (commandSizes, records, events, commands, repetitions) = ([10_000], 20_000, 20_000, 1_000, 2) }
        commandSizes = explicitSizes ?? commandSizes
        records = explicitRecords ?? records
        events = explicitEvents ?? events
        commands = explicitCommands ?? commands
        repetitions = explicitRepetitions ?? repetitions
        // Each repetition takes seconds at the default sizes.
        guard repetitions <= 20 else { throw UsageError(description: "--repetitions is at most 20, not \(repetitions)") }
    }

    /// `20000`, `20k`, `1M`: a positive count.
    static func number(_ text: String, for option: String) throws(UsageError) -> Int {
        var digits = Substring(text), scale = 1
        if digits.hasSuffix("k") || digits.hasSuffix("K") { scale = 1_000; digits.removeLast() }
        else if digits.hasSuffix("M") || digits.hasSuffix("m") { scale = 1_000_000; digits.removeLast() }
        guard let value = Int(digits), value > 0, value <= Int.max / scale else {
            throw UsageError(description: "\(option) expects a positive number such as 20000, 20k or 1M, not '\(text)'")
        }
        return value * scale
    }
}
