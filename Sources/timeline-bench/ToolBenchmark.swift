import Foundation

/// Measurement 8: the `timeline` executable built beside this program, whole processes on
/// the generated log (median wall time; peak RSS from `wait4`): `add-event` and `rows` from
/// the checkpoint, beside a full replay; `import` and `replay --json` of the hand-written
/// log, beside parsing its lines with `json.loads` and with `JSONSerialization`.
struct ToolBenchmark {
    /// One command's runs: wall times and the largest peak resident size among them.
    struct Runs {
        var times = Samples()
        var peakBytes = 0

        var figure: Figure { Figure(.duration, times) }
        var peakText: String { times.isEmpty ? "—" : String(format: "%.0f MB", Double(peakBytes) / 1e6) }

        mutating func add(_ reading: (nanoseconds: UInt64, peakBytes: Int)) {
            times.append(nanoseconds: reading.nanoseconds)
            peakBytes = max(peakBytes, reading.peakBytes)
        }
    }

    /// A copy of the store's log with the checkpoint that a first `rows` (a full replay)
    /// writes beside it, saved aside to be put back after runs without it.
    struct LogCopy {
        let path: String
        var checkpoint: String { path + ".checkpoint" }
        var rowsArguments: [String] { ["rows", "--log", path, "--timeline", "life", "--now", "2026-12-01"] }

        init(of storePath: String, at path: String, tool: String, log: (String) -> Void, section: String) throws {
            self.path = path
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: storePath, toPath: path)
            log("\(section): a first rows, to write the checkpoint")
            _ = try ToolBenchmark.measure(tool, rowsArguments)
            guard FileManager.default.fileExists(atPath: path + ".checkpoint") else {
                throw BenchFailure("timeline rows wrote no checkpoint beside \(path) on a full replay")
            }
            try? FileManager.default.removeItem(atPath: path + ".saved")
            try FileManager.default.copyItem(atPath: path + ".checkpoint", toPath: path + ".saved")
        }

        func removeCheckpoint() { try? FileManager.default.removeItem(atPath: checkpoint) }

