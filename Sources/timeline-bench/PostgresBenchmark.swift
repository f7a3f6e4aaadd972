#if PostgreSQL
import Dispatch
import Foundation
import Synchronization
import TimelineCore
import TimelineKit
import TimelinePostgres

/// Measurement 7 (`--postgres URL`, with the trait `PostgreSQL`): the event log on
/// PostgreSQL beside the file log, on the same commands: one command, batches, catch-up
/// reading, store opening, a replica's push, append-to-notification latency across
/// connections, and what `NOTIFY`'s commit queue costs with 1, 4 and 8 logs at once.
struct PostgresBenchmark {
    let url: String
    let directory: TemporaryDirectory
    let seed: UInt64
    let dates: DatePool
    let singles: Int
    let batches: Int
    let records: Int
    let log: @Sendable (String) -> Void

    static let batchSize = 1_000

    /// The URL of a log of this run's own.
    private func logURL(_ name: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "log=bench-\(name)-\(UInt32.random(in: 0...UInt32.max))"
    }

    func run() throws -> String {
        let at = DateValue(utc: BenchViews.now)
        let database = try PostgresEventLog(url: logURL("append"))
        defer { database.close() }
        let file = try FileEventLog(path: directory.file("durable.jsonl"))
        defer { file.close() }
        var model = WorkloadModel(seed: seed &+ 6, dates: dates)
        for command in model.createPermanentTimelines() {
            let facts = CommandFacts.facts(of: command)
            _ = try database.append(facts, options: AppendOptions(recordedAt: at))
            _ = try file.append(facts, options: AppendOptions(recordedAt: at))
        }
        var table = ReportTable(title: "The event log on PostgreSQL beside the file log",
                                header: ["measurement", "PostgreSQL", "spread", "file log", "spread", "ratio", "goal"])

        log("postgres: one command at a time")
        var single = Samples(), singleFile = Samples()
        for index in 0..<singles {
            let facts = CommandFacts.facts(of: model.next(.interactive))
            try alternately(index, { () throws(EventLogError) in single.append(nanoseconds: try database.timedAppend(facts, at: at)) },
                            { () throws(EventLogError) in singleFile.append(nanoseconds: try file.timedAppend(facts, at: at)) })
        }
        table.add("one command, durable", Figure(.duration, single), Figure(.duration, singleFile), goal: "≤ 1 ms")

        log("postgres: batches of \(Self.batchSize) commands")
        var batch = Samples(), batchFile = Samples()
        for index in 0..<batches {
            let facts = (0..<Self.batchSize).flatMap { _ in CommandFacts.facts(of: model.next(.interactive)) }
            try alternately(index, { () throws(EventLogError) in
                batch.append(rate: facts.count, nanoseconds: try database.timedAppend(facts, at: at))
            }, { () throws(EventLogError) in
                batchFile.append(rate: facts.count, nanoseconds: try file.timedAppend(facts, at: at))
            })
        }
        table.add("batches of 1,000 commands", Figure(.rate, batch), Figure(.rate, batchFile), goal: "≥ 50k records/s")

        let (catchUp, catchUpFile, filled, logs) = try measureCatchUp(at: at)
        table.add("catch-up reading of \(Formatting.count(filled)) records", Figure(.rate, catchUp),
                  Figure(.rate, catchUpFile), goal: "≥ 300k records/s")
        log("postgres: opening a store, whole and from a checkpoint")
        let opening = try measureStoreOpening(databaseURL: logs.database, filePath: logs.file)
        table.add("store opening on \(Formatting.count(filled)) records, whole log", Figure(.duration, opening.whole),
                  Figure(.duration, opening.wholeFile), goal: "—")
        table.add("store opening from a checkpoint", Figure(.duration, opening.resumed),
                  Figure(.duration, opening.resumedFile), goal: "—")

        log("postgres: pushing \(Self.batchSize) pending submissions of a replica in one sync")
        let (push, pushFile) = try measurePush()
        table.add("a replica pushing 1,000 pending submissions, one sync", Figure(.rate, push), Figure(.rate, pushFile),
                  goal: "≥ 5k/s")

        log("postgres: append-to-notification latency across connections")
        let latency = try measureNotificationLatency(model: &model, at: at)
        table.add(["append → notified follower has read it (across connections)", Figure(.duration, latency).medianText,
                   Figure(.duration, latency).spreadText, "—", "", "", "p99 ≤ 5 ms"])

        var queue = ReportTable(
            title: "What NOTIFY's commit queue costs: one command at a time on several logs at once (latency; commands/s of all)",
            header: ["logs at once", "NOTIFY after the commit (the log's way)", "NOTIFY in the transaction",
                     "no NOTIFY", "after vs in"])
        for logs in [1, 4, 8] {
            log("postgres: \(logs) logs at once: NOTIFY after the commit, in the transaction, none")
            let after = try measureConcurrentLogs(logs, notifying: .afterCommit, at: at)
            let inside = try measureConcurrentLogs(logs, notifying: .inTransaction, at: at)
            let none = try measureConcurrentLogs(logs, notifying: .never, at: at)
            func cell(_ result: (latencies: Samples, rate: Double)) -> String {
                let figure = Figure(.duration, result.latencies)
                return figure.medianText + " (" + figure.spreadText + "); " + Formatting.rate(perSecond: result.rate)
            }
            queue.add([String(logs), cell(after), cell(inside), cell(none),
                       Figure(.duration, after.latencies).comparison(with: Figure(.duration, inside.latencies))])
        }
        return table.rendered + "\n" + queue.rendered
    }

