import Foundation
import TimelineCore
import TimelineProjections

/// How a store was opened.
package struct OpeningReport: Sendable, Hashable {
    /// The position of the checkpoint the store started from, or `nil` for a full replay.
    package var checkpointPosition: Int64?
    /// How many records were replayed from the log (the tail after the checkpoint, or all).
    package var replayedRecords: Int
    /// Why an existing checkpoint was not used (stale, damaged, another schema version).
    package var checkpointProblem: String?
    /// The torn tail opening a log file found, if its last write had been interrupted.
    package var tornTail: LogReader.TornTail?
    /// What opening did with it: cut it off (into ``FileEventLog/sideFilePath(for:)``), or
    /// left it in the log, and why.
    package var tornTailOutcome: FileEventLog.TornTailOutcome

    package init(checkpointPosition: Int64?, replayedRecords: Int, checkpointProblem: String?,
                 tornTail: LogReader.TornTail? = nil, tornTailOutcome: FileEventLog.TornTailOutcome = .cut) {
        self.tornTailOutcome = tornTailOutcome
        self.checkpointPosition = checkpointPosition
        self.replayedRecords = replayedRecords
        self.checkpointProblem = checkpointProblem
        self.tornTail = tornTail
    }
}

extension TimelineStore {
    /// The checkpoint file that goes with the log at `path`.
    package static func checkpointPath(forLog path: String) -> String { path + ".checkpoint" }

    /// Opens a store on the durable log at `path`, taking the log's writer lock.
    ///
    /// The projections come from the checkpoint beside the log (`path` + `.checkpoint`) when it is usable, and only
    /// the records after it are read and replayed: the log reopens at the byte offset the
    /// checkpoint saved, after checking that the record ending there is the one the
    /// checkpoint saw. The records before it are not read again (`timeline verify` and a
    /// full replay check them). A missing, stale, damaged or other-version checkpoint, or
    /// one that does not match the log (changed, truncated or replaced behind its back),
    /// means a full replay (slower to open), never a wrong row.
    /// `close()` writes a fresh checkpoint; so does every `checkpointInterval` records, if given.
    public init(
        path: String, clock: any TimelineClock = SystemClock(), views: [ViewDefinition] = [ViewDefinition()],
        checkpointInterval: Int64? = nil
    ) throws(StoreError) {
        let checkpointFile = Self.checkpointPath(forLog: path)
        var checkpoint: Checkpoint?
        var problem: String?
        let opening: FileEventLog.Opening
        // The records come a chunk at a time: after the checkpoint, they are kept as its
        // tail; read from the start, they go straight into a projection being built, so
        // the log is never held whole.
        var tail: [Record] = []
        var loader = TimelineProjection.Loader(views: views, now: clock.now(), validating: true)
        var readCount = 0
        do {
            opening = try FileEventLog.open(path: path, resumingAt: {
                // Holding the log's lock, no other store can be writing its checkpoint: a
                // temporary checkpoint file is what a killed process left behind.
                DurableFile.removeTemporaries(of: checkpointFile)
                checkpoint = Self.loadCheckpoint(at: checkpointFile, keeping: views, problem: &problem)
                return checkpoint?.resumePoint
            }, consume: { resumed, records in
                readCount += records.count
                if resumed { tail += records } else { loader.add(records) }
            })
        } catch { throw .log(error) }
        let log = opening.log
        if let resumeProblem = opening.resumeProblem {
            problem = "checkpoint does not match the log: \(resumeProblem)"
            checkpoint = nil
        }
        if opening.resumed, let loaded = checkpoint.take() {
            // `Checkpoint.load` refuses a resume point for another position than its own.
            let start = loaded.position
            precondition(opening.start == start, "a checkpoint resumed at another position")
            // Consumed, so that the projection is the only owner of its storage and the
            // tail's changes do not copy it.
            var projection = TimelineProjection(consume loaded)
            do { try Self.validate(tail, in: projection) } catch { throw error.naming(lineIn: log) }
            projection.apply(tail)
            Self.settle(&projection, views: views, clock: clock)
            self.init(log: log, clock: clock, projection: projection, checkpointPath: checkpointFile,
                      logFilePath: path, checkpointInterval: checkpointInterval,
                      report: OpeningReport(checkpointPosition: start, replayedRecords: tail.count,
                                            checkpointProblem: nil, tornTail: log.tornTail, tornTailOutcome: log.tornTailOutcome))
            return
        }
        // Without a usable checkpoint the log was read whole, into the loader.
        if let refusal = loader.refusal { throw Self.invalidRecord(refusal, in: log) }
        self.init(log: log, clock: clock, projection: loader.finish(),
                  checkpointPath: checkpointFile, logFilePath: path, checkpointInterval: checkpointInterval,
                  report: OpeningReport(checkpointPosition: nil, replayedRecords: readCount,
                                        checkpointProblem: problem, tornTail: log.tornTail, tornTailOutcome: log.tornTailOutcome))
    }

