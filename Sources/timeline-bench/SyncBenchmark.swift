import TimelineCore
import TimelineKit
import Foundation

/// Measurement 9: replicas of a shared file log, each beside a plain-log baseline: a send;
/// deciding pending submissions again (the rebase); pushing them in one sync; a sync → the
/// change set on a follower; a fresh clone, beside reading the log once.
struct SyncBenchmark {
    /// The start of every shared log of measurements 9 and 11: a timeline and 1,000 events.
    static let setup: [Command] = [.createTimeline("life", name: "Life")] + (0..<1_000).map { k in
        .addEvent(EventID("e\(k)"), timeline: "life", title: "Event \(k)", dates: .single(try! DateValue(parsing: "2000")))
    }

    /// Writes ``setup`` into a log at each of `paths`.
    static func setUp(_ paths: [String], clock: ManualClock) async throws {
        for path in paths {
            let store = try TimelineStore(path: path, clock: clock)
            try await store.send(setup)
            try await store.close()
        }
    }

    /// Removes a replica's files.
    static func removeReplica(_ path: String) {
        for suffix in ["", ".replica", ".queue"] { DurableFile.remove(path + suffix) }
    }

    struct Result {
        let replicaSend: Figure
        let plainSend: Figure
        let rebase: Figure
        let rebaseBaseline: Figure
        let push: Figure
        let pushBaseline: Figure
        let clone: Figure
        let cloneBaseline: Figure
        let cloneRecords: Int
        let pending: Int
        let syncToChange: Figure
        let sendToChange: Figure
    }

    let directory: TemporaryDirectory
    /// A log of many records to clone (the replay section's, in the store's layout).
    let bigLog: String
    let bigLogRecords: Int
    let sends: Int
    let pending: Int
    let log: @Sendable (String) -> Void

