import Foundation
import TimelineCore
import TimelineKit

/// Measurement 11: folder mode. The sequencer deciding submissions from the folder, beside
/// a replica pushing them to a file log; a clone of a folder's published segments, beside a
/// clone of the file log; a sealed segment renamed into a follower's copy of the folder →
/// its change set, beside a plain send → the change set on a follower.
struct FolderBenchmark {
    struct Result {
        let sequence: Figure
        let sequenceBaseline: Figure
        let submissions: Int
        let read: Figure
        let readBaseline: Figure
        let readRecords: Int
        let arrival: Figure
        let arrivalBaseline: Figure
    }

    let directory: TemporaryDirectory
    /// A log to publish and read (the replay section's, in the store's layout).
    let bigLog: String
    let bigLogRecords: Int
    let submissions: Int
    let rounds: Int
    let log: @Sendable (String) -> Void

    func run() async throws -> Result {
        let clock = ManualClock(BenchViews.now)
        let shared = directory.file("folder-shared.jsonl"), plainShared = directory.file("folder-plain.jsonl")
        try await SyncBenchmark.setUp([shared, plainShared], clock: clock)
        let folder = directory.file("folder-box")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let sequencer = try TimelineSequencer(log: try FileEventLog(path: shared), logName: shared, folder: folder, clock: clock)
        _ = try await sequencer.run()
        let device = try await TimelineReplica.clone(folder: folder, to: directory.file("folder-device.jsonl"), clock: clock)
        let pusher = try await TimelineReplica.clone(try FileEventLog(path: plainShared), shared: plainShared,
                                                     to: directory.file("folder-pusher.jsonl"), clock: clock)
        let plainLog = try FileEventLog(path: plainShared)

        log("folder: the sequencer deciding \(submissions) submissions from the folder")
        var sequence = Samples(), sequenceBaseline = Samples()
        for round in 0..<rounds {
            let commands = (0..<submissions).map { k in
                Command.retitleEvent(EventID("e\(k % 1_000)"), title: "Round \(round) \(k)")
            }
            for command in commands {
                _ = try await device.send([command])
                _ = try await pusher.send([command])
            }
            _ = try await device.syncThroughFolder()  // the segment written, not timed
            let decided = try await MonotonicClock.measureAsync { _ = try await sequencer.run() }
            sequence.append(rate: submissions, nanoseconds: decided)
            let pushed = try await MonotonicClock.measureAsync { _ = try await pusher.sync(with: plainLog) }
            sequenceBaseline.append(rate: submissions, nanoseconds: pushed)
        }
        plainLog.close()

        log("folder: a replica reading \(Formatting.count(bigLogRecords)) records of published segments")
        let bigFolder = directory.file("folder-big")
        try FileManager.default.createDirectory(atPath: bigFolder, withIntermediateDirectories: true)
        _ = try await TimelineSequencer(log: try FileEventLog(path: bigLog), logName: bigLog, folder: bigFolder, clock: clock).run()
        var read = Samples(), readBaseline = Samples()
        for run in 0..<2 {
            let target = directory.file("folder-clone-\(run).jsonl"), plainTarget = directory.file("folder-plain-\(run).jsonl")
            let folderTime = try await MonotonicClock.measureAsync {
                _ = try await TimelineReplica.clone(folder: bigFolder, to: target, clock: clock)
            }
            read.append(rate: bigLogRecords, nanoseconds: folderTime)
            let logTime = try await MonotonicClock.measureAsync {
                _ = try await TimelineReplica.clone(try FileEventLog(path: bigLog), shared: bigLog, to: plainTarget, clock: clock)
            }
            readBaseline.append(rate: bigLogRecords, nanoseconds: logTime)
            SyncBenchmark.removeReplica(target)
            SyncBenchmark.removeReplica(plainTarget)
        }

        log("folder: a sealed segment arriving → the change set on a replica that follows the folder")
        var arrival = Samples(), arrivalBaseline = Samples()
        do {
            // The follower's own copy of the folder, into which segments arrive.
            let copy = directory.file("folder-copy")
            try copyFolder(from: folder, to: copy)
            let follower = try await TimelineReplica.clone(folder: copy, to: directory.file("folder-follower.jsonl"), clock: clock)
            let syncing = Task { await follower.syncContinuously(connect: { () throws(ReplicaError) in
                throw .unreachable(shared: copy, reason: "not a log")
            }, onSync: { _ in }) }
            var shown = await follower.shownChanges(ViewDefinition(), now: { BenchViews.now }).makeAsyncIterator()
            _ = await shown.next()
            let followerStore = try TimelineStore(path: plainShared, clock: clock)
            let writer = try TimelineStore(path: plainShared, clock: clock)
            var changes = await followerStore.changes(ViewDefinition()).makeAsyncIterator()
            _ = await changes.next()
            for index in 0..<(rounds > 2 ? 40 : 8) {
                _ = try await device.send([.retitleEvent(EventID("e\(index)"), title: "Arrived \(index)")])
                _ = try await device.syncThroughFolder()
                _ = try await sequencer.run()
                // What the service would bring: the new published segments, renamed in.
                let start = MonotonicClock.now()
                try copyFolder(from: folder, to: copy, only: FolderLayout.logDirectory)
                _ = await shown.next()
                arrival.append(nanoseconds: MonotonicClock.now() - start)
                let other = MonotonicClock.now()
                try await writer.send(.retitleEvent(EventID("e\(index)"), title: "Sent \(index)"))
                _ = await changes.next()
                arrivalBaseline.append(nanoseconds: MonotonicClock.now() - other)
            }
            syncing.cancel()
            await writer.release()
            await followerStore.release()
        }
        return Result(sequence: Figure(.rate, sequence), sequenceBaseline: Figure(.rate, sequenceBaseline),
                      submissions: submissions, read: Figure(.rate, read), readBaseline: Figure(.rate, readBaseline),
                      readRecords: bigLogRecords, arrival: Figure(.duration, arrival),
                      arrivalBaseline: Figure(.duration, arrivalBaseline))
    }

