import TimelineCore
import TimelineProjections

/// How far a rebuild has read its log.
package struct RebuildProgress: Sendable, Hashable {
    /// How many records have been read and folded.
    package var records: Int
    /// How much of the log has been read: bytes of a file, records of another log.
    package var completed: Int
    /// How much there is to read in the same unit, when it is known.
    package var total: Int?

    /// Creates a progress report.
    package init(records: Int, completed: Int, total: Int?) {
        self.records = records
        self.completed = completed
        self.total = total
    }
}

extension TimelineStore {
    /// Opens a store on the durable log at `path` by reading the whole log once, checking
    /// every record against the domain rules and building `views` from scratch, whatever
    /// checkpoint lies beside it; then writes a fresh checkpoint (with the log's
    /// permissions), which the next opening starts from. `progress` is called after each
    /// chunk read, in bytes of the file. A record the rules refuse fails the rebuild and
    /// writes nothing.
    package static func rebuild(
        path: String, clock: any TimelineClock = SystemClock(), views: [ViewDefinition] = [ViewDefinition()],
        progress: (RebuildProgress) -> Void = { _ in }
    ) async throws(StoreError) -> TimelineStore {
        let checkpointFile = checkpointPath(forLog: path)
        var loader = TimelineProjection.Loader(views: views, now: clock.now(), validating: true)
        var records = 0
        let opening: FileEventLog.Opening
        do {
            opening = try FileEventLog.open(path: path, resumingAt: {
                // The lock is held: a temporary checkpoint file is what a killed process left.
                DurableFile.removeTemporaries(of: checkpointFile)
                return nil
            }, consume: { _, chunk in
                records += chunk.count
                loader.add(chunk)
            }, progress: { offset, size in
                progress(RebuildProgress(records: records, completed: offset, total: size))
            })
        } catch { throw .log(error) }
        if let refusal = loader.refusal {
            let error = invalidRecord(refusal, in: opening.log)
            opening.log.close()
            throw error
        }
        let store = TimelineStore(log: opening.log, clock: clock, projection: loader.finish(),
                                  checkpointPath: checkpointFile, logFilePath: path, checkpointInterval: nil,
                                  report: OpeningReport(checkpointPosition: nil, replayedRecords: records,
                                                        checkpointProblem: nil, tornTail: opening.log.tornTail,
                                                        tornTailOutcome: opening.log.tornTailOutcome))
        try await store.saveAfterRebuild()
        return store
    }

    /// Opens a store on any log by reading every record of it (never the checkpoint at
    /// `checkpointPath`), checking each and building `views`; then writes the checkpoint
    /// at `checkpointPath`. `progress` counts records, against the log's position when
    /// it is known. A record the rules refuse fails the rebuild and writes nothing.
    package static func rebuild(
        log: any EventLog, checkpointPath: String, clock: any TimelineClock = SystemClock(),
        views: [ViewDefinition] = [ViewDefinition()], progress: (RebuildProgress) -> Void = { _ in }
    ) async throws(StoreError) -> TimelineStore {
        DurableFile.removeTemporaries(of: checkpointPath)
        let known = log.position
        var loader = TimelineProjection.Loader(views: views, now: clock.now(), validating: true)
        var records = 0
        do {
            try log.forEachChunk(after: 0) { chunk in
                records += chunk.count
                let accepted = loader.add(chunk) == nil
                progress(RebuildProgress(records: records, completed: records,
                                         total: known > 0 ? max(Int(known), records) : nil))
                return accepted
            }
        } catch { throw .log(error) }
        if let refusal = loader.refusal { throw invalidRecord(refusal) }
        let store = TimelineStore(log: log, clock: clock, projection: loader.finish(),
                                  checkpointPath: checkpointPath, logFilePath: nil, checkpointInterval: nil,
                                  report: OpeningReport(checkpointPosition: nil, replayedRecords: records,
                                                        checkpointProblem: nil))
        try await store.saveAfterRebuild()
        return store
    }

    /// Writes the checkpoint of a store just rebuilt, releasing the log when that fails.
    private func saveAfterRebuild() throws(StoreError) {
        do { try saveCheckpoint() } catch {
            release()
            throw error
        }
    }
}
