import TimelineCore
import TimelineProjections

/// How a store was opened.
public struct OpeningReport: Sendable, Hashable {
    /// The position of the checkpoint the store started from, or `nil` for a full replay.
    public var checkpointPosition: Int64?
    /// How many records were replayed from the log (the tail after the checkpoint, or all).
    public var replayedRecords: Int
    /// Why an existing checkpoint was not used (stale, damaged, another schema version).
    public var checkpointProblem: String?
}

extension TimelineStore {
    /// The checkpoint file that goes with the log at `path`.
    public static func checkpointPath(forLog path: String) -> String { path + ".checkpoint" }

    /// Opens a store on the durable log at `path`, taking the log's writer lock.
    ///
    /// The projections come from the checkpoint beside the log when it is usable, and only
    /// the records after it are replayed; a missing, stale, damaged or other-version
    /// checkpoint means a full replay, never a wrong row. `close()` writes a fresh
    /// checkpoint; so does every `checkpointInterval` records, if given.
    public init(
        path: String, clock: any TimelineClock = SystemClock(), views: [ViewDefinition] = [ViewDefinition()],
        checkpointInterval: Int64? = nil
    ) throws(StoreError) {
        let log: FileEventLog
        do { log = try FileEventLog(path: path) } catch { throw .log(error) }
        let checkpointFile = Self.checkpointPath(forLog: path)
        // Holding the log's lock, no other store can be writing its checkpoint: a temporary
        // checkpoint file is what a killed process left behind.
        DurableFile.removeTemporaries(of: checkpointFile)
        var problem: String?
        if let checkpoint = Self.usableCheckpoint(at: checkpointFile, log: log, path: path, problem: &problem) {
            var projection = TimelineProjection(checkpoint)
            let tail: [Record]
            do { tail = try log.records(after: checkpoint.position) } catch { throw .log(error) }
            let state = try Self.validated(tail, from: projection.domainState)
            projection.apply(tail)
            for view in views { projection.addView(view) }
            projection.advanceClock(to: clock.now())
            self.init(log: log, clock: clock, state: state, projection: projection, checkpointPath: checkpointFile,
                      checkpointInterval: checkpointInterval,
                      report: OpeningReport(checkpointPosition: checkpoint.position, replayedRecords: tail.count,
                                            checkpointProblem: nil))
            return
        }
        let replay = try Self.replayingAll(log, clock: clock, views: views)
        self.init(log: log, clock: clock, state: replay.state, projection: replay.projection,
                  checkpointPath: checkpointFile, checkpointInterval: checkpointInterval,
                  report: OpeningReport(checkpointPosition: nil, replayedRecords: replay.count,
                                        checkpointProblem: problem))
    }

    private static func usableCheckpoint(at file: String, log: FileEventLog, path: String,
                                         problem: inout String?) -> Checkpoint? {
        let bytes: [UInt8]?
        do { bytes = try DurableFile.read(file) } catch {
            problem = error.description
            return nil
        }
        guard let bytes else { return nil }
        let checkpoint: Checkpoint
        do { checkpoint = try Checkpoint.load(bytes) } catch {
            problem = error.description
            return nil
        }
        guard checkpoint.logIdentity == DurableFile.identity(path) else {
            problem = "checkpoint belongs to another log file"
            return nil
        }
        guard checkpoint.position <= log.position else {
            problem = "checkpoint at position \(checkpoint.position) is ahead of the log (\(log.position))"
            return nil
        }
        return checkpoint
    }

    /// Writes the projections' state beside the log, atomically.
    public func saveCheckpoint() throws(StoreError) {
        guard let checkpointPath, let file = log as? FileEventLog else { return }
        let identity = DurableFile.identity(file.path) ?? 0
        do { try DurableFile.write(projection.checkpoint(logIdentity: identity).encoded(), to: checkpointPath) } catch {
            throw .log(error)
        }
        markCheckpointed()
    }
}