    func run() async throws -> Result {
        let shared = directory.file("sync-shared.jsonl"), plain = directory.file("sync-plain.jsonl")
        let clock = ManualClock(BenchViews.now)
        try await Self.setUp([shared, plain], clock: clock)
        let plainStore = try TimelineStore(path: plain, clock: clock)
        let replica = try await TimelineReplica.clone(try FileEventLog(path: shared), shared: shared,
                                                      to: directory.file("sync-replica.jsonl"), clock: clock)

        log("sync: a send on a replica beside a send on a plain log")
        var replicaSend = Samples(), plainSend = Samples()
        for index in 0..<sends {
            let command = Command.retitleEvent(EventID("e\(index % 1_000)"), title: "Title \(index)")
            let start = MonotonicClock.now()
            if index % 2 == 0 {
                _ = try await replica.send([command])
                replicaSend.append(nanoseconds: MonotonicClock.now() - start)
                let other = MonotonicClock.now()
                try await plainStore.send(command)
                plainSend.append(nanoseconds: MonotonicClock.now() - other)
            } else {
                try await plainStore.send(command)
                plainSend.append(nanoseconds: MonotonicClock.now() - start)
                let other = MonotonicClock.now()
                _ = try await replica.send([command])
                replicaSend.append(nanoseconds: MonotonicClock.now() - other)
            }
        }
        try await plainStore.close()

        log("sync: deciding \(pending) pending submissions again on top of the mirror")
        let device = await replica.device
        var queue = ReplicaQueue(device: device)
        var state = DomainState()
        for fact in try Decider.decide(Self.setup, DomainState()) { state.apply(fact) }
        let commands = (0..<pending).map { k in Command.retitleEvent(EventID("e\(k % 1_000)"), title: "Pending \(k)") }
        for command in commands { _ = queue.submit([command], basePosition: 0, nonce: "n", madeAt: nil) }
        var rebase = Samples(), rebaseBaseline = Samples()
        for _ in 0..<(sends > 100 ? 30 : 8) {
            rebase.append(nanoseconds: MonotonicClock.measure { queue.tentativeFacts(on: state) }.nanoseconds)
            rebaseBaseline.append(nanoseconds: MonotonicClock.measure {
                var facts: [Fact] = []
                for command in commands { facts += (try? Decider.decide(command, state)) ?? [] }
                return facts
            }.nanoseconds)
        }

        log("sync: pushing \(pending) pending submissions in one sync")
        let pusher = try await TimelineReplica.clone(try FileEventLog(path: shared), shared: shared,
                                                     to: directory.file("sync-pusher.jsonl"), clock: clock)
        for command in commands { _ = try await pusher.send([command]) }
        let sharedLog = try FileEventLog(path: shared)
        let pushTime = try await MonotonicClock.measureAsync { _ = try await pusher.sync(with: sharedLog) }
        var push = Samples(), pushBaseline = Samples()
        push.append(rate: pending, nanoseconds: pushTime)
        let appendTime = try MonotonicClock.measure { () throws(EventLogError) in
            for command in commands {
                _ = try sharedLog.append(CommandFacts.facts(of: command), options: AppendOptions())
            }
        }.nanoseconds
        pushBaseline.append(rate: pending, nanoseconds: appendTime)
        sharedLog.close()

        log("sync: a sync on one device → the change set on a store that follows the shared log")
        var syncToChange = Samples(), sendToChange = Samples()
        do {
            let follower = try TimelineStore(path: shared, clock: clock)
            let writer = try TimelineStore(path: shared, clock: clock)
            let device = try await TimelineReplica.clone(try FileEventLog(path: shared), shared: shared,
                                                         to: directory.file("sync-device.jsonl"), clock: clock)
            let connection = try FileEventLog(path: shared)
            var changes = await follower.changes(ViewDefinition()).makeAsyncIterator()
            _ = await changes.next()  // the first reset
            for index in 0..<(sends > 100 ? 40 : 8) {
                let command = Command.retitleEvent(EventID("e\(index)"), title: "Followed \(index)")
                if index % 2 == 0 {
                    _ = try await device.send([command])
                    let start = MonotonicClock.now()
                    _ = try await device.sync(with: connection)
                    _ = await changes.next()
                    syncToChange.append(nanoseconds: MonotonicClock.now() - start)
                } else {
                    let start = MonotonicClock.now()
                    try await writer.send(command)
                    _ = await changes.next()
                    sendToChange.append(nanoseconds: MonotonicClock.now() - start)
                }
            }
            connection.close()
            await writer.release()
            await follower.release()
        }

        log("sync: a fresh clone of \(Formatting.count(bigLogRecords)) records")
        var clone = Samples(), cloneBaseline = Samples()
        for run in 0..<2 {
            let target = directory.file("sync-clone-\(run).jsonl")
            let time = try await MonotonicClock.measureAsync {
                _ = try await TimelineReplica.clone(try FileEventLog(path: bigLog), shared: bigLog, to: target, clock: clock)
            }
            clone.append(rate: bigLogRecords, nanoseconds: time)
            let read = try MonotonicClock.measure { () throws(EventLogError) in try FileEventLog(path: bigLog).close() }
            cloneBaseline.append(rate: bigLogRecords, nanoseconds: read.nanoseconds)
            Self.removeReplica(target)
        }
        return Result(replicaSend: Figure(.duration, replicaSend), plainSend: Figure(.duration, plainSend),
                      rebase: Figure(.duration, rebase), rebaseBaseline: Figure(.duration, rebaseBaseline),
                      push: Figure(.rate, push), pushBaseline: Figure(.rate, pushBaseline),
                      clone: Figure(.rate, clone), cloneBaseline: Figure(.rate, cloneBaseline),
                      cloneRecords: bigLogRecords, pending: pending,
                      syncToChange: Figure(.duration, syncToChange), sendToChange: Figure(.duration, sendToChange))
    }

    /// The targets of measurement 9.
    static func targets(_ result: Result) -> ReportTable {
        var targets = ReportTable.targets()
        let (factor, text) = result.replicaSend.ratio(to: result.plainSend)
        targets.add("a send on a replica: ≤ 1.2× a send on a plain file log", measured: text,
                    met: factor.isFinite ? factor <= 1.2 : nil)
        let thousand = result.pending >= 1_000
        targets.add("deciding 1,000 pending submissions again: ≤ 20 ms", measured: result.rebase.medianText
            + (thousand ? "" : " (\(result.pending) pending)"), met: thousand ? result.rebase.median <= 20_000_000 : nil)
        targets.add("pushing 1,000 pending submissions to a file log: ≥ 20k/s", measured: result.push.medianText
            + (thousand ? "" : " (\(result.pending) pending)"), met: thousand ? result.push.median >= 20_000 : nil)
        targets.add("a sync → the change set on a follower (median, p99)", measured: result.syncToChange.medianText
            + ", p99 " + result.syncToChange.format(result.syncToChange.p99), met: nil)
        targets.add("a fresh clone: ≥ 300k records/s", measured: result.clone.medianText
            + " (\(Formatting.size(result.cloneRecords)) records)", met: result.clone.median >= 300_000)
        return targets
    }
}
