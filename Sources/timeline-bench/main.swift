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

/// Runs `body` and exits: 0, or 1 with the error on standard error.
func exitAfter(_ body: () async throws -> Void) async -> Never {
    do { try await body() } catch {
        StandardError.write("timeline-bench: \(error)")
        exit(1)
    }
    exit(0)
}

if options.showHelp {
    print(BenchOptions.usage)
    exit(0)
}
if let url = options.postgresURL {
    #if PostgreSQL
    let directory = TemporaryDirectory()
    await exitAfter {
        defer { directory.remove() }
        print(try PostgresBenchmark(
            url: url, directory: directory, seed: options.seed, dates: DatePool(seed: options.seed),
            singles: options.commands, batches: options.quick ? 5 : 20, records: options.records,
            log: { StandardError.write("timeline-bench: \($0)") }).run())
    }
    #else
    StandardError.write("timeline-bench: --postgres needs a build with PostgreSQL support: "
        + "swift build -c release --traits PostgreSQL (needs libpq: apt-get install libpq-dev)")
    exit(2)
    #endif
}
if let directory = options.writeLogsDirectory {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
        StandardError.write("timeline-bench: --write-logs \(directory): no such directory (make it first: mkdir -p \(directory))")
        exit(2)
    }
    let log = GeneratedLog.history(records: options.records, seed: options.seed, dates: DatePool(seed: options.seed),
                                   storePath: directory + "/store.jsonl", handWrittenPath: directory + "/hand-written.jsonl")
    print("\(directory)/store.jsonl: \(Formatting.count(log.records)) records, \(Formatting.count(log.bytes)) bytes, "
        + "\(Formatting.count(log.events)) events alive; mix: \(log.mixDescription)")
    print("\(directory)/hand-written.jsonl: the same records as a person writes them")
    exit(0)
}
if options.profile || options.commandChild {
    let run = options.profile ? CommandProfile.run(sizes:commands:seed:) : CommandProfile.child(sizes:commands:seed:)
    for line in run(options.commandSizes, options.commands, options.seed) { print(line) }
    exit(0)
}
if let child = options.writerChild {
    await exitAfter { try await ProcessBenchmark.child(path: child.path, prefix: child.prefix, count: child.count, pause: child.pause) }
}
if let command = options.toolChild {
    await exitAfter { try ToolBenchmark.child(command) }
}
if let child = options.memoryChild {
    guard let subject = MemoryBenchmark.Subject(rawValue: child.subject) else {
        StandardError.write("timeline-bench: unknown memory subject '\(child.subject)'")
        exit(2)
    }
    await exitAfter { try await MemoryBenchmark.child(subject, path: child.path) }
}
await exitAfter { try await BenchmarkRun(options: options).run() }
