import TimelineCore

/// Measurement 5: durable appends through `FileEventLog` — the latency of appending one
/// command's facts (one write, one fsync), and the throughput of batches of 1,000
/// commands — beside the same bytes written and fsynced through the C library.
///
/// The two alternate sample by sample, so that a slow moment of the disk hits both.
struct DurableAppendBenchmark {
    struct Result {
        let single: Figure
        let singleRaw: Figure
        let batch: Figure
        let batchRaw: Figure
    }

    static let batchSize = 1_000

    let directory: TemporaryDirectory
    let seed: UInt64
    let dates: DatePool
    let singles: Int
    let batches: Int
    let log: @Sendable (String) -> Void

    func run() throws -> Result {
        let eventLog = try FileEventLog(path: directory.file("durable.jsonl"))
        defer { eventLog.close() }
        let raw = RawAppendFile(path: directory.file("raw.jsonl"))
        var model = WorkloadModel(seed: seed &+ 5, dates: dates)
        let encoder = RecordEncoder()
        let at = DateValue(utc: BenchViews.now)
        for command in model.createPermanentTimelines() {
            _ = try eventLog.append(CommandFacts.facts(of: command), options: AppendOptions(recordedAt: at))
        }
        /// The bytes FileEventLog writes for `commands`, for the raw baseline.
        func lines(_ commands: [Command]) -> [UInt8] {
            var bytes: [UInt8] = []
            for record in CommandFacts.records(of: commands, firstPosition: eventLog.position + 1, recordedAt: at) {
                encoder.encode(record, into: &bytes)
            }
            return bytes
        }

        log("durable appends: one command at a time")
        var single = Samples(), singleRaw = Samples()
        for index in 0..<singles {
            let command = model.next(.interactive)
            let facts = CommandFacts.facts(of: command)
            let bytes = lines([command])
            let ours = { () throws(EventLogError) in
                single.append(nanoseconds: try MonotonicClock.measure { () throws(EventLogError) in
                    try eventLog.append(facts, options: AppendOptions(recordedAt: at))
                }.nanoseconds)
            }
            let theirs = { singleRaw.append(nanoseconds: MonotonicClock.measure { raw.appendDurably(bytes) }.nanoseconds) }
            if index % 2 == 0 { try ours(); theirs() } else { theirs(); try ours() }
        }

        log("durable appends: batches of \(Self.batchSize) commands")
        var batch = Samples(), batchRaw = Samples()
        for index in 0..<batches {
            let commands = (0..<Self.batchSize).map { _ in model.next(.interactive) }
            let facts = commands.flatMap(CommandFacts.facts(of:))
            let bytes = lines(commands)
            let ours = { () throws(EventLogError) in
                let time = try MonotonicClock.measure { () throws(EventLogError) in
                    try eventLog.append(facts, options: AppendOptions(recordedAt: at))
                }.nanoseconds
                batch.append(Double(facts.count) / (Double(time) / 1e9))
            }
            let theirs = {
                let time = MonotonicClock.measure { raw.appendDurably(bytes) }.nanoseconds
                batchRaw.append(Double(facts.count) / (Double(time) / 1e9))
            }
            if index % 2 == 0 { try ours(); theirs() } else { theirs(); try ours() }
        }
        return Result(single: Figure(.duration, single), singleRaw: Figure(.duration, singleRaw),
                      batch: Figure(.rate, batch), batchRaw: Figure(.rate, batchRaw))
    }
}