    /// Opens a store on any log, its projections from the checkpoint at `checkpointPath`
    /// when the log says the checkpoint's resume point still fits it
    /// (``EventLog/resumeProblem(at:)``), replaying only the records after it; otherwise
    /// from the whole log (slower to open, never a wrong row). For a log on a server, the
    /// checkpoint is a local file (the tool keeps one in the user's cache directory).
    /// `close()` writes a fresh checkpoint; so does every `checkpointInterval` records, if given.
    public init(
        log: any EventLog, checkpointPath: String, clock: any TimelineClock = SystemClock(),
        views: [ViewDefinition] = [ViewDefinition()], checkpointInterval: Int64? = nil
    ) throws(StoreError) {
        DurableFile.removeTemporaries(of: checkpointPath)
        var problem: String?
        var checkpoint = Self.loadCheckpoint(at: checkpointPath, keeping: views, problem: &problem)
        if let point = checkpoint?.resumePoint {
            let mismatch: String?
            do { mismatch = try log.resumeProblem(at: point) } catch { throw .log(error) }
            if let mismatch {
                problem = "checkpoint does not match the log: \(mismatch)"
                checkpoint = nil
            }
        }
        guard let loaded = checkpoint.take() else {
            let replay = try Self.replayingAll(log, clock: clock, views: views)
            self.init(log: log, clock: clock, projection: replay.projection, checkpointPath: checkpointPath,
                      logFilePath: nil, checkpointInterval: checkpointInterval,
                      report: OpeningReport(checkpointPosition: nil, replayedRecords: replay.count,
                                            checkpointProblem: problem))
            return
        }
        let start = loaded.position
        var projection = TimelineProjection(consume loaded)
        var replayed = 0
        var refusal: StoreError?
        do {
            try log.forEachChunk(after: start) { records in
                do throws(StoreError) {
                    try Self.validate(records, in: projection)
                } catch {
                    refusal = error
                    return false
                }
                projection.apply(records)
                replayed += records.count
                return true
            }
        } catch { throw .log(error) }
        if let refusal { throw refusal }
        Self.settle(&projection, views: views, clock: clock)
        self.init(log: log, clock: clock, projection: projection, checkpointPath: checkpointPath,
                  logFilePath: nil, checkpointInterval: checkpointInterval,
                  report: OpeningReport(checkpointPosition: start, replayedRecords: replayed,
                                        checkpointProblem: nil))
    }

    /// Gives a projection loaded from a checkpoint the store's views and clock: the store
    /// keeps the views it is opened with, and those the checkpoint kept for subscribers of
    /// the store that wrote it are dropped.
    static func settle(_ projection: inout TimelineProjection, views: [ViewDefinition], clock: any TimelineClock) {
        // Added first: a view joins the restored rows of its filter and placement before
        // the saved views of those rows are dropped.
        for view in views { projection.addView(view) }
        for view in projection.viewDefinitions where !views.contains(view) { projection.removeView(view) }
        projection.advanceClock(to: clock.now())
    }

    /// The records of the log at `path` that touched `event`, oldest first, found with the
    /// checkpoint beside the log without reading every record
    /// (``FileEventLog/history(of:path:resumingAt:)``: the lines up to the checkpoint
    /// searched, those after it read); `nil` when the checkpoint cannot vouch for the log:
    /// then fold the log through an ``EventHistory``.
    /// - Complexity: O(*b*) for the log's *b* bytes up to the checkpoint, searched, not
    ///   decoded, plus the records after it.
    package static func eventHistory(of event: EventID, logPath path: String, parts: Int? = nil)
        throws(EventLogError) -> FileEventLog.EventHistoryRead? {
        guard let handle = FileHandle(forReadingAtPath: checkpointPath(forLog: path)) else { return nil }
        defer { try? handle.close() }
        let point = Checkpoint.resumePoint { offset, count in
            guard (try? handle.seek(toOffset: UInt64(offset))) != nil, let data = try? handle.read(upToCount: count) else {
                return nil
            }
            return Array(data)
        }
        guard let point else { return nil }
        return try FileEventLog.history(of: event, path: path, resumingAt: point, parts: parts)
    }

    /// The checkpoint at `file` if it can be read and says where the log was, with the rows
    /// of `views` (those of other views are not restored: ``settle(_:views:clock:)`` would
    /// drop them); otherwise `nil`, with the reason in `problem` (none when there is no file).
    private static func loadCheckpoint(at file: String, keeping views: [ViewDefinition], problem: inout String?)
        -> Checkpoint? {
        let bytes: [UInt8]?
        do { bytes = try DurableFile.read(file) } catch {
            problem = error.description
            return nil
        }
        guard let bytes else { return nil }
        let checkpoint: Checkpoint
        do { checkpoint = try Checkpoint.load(bytes, keeping: Set(views)) } catch {
            problem = error.description
            return nil
        }
        guard checkpoint.resumePoint != nil else {
            problem = "checkpoint does not say where the log was at position \(checkpoint.position)"
            return nil
        }
        return checkpoint
    }

    /// Writes the projections' state to the store's checkpoint file, atomically (for a file
    /// log, with the log's permissions).
    package func saveCheckpoint() throws(StoreError) {
        guard let checkpointPath else { return }
        // Without a resume point (a position inside a batch, a failed read) the checkpoint
        // is written but not used: opening reads and replays the whole log, with the reason.
        let resumePoint = try? log.resumePoint(at: projection.position)
        let bytes = projection.checkpoint(resumePoint: resumePoint).encoded()
        // Encoding joins every partition: one that did not decode (a forged checkpoint,
        // its checksum matching) lost its events, which a new checkpoint must not make
        // lasting. The old one goes too, so the next opening replays the whole log.
        guard !projection.lostCheckpointEvents else {
            unlink(checkpointPath)
            return
        }
        do {
            if let logFilePath {
                try DurableFile.write(bytes, to: checkpointPath, permissionsOf: logFilePath)
            } else {
                try DurableFile.write(bytes, to: checkpointPath)
            }
        } catch {
            throw .log(error)
        }
        markCheckpointed()
    }
}
