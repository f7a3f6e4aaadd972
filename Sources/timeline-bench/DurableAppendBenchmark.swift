import TimelineCore

/// Measurement 5: durable appends through `FileEventLog` — the latency of appending one
/// command's facts (one write, one fsync), and the throughput of batches of 1,000
/// commands — beside the same bytes written and fsynced through the C library, the two
/// alternated sample by sample so that a slow moment of the disk hits both.
struct DurableAppendBenchmark {
    struct Result {
        let single: Figure
        let singleRaw: Figure
        let batch: Figure
        let batchRaw: Figure
    }

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
        /// Appends `commands` both ways, alternated by `index`: the nanoseconds of each.
        func append(_ commands: [Command], index: Int) throws -> (ours: UInt64, raw: UInt64, records: Int) {
            var bytes: [UInt8] = []
            for record in CommandFacts.records(of: commands, firstPosition: eventLog.position + 1, recordedAt: at) {
                encoder.encode(record, into: &bytes)
            }
            let facts = commands.flatMap(CommandFacts.facts(of:))
            var ours: UInt64 = 0, theirs: UInt64 = 0
            try alternately(index, { () throws(EventLogError) in ours = try eventLog.timedAppend(facts, at: at) },
                            { () throws(EventLogError) in theirs = MonotonicClock.measure { raw.appendDurably(bytes) }.nanoseconds })
            return (ours, theirs, facts.count)
        }

        log("durable appends: one command at a time")
        var single = Samples(), singleRaw = Samples()
        for index in 0..<singles {
            let times = try append([model.next(.interactive)], index: index)
            single.append(nanoseconds: times.ours)
            singleRaw.append(nanoseconds: times.raw)
        }
        log("durable appends: batches of 1000 commands")
        var batch = Samples(), batchRaw = Samples()
        for index in 0..<batches {
            let times = try append((0..<1_000).map { _ in model.next(.interactive) }, index: index)
            batch.append(rate: times.records, nanoseconds: times.ours)
            batchRaw.append(rate: times.records, nanoseconds: times.raw)
        }
        return Result(single: Figure(.duration, single), singleRaw: Figure(.duration, singleRaw),
                      batch: Figure(.rate, batch), batchRaw: Figure(.rate, batchRaw))
    }
}
