/// What to measure and at which sizes, from the command line.
struct BenchOptions {
    enum Section: String, CaseIterable {
        case command, replay, open, memory, append, processes, tool, sync, undo, folder
    }

    var quick = false
    var sections = Set(Section.allCases)
    var commandSizes = [10_000, 100_000, 1_000_000]
    var records = 1_000_000
    var events = 1_000_000
    var commands = 3_000
    /// How many times each time target is measured apart: the pure pieces of measurement 1
    /// once in this process, the others in fresh ones (``CommandRepetitions``); the
    /// rebuild and the opening from a checkpoint again later in the run.
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

      1 command  one command (decide, append to an in-memory log, project, change sets for
                 three live views) with N rows present: the pure pieces and the TimelineStore
                 actor (on its own executor, from the main actor and from a task; on the
                 main actor's, from the main actor), beside (a) sorted arrays with
                 binary-search insert/remove and (b) re-sorting and diffing every view, as
                 a fetched-results controller does
      2 replay   parsing and rebuilding a log in the store's layout, and a hand-written
                 style log, beside Foundation's JSONDecoder on the same lines
      3 open     opening a TimelineStore on a log file (full replay)
      4 memory   peak resident bytes per event of a store (in a child process), beside
                 the same rows held in plain sorted arrays
      5 append   durable appends through FileEventLog, beside raw write + fsync
      6 processes  a log shared by processes: the time from a send returning in one
                 process to the change set arriving in another, beside re-reading the
                 file every 10 ms; one durable send while another process follows,
                 beside nobody following; two writer processes' commands per second,
                 beside one
      7 postgres only with --postgres URL, in a build with `--traits PostgreSQL`, and run
                 alone: the event log on PostgreSQL beside the file log (one command,
                 batches of 1,000, catch-up reading of --records records, append-to-
                 notification latency across connections, NOTIFY's commit queue with
                 1, 4 and 8 logs appending at once)
      8 tool     the timeline executable built beside this program, whole processes on
                 the replay log (median wall time of 3 runs, the largest peak resident
                 size among them from wait4): add-event and rows --timeline life on the
                 store's log from its checkpoint, beside the same without it (a full
                 replay); import of the hand-written log into a new log; replay --json
                 of the hand-written log beside parsing its lines only, with python3's
                 json.loads (when python3 is on the PATH) and with JSONSerialization
                 in this process. Build the tool first: swift build -c release
      9 sync     replicas of a shared file log: a send on a replica beside a send on a
                 plain log; deciding 1,000 pending submissions again beside deciding
                 them once; pushing 1,000 pending submissions in one sync beside 1,000
                 durable appends; a fresh clone of the replay log beside reading it once
     10 undo     undo and redo of the command just sent, with the largest of --sizes
                 rows, beside the send of the command itself, alternated; the timeline
                 executable's history --event of one event on the replay log with its
                 checkpoint, beside rows --timeline life from the checkpoint and
                 without it (needs the tool, as 8 does)
     11 folder   folder mode: the sequencer deciding 1,000 submissions from a folder
                 beside a replica pushing them to a file log; a clone of a folder
                 publishing 100k records beside a clone of the same file log; a sealed
                 segment arriving → the change set on a following replica beside a
                 plain send → the change set on a follower

    OPTIONS:
      --quick           small sizes, for CI: 10k rows, 20k records, 20k events, fewer
                        samples; finishes in seconds
      --only LIST       comma-separated sections to run: command, replay, open, memory,
                        append, processes, tool, sync, undo, folder (default: all)
      --sizes LIST      rows present for the one-command measurement (the undo
                        measurement takes the largest)
                        (default 10k,100k,1M; with --quick 10k); k and M suffixes allowed
      --records N       records in the replay and open log (default 1M; --quick 20k)
      --events N        events in the store whose memory is measured (default 1M; --quick 20k)
      --commands N      measured commands per path and size, at most (default 3000;
                        --quick 1000); slow paths stop earlier on a time budget
      --repetitions N   times each time target is measured (default 3; --quick 2; at
                        most 20): one command's pure pieces with the rest of measurement
                        1, then in a fresh process after each later section; the rebuild
                        and the opening from a checkpoint with their sections, then once
                        after each section after theirs (any left over run at the end,
                        one after another). Neighbours on a shared machine can only slow
                        a run down, so a time target is judged on its fastest run; every
                        run is counted in the output
      --seed N          seed of the random workload (default 42)
      --profile         only the pure pieces of measurement 1, without the store and the
                        baselines, at each of --sizes (default 1M): one line each, the
                        median command and stages. For comparing two builds, alternate
                        runs of each pinned to one core (taskset -c 1); for callgrind, the
                        measured loop is the function profiledCommands, and fixed hash
                        seeds make the count repeat from run to run:
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
        if profile {
            commandSizes = [1_000_000]
        }
        if quick {
            commandSizes = [10_000]
            records = 20_000
            events = 20_000
            commands = 1_000
            repetitions = 2
        }
        commandSizes = explicitSizes ?? commandSizes
        records = explicitRecords ?? records
        events = explicitEvents ?? events
        commands = explicitCommands ?? commands
        repetitions = explicitRepetitions ?? repetitions
        guard repetitions <= Self.maximumRepetitions else {
            throw UsageError(description: "--repetitions is at most \(Self.maximumRepetitions), not \(repetitions)")
        }
    }

    /// The most repetitions: each takes seconds at the default sizes.
    static let maximumRepetitions = 20

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