        /// Puts the saved checkpoint back where a full replay did not write it again.
        func restoreCheckpoint() throws {
            if !FileManager.default.fileExists(atPath: checkpoint) { try FileManager.default.copyItem(atPath: path + ".saved", toPath: checkpoint) }
        }
    }

    let tool: String
    let storePath: String
    let handWrittenPath: String
    let directory: TemporaryDirectory
    let records: Int
    let runs: Int
    let log: @Sendable (String) -> Void

    /// The `timeline` executable beside this program, if it was built.
    static func builtTool() -> String? {
        let path = URL(fileURLWithPath: ChildProcess.executable).deletingLastPathComponent().appendingPathComponent("timeline").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    static let title = "The timeline tool's commands, whole processes (medians)"
    static let header = ["command", "figure", "baseline", "ratio", "peak RSS", "bar"]

    static func commandNames(records: Int) -> [String] {
        ["add-event, from the checkpoint (\(Formatting.size(records)) records)", "rows --timeline life, from the checkpoint",
         "import hand-written.jsonl into a new log", "replay hand-written.jsonl --json",
         "replay hand-written.jsonl --json (in-process baseline)"]
    }

    /// The table when the `timeline` executable is not there to measure.
    static func notMeasured(records: Int) -> ReportTable {
        var table = ReportTable(title: title, header: header)
        for name in commandNames(records: records) { table.add([name, "not measured", "—", "—", "—", "—"]) }
        return table
    }

    /// The table, and the runs the in-place goals are judged on.
    struct Measured {
        var table: ReportTable
        var addEvent: Runs
        var rows: Runs
        var imports: Runs
    }

    func run() throws -> Measured {
        let names = Self.commandNames(records: records)
        let at = records >= 1_000_000 ? "" : " (at \(Formatting.size(records)) records)"
        var table = ReportTable(title: Self.title, header: Self.header)
        let copy = try LogCopy(of: storePath, at: directory.file("tool-store.jsonl"), tool: tool, log: log, section: "tool")

        // Each pair of runs: without the checkpoint (the full replay writes a new one), then from it.
        func pair(_ index: Int, _ name: String, _ arguments: (Int) -> [String]) throws -> Runs {
            var fromCheckpoint = Runs(), full = Runs()
            for run in 0..<runs {
                log("tool: \(name), run \(run + 1) of \(runs), without and with the checkpoint")
                copy.removeCheckpoint()
                full.add(try Self.measure(tool, arguments(2 * run)))
                try copy.restoreCheckpoint()
                fromCheckpoint.add(try Self.measure(tool, arguments(2 * run + 1)))
            }
            let met = fromCheckpoint.figure.median <= 500e6 && fromCheckpoint.peakBytes <= 300_000_000
            table.add(Self.row(names[index], fromCheckpoint, baseline: "same, no checkpoint", full,
                               bar: "≤ 500 ms, ≤ 300 MB: " + (met ? "PASS" : "MISS") + at))
            return fromCheckpoint
        }
        let addEvent = try pair(0, "add-event") { number in
            ["add-event", "--log", copy.path, "--timeline", "life", "--title", "Measured \(number)", "--date", "2001-02-03"]
        }
        let rows = try pair(1, "rows") { _ in copy.rowsArguments }

        // Import into a new log each time, replay, and parse only, alternating so that a
        // noisy spell weighs on all three.
        var imports = Runs(), replays = Runs(), pythons = Runs(), serialization = Runs()
        let target = directory.file("tool-import.jsonl")
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        let python = directories.map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        let script = "import json, sys\nfor line in open(sys.argv[1], 'rb'):\n    if line.strip(): json.loads(line)\n"
        let lines = FileWriter.readAll(handWrittenPath).split(separator: 0x0A).map { Data($0) }
            .filter { !$0.allSatisfy { $0 == 0x20 || $0 == 0x0D } }
        for index in 0..<runs {
            log("tool: import and replay --json, run \(index + 1) of \(runs), and parsing only")
            for path in [target, target + ".checkpoint"] { try? FileManager.default.removeItem(atPath: path) }
            imports.add(try Self.measure(tool, ["import", "--log", target, handWrittenPath]))
            replays.add(try Self.measure(tool, ["replay", handWrittenPath, "--json", "--now", "2026-12-01"]))
            if let python { pythons.add(try Self.measure(python, ["-c", script, handWrittenPath])) }
            serialization.times.append(nanoseconds: try MonotonicClock.measure {
                for line in lines { _ = try JSONSerialization.jsonObject(with: line, options: [.fragmentsAllowed]) }
            }.nanoseconds)
        }
        // The import's bar as set, and scaled by this run's `json.loads` parse of the same
        // file (3.6 s when the bar was set): a machine that parses slower this hour imports slower too.
        let importTime = imports.figure.median
        var importBar = "≤ 3 s: " + (importTime <= 3e9 ? "PASS" : "MISS")
        if python != nil, !pythons.times.isEmpty {
            let scaled = 3e9 * pythons.figure.median / 3.6e9
            importBar += "; ≤ \(Formatting.duration(nanoseconds: scaled)) on this run's machine (json.loads 3.6 s when "
                + "the bar was set): " + (importTime <= scaled ? "PASS" : "MISS")
        }
        table.add(Self.row(names[2], imports, baseline: python == nil ? "—" : "python3 json.loads, parse only",
                           python == nil ? nil : pythons, bar: importBar + at))
        if python != nil {
            let met = replays.figure.median <= pythons.figure.median
            table.add(Self.row(names[3], replays, baseline: "python3 json.loads, parse only", pythons,
                               bar: "no slower than json.loads: " + (met ? "PASS" : "MISS")))
        } else {
            table.add([names[3], replays.figure.medianText, "python3 json.loads: not measured (no python3 on the PATH)",
                       "—", replays.peakText, "no slower than json.loads: not judged"])
        }
        table.add([names[4], replays.figure.medianText, "JSONSerialization, parse only: " + serialization.figure.medianText,
                   replays.figure.comparison(with: serialization.figure), "—", "—"])
        return Measured(table: table, addEvent: addEvent, rows: rows, imports: imports)
    }

    private static func row(_ name: String, _ runs: Runs, baseline: String, _ other: Runs?, bar: String) -> [String] {
        let baselineText = other.map { "\(baseline): \($0.figure.medianText), \($0.peakText)" } ?? baseline
        return [name, runs.figure.medianText, baselineText,
                other.map { runs.figure.comparison(with: $0.figure) } ?? "—", runs.peakText, bar]
    }

    /// Runs `executable` with `arguments` from a fresh process of this program
    /// (`--tool-child`), which times it and reads its peak: Linux counts in a process's
    /// peak resident size that of the process it was started from, and this one holds the
    /// generated log; the small one adds only its own few megabytes.
    static func measure(_ executable: String, _ arguments: [String]) throws -> (nanoseconds: UInt64, peakBytes: Int) {
        let text = try ChildProcess.run(["--tool-child", executable] + arguments,
                                        for: ([executable] + arguments).joined(separator: " "))
        let fields = ChildProcess.lastFields(of: text)
        guard let nanoseconds = fields["ns"], let peak = fields["peak"] else {
            throw BenchFailure("the child that ran \(executable) printed no reading: \(text)")
        }
        return (UInt64(nanoseconds), Int(peak))
    }

    /// In the `--tool-child` process: runs the command and prints `ns=… peak=…`.
    static func child(_ command: [String]) throws {
        let reading = try ChildProcess.spawnMeasured(command[0], Array(command.dropFirst()))
        print("ns=\(reading.nanoseconds) peak=\(reading.peakBytes)")
    }
}