    /// A replica of a shared log with 1,000 pending submissions (one command each), synced
    /// once: submissions decided per second, on PostgreSQL (one transaction) and on a file
    /// log (one write and fsync), each replica made and filled the same way.
    private func measurePush() throws -> (Samples, Samples) {
        var timelines = WorkloadModel(seed: seed &+ 6, dates: dates)
        let created = timelines.createPermanentTimelines()
        guard case .createTimeline(let timeline, _)? = created.first else { return (Samples(), Samples()) }
        let date = try DateValue(parsing: "2001-02-03")
        let commands = (0..<Self.batchSize).map { index in
            Command.addEvent(EventID("push-\(index)"), timeline: timeline, title: "Pushed \(index)", dates: .single(date))
        }
        func push(to log: any EventLog, shared: String, replica: String) throws -> Samples {
            var random = SystemRandomNumberGenerator()
            let storage = try FileReplicaStorage.create(
                path: replica, device: DeviceID.make(at: BenchViews.now, using: &random), shared: shared)
            var engine = try ReplicaSync(storage: storage, sharedName: shared)
            _ = try engine.sync(with: log, now: { nil })
            for (index, command) in commands.enumerated() {
                _ = try engine.send([command], madeAt: nil, nonce: "n\(index)")
            }
            let time = try MonotonicClock.measure { () throws(ReplicaError) in _ = try engine.sync(with: log, now: { nil }) }
            var rate = Samples()
            rate.append(rate: commands.count, nanoseconds: time.nanoseconds)
            return rate
        }
        let sharedURL = logURL("push")
        let database = try PostgresEventLog(url: sharedURL)
        defer { database.close() }
        let filePath = directory.file("push-shared.jsonl")
        let file = try FileEventLog(path: filePath)
        defer { file.close() }
        for command in created {
            _ = try database.append(CommandFacts.facts(of: command), options: AppendOptions())
            _ = try file.append(CommandFacts.facts(of: command), options: AppendOptions())
        }
        return (try push(to: database, shared: sharedURL, replica: directory.file("push-pg.jsonl")),
                try push(to: file, shared: filePath, replica: directory.file("push-file.jsonl")))
    }

    /// Fills a log of its own to `records` records (batches of 1,000) and a file log with
    /// the same records, then reads each from position 0 several times.
    private func measureCatchUp(at: DateValue) throws
        -> (Samples, Samples, Int, (database: String, file: String)) {
        let databaseURL = logURL("catch-up")
        let database = try PostgresEventLog(url: databaseURL)
        defer { database.close() }
        let file = try FileEventLog(path: directory.file("catch-up.jsonl"))
        defer { file.close() }
        // A workload of its own, from its own timelines: a store opens on this log later,
        // so every record must hold in it alone.
        var model = WorkloadModel(seed: seed &+ 7, dates: dates)
        let timelines = model.createPermanentTimelines().flatMap { CommandFacts.facts(of: $0) }
        _ = try database.append(timelines, options: AppendOptions(recordedAt: at))
        _ = try file.append(timelines, options: AppendOptions(recordedAt: at))
        log("postgres: filling a log of \(Formatting.count(records)) records")
        while database.position < Int64(records) {
            var facts: [Fact] = []
            while facts.count < min(Self.batchSize, records - Int(database.position)) {
                facts += CommandFacts.facts(of: model.next(.interactive))
            }
            _ = try database.append(facts, options: AppendOptions(recordedAt: at))
            _ = try file.append(facts, options: AppendOptions(recordedAt: at))
        }
        log("postgres: catch-up reading")
        var ours = Samples(), theirs = Samples()
        for round in 0..<6 {
            func read(_ log: any EventLog, into samples: inout Samples) throws(EventLogError) {
                var count = 0
                let time = try MonotonicClock.measure { () throws(EventLogError) in
                    try log.forEachChunk(after: 0) { chunk in
                        count += chunk.count
                        return true
                    }
                }.nanoseconds
                samples.append(rate: count, nanoseconds: time)
            }
            try alternately(round, { () throws(EventLogError) in try read(database, into: &ours) },
                            { () throws(EventLogError) in try read(file, into: &theirs) })
        }
        return (ours, theirs, Int(database.position), (databaseURL, directory.file("catch-up.jsonl")))
    }

