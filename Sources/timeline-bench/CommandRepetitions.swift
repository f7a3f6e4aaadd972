/// The pure pieces of measurement 1 measured again, each time in a fresh process, at
/// other moments of the run: a machine whose neighbours slow it down for seconds at a
/// time would otherwise decide a target from one window of a few milliseconds.
///
/// A repetition sends the same commands to the same rows as the run's own measurement,
/// after as many unmeasured ones (``CommandProfile/measure(rows:commands:warmup:seed:dates:)``), in a child process
/// (``ChildProcess``), so that every repetition starts from the same state whatever the
/// run did before it (the run's own measurement comes after the smaller sizes' and the
/// baselines'). Neighbours can only slow a repetition down, so a target is judged on the
/// fastest repetition's median; every repetition's median is printed beside it.
struct CommandRepetitions {
    /// Each size's median command, one per repetition, the run's own first.
    private(set) var medians: [Int: [Double]] = [:]

    /// Notes the run's own measurement of each size.
    mutating func add(_ medians: [Int: Double]) {
        for (size, median) in medians { self.medians[size, default: []].append(median) }
    }

    /// How many repetitions there are of `size`.
    func count(of size: Int) -> Int { medians[size]?.count ?? 0 }

    /// The fastest repetition's median at `size`.
    func best(of size: Int) -> Double? { medians[size]?.min() }

    /// Each size's medians: the run's own, those of the fresh processes, and the fastest.
    func table(sizes: [Int]) -> ReportTable {
        var table = ReportTable(title: "One command, pure pieces, repeated (medians)",
                                header: ["rows", "with measurement 1", "in fresh processes", "fastest"])
        func text(_ nanoseconds: Double) -> String { Formatting.duration(nanoseconds: nanoseconds) }
        for size in sizes {
            guard let medians = medians[size], let best = best(of: size) else { continue }
            table.add([Formatting.size(size) + " rows", text(medians[0]),
                       medians.dropFirst().map(text).joined(separator: ", "), text(best)])
        }
        return table
    }

    /// Measures every size of `sizes` once more, in a child process.
    mutating func repeatInChild(sizes: [Int], commands: Int, seed: UInt64) throws {
        let arguments = ["--command-child", "--sizes", sizes.map(String.init).joined(separator: ","),
                         "--commands", String(commands), "--seed", String(seed)]
        let text = try ChildProcess.run(arguments, for: "a repetition of measurement 1")
        guard let measured = Self.parse(text), Set(measured.keys) == Set(sizes) else {
            throw ChildProcess.Failure(description: "a repetition of measurement 1 printed no median for every size: \(text)")
        }
        add(measured)
    }

    /// The medians of a child's report, by size: one `rows=… median=…` line per size.
    static func parse(_ text: String) -> [Int: Double]? {
        var medians: [Int: Double] = [:]
        for line in text.split(separator: "\n") {
            let fields = ChildProcess.fields(of: line)
            guard let rows = fields["rows"], let median = fields["median"], rows > 0, median > 0 else { return nil }
            medians[Int(rows)] = median
        }
        return medians.isEmpty ? nil : medians
    }

    /// In the child: the report of one repetition at each of `sizes`.
    static func child(sizes: [Int], commands: Int, seed: UInt64) -> [String] {
        let dates = DatePool(seed: seed)
        return sizes.map { rows in
            let outcome = CommandProfile.measure(rows: rows, commands: commands, warmup: OneCommandBenchmark.pureWarmup,
                                                 seed: seed, dates: dates)
            return "rows=\(rows) median=\(outcome.total.median)"
        }
    }
}
