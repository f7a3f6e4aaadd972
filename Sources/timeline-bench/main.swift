import Foundation

// timeline-bench: speed and memory of the timeline core, each beside a baseline measured
// in the same run. See `--help`.

let options: BenchOptions
do {
    options = try BenchOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    StandardError.write("timeline-bench: \(error)\n\n\(BenchOptions.usage)")
    exit(2)
}

if options.showHelp {
    print(BenchOptions.usage)
    exit(0)
}

if let url = options.postgresURL {
    #if PostgreSQL
    let directory = TemporaryDirectory()
    do {
        let benchmark = PostgresBenchmark(
            url: url, directory: directory, seed: options.seed, dates: DatePool(seed: options.seed),
            singles: options.commands, batches: options.quick ? 5 : 20, records: options.records,
            log: { StandardError.write("timeline-bench: \($0)") })
        print(try benchmark.run())
    } catch {
        directory.remove()
        StandardError.write("timeline-bench: \(error)")
        exit(1)
    }
    directory.remove()
    exit(0)
    #else
    StandardError.write("timeline-bench: --postgres needs a build with PostgreSQL support: "
        + "swift build -c release --traits PostgreSQL (needs libpq: apt-get install libpq-dev)")
    exit(2)
    #endif
}

if let directory = options.writeLogsDirectory {
    let log = GeneratedLog.history(records: options.records, seed: options.seed, dates: DatePool(seed: options.seed),
                                   storePath: directory + "/store.jsonl", handWrittenPath: directory + "/hand-written.jsonl")
    print("\(directory)/store.jsonl: \(Formatting.count(log.records)) records, \(Formatting.count(log.bytes)) bytes, "
        + "\(Formatting.count(log.events)) events alive; mix: \(log.mixDescription)")
    print("\(directory)/hand-written.jsonl: the same records as a person writes them")
    exit(0)
}

if options.profile {
    for line in CommandProfile.run(sizes: options.commandSizes, commands: options.commands, seed: options.seed) {
        print(line)
    }
    exit(0)
}

if options.commandChild {
    for line in CommandRepetitions.child(sizes: options.commandSizes, commands: options.commands, seed: options.seed) {
        print(line)
    }
    exit(0)
}

if let child = options.writerChild {
    do { try await ProcessBenchmark.child(path: child.path, prefix: child.prefix, count: child.count, pause: child.pause) } catch {
        StandardError.write("timeline-bench: \(error)")
        exit(1)
    }
    exit(0)
}

if let command = options.toolChild {
    do { try ToolBenchmark.child(command) } catch {
        StandardError.write("timeline-bench: \(error)")
        exit(1)
    }
    exit(0)
}

if let child = options.memoryChild {
    guard let subject = MemoryBenchmark.Subject(rawValue: child.subject) else {
        StandardError.write("timeline-bench: unknown memory subject '\(child.subject)'")
        exit(2)
    }
    do { try await MemoryBenchmark.child(subject, path: child.path) } catch {
        StandardError.write("timeline-bench: \(error)")
        exit(1)
    }
    exit(0)
}

do {
    try await BenchmarkRun(options: options).run()
} catch {
    StandardError.write("timeline-bench: \(error)")
    exit(1)
}