    /// Opens a store with the default view on the filled logs: once replaying the whole
    /// log (its close writes the checkpoint), then three times from that checkpoint.
    private func measureStoreOpening(databaseURL: String, filePath: String) throws
        -> (whole: Samples, resumed: Samples, wholeFile: Samples, resumedFile: Samples) {
        let clock = ManualClock(BenchViews.now)
        func open(_ makeLog: () throws -> any EventLog, checkpoint: String) throws -> (Samples, Samples) {
            var whole = Samples(), resumed = Samples()
            for round in 0..<4 {
                let log = try makeLog()
                var store: TimelineStore?
                let time = try MonotonicClock.measure { () throws(StoreError) in
                    store = try TimelineStore(log: log, checkpointPath: checkpoint, clock: clock)
                }.nanoseconds
                guard let opened = store, (round == 0) == (opened.openingReport.checkpointPosition == nil) else {
                    throw BenchFailure("round \(round) of opening a store did not open as expected: "
                        + "\(store?.openingReport.checkpointProblem ?? "no report")")
                }
                if round == 0 { whole.append(nanoseconds: time) } else { resumed.append(nanoseconds: time) }
                try OpenStoreBenchmark.blocking { try await opened.close() }
            }
            return (whole, resumed)
        }
        let (whole, resumed) = try open({ try PostgresEventLog(url: databaseURL) },
                                        checkpoint: directory.file("postgres.checkpoint"))
        let (wholeFile, resumedFile) = try open({ try FileEventLog(path: filePath) },
                                                checkpoint: directory.file("file-log.checkpoint"))
        return (whole, resumed, wholeFile, resumedFile)
    }

    /// Appends one command at a time on one connection while a follower on another listens;
    /// each sample is from the append's start until the follower has read the record.
    private func measureNotificationLatency(model: inout WorkloadModel, at: DateValue) throws -> Samples {
        let name = logURL("latency")
        let writer = try PostgresEventLog(url: name)
        defer { writer.close() }
        let follower = try PostgresEventLog(url: name)
        defer { follower.close() }
        let seen = Mutex<(position: Int64, time: UInt64)>((0, 0))
        let arrived = DispatchSemaphore(value: 0)
        let watch = try follower.watch {
            guard let last = try? follower.records(after: seen.withLock { $0.position }).last else { return }
            let now = MonotonicClock.now()
            seen.withLock { $0 = (last.position, now) }
            arrived.signal()
        }
        defer { watch.cancel() }
        var samples = Samples()
        for _ in 0..<singles {
            let facts = CommandFacts.facts(of: model.next(.interactive))
            let start = MonotonicClock.now()
            let position = try writer.append(facts, options: AppendOptions(recordedAt: at)).records.last!.position
            while seen.withLock({ $0.position }) < position {
                if arrived.wait(timeout: .now() + 10) == .timedOut { throw BenchFailure("no notification in 10 s") }
            }
            samples.append(nanoseconds: seen.withLock { $0.time } - start)
        }
        return samples
    }

    /// `logs` threads, each with a connection and a log of its own, append one command at
    /// a time for a while; the latency of each append and the commands per second of all.
    private func measureConcurrentLogs(_ logs: Int, notifying: PostgresEventLog.Notifying, at: DateValue) throws
        -> (latencies: Samples, rate: Double) {
        let perThread = max(50, singles / 2)
        let facts = [Fact.timelineCreated(timeline: "t", name: "T")]
        let opened = try (0..<logs).map { _ in try PostgresEventLog(url: logURL("queue"), notifying: notifying) }
        defer { for log in opened { log.close() } }
        let latencies = Mutex<[Double]>([])
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        let start = MonotonicClock.now()
        for log in opened {
            group.enter()
            Thread.detachNewThread {
                var mine: [Double] = []
                do {
                    for _ in 0..<perThread {
                        mine.append(Double(try log.timedAppend(facts, at: at)))
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
                latencies.withLock { $0 += mine }
                group.leave()
            }
        }
        group.wait()
        let elapsed = Double(MonotonicClock.now() - start) / 1e9
        if let failure = failures.withLock({ $0.first }) { throw BenchFailure(failure) }
        let all = latencies.withLock { $0 }
        return (Samples(all), Double(all.count) / elapsed)
    }
}

extension ReportTable {
    /// A row of the PostgreSQL table: the figure, the file log's, the ratio and the goal.
    fileprivate mutating func add(_ name: String, _ ours: Figure, _ file: Figure, goal: String) {
        add([name, ours.medianText, ours.spreadText, file.medianText, file.spreadText, ours.comparison(with: file), goal])
    }
}
#endif