    /// Copies the files of `source` missing in `target` (under `only`, if given), each
    /// written beside and renamed in, as a sync service does.
    private func copyFolder(from source: String, to target: String, only: String? = nil) throws {
        let manager = FileManager.default
        let root = only.map { source + "/" + $0 } ?? source
        guard let enumerator = manager.enumerator(atPath: root) else { return }
        while let name = enumerator.nextObject() as? String {
            let path = (only.map { $0 + "/" } ?? "") + name
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: source + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  !manager.fileExists(atPath: target + "/" + path) else { continue }
            let destination = target + "/" + path
            try manager.createDirectory(atPath: (destination as NSString).deletingLastPathComponent,
                                        withIntermediateDirectories: true)
            try manager.copyItem(atPath: source + "/" + path, toPath: destination + ".partial")
            try manager.moveItem(atPath: destination + ".partial", toPath: destination)
        }
    }

    /// The targets of measurement 11.
    static func targets(_ result: Result) -> ReportTable {
        var targets = ReportTable.targets()
        let thousand = result.submissions >= 1_000
        let time = Double(result.submissions) / result.sequence.median * 1e3
        targets.add("the sequencer deciding 1,000 submissions from the folder: ≤ 100 ms",
                    measured: String(format: "%.0f ms", time) + (thousand ? "" : " (\(result.submissions) submissions)"),
                    met: thousand ? time <= 100 : nil)
        targets.add("a replica reading published segments: ≥ 300k records/s", measured: result.read.medianText
            + " (\(Formatting.size(result.readRecords)) records)", met: result.read.median >= 300_000)
        targets.add("a sealed segment arriving → the change set on a following replica (median, p99)",
                    measured: result.arrival.medianText + ", p99 " + result.arrival.format(result.arrival.p99), met: nil)
        return targets
    }
}
