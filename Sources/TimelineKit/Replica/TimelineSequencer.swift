import TimelineCore

/// The sequencer of a shared folder (folder mode, section 10 of the design): the one
/// device that keeps the shared log, decides the submissions the other devices leave in
/// the folder, and publishes the shared log there as sealed segments.
///
/// Run it on a device that is often on (a Mac, a server). While it is away, replicas work
/// offline and their submissions stay pending; nothing is lost.
public actor TimelineSequencer {
    private var engine: FolderSequencer
    private let log: any BatchAppending
    private let clock: any TimelineClock
    /// The shared folder's path.
    public nonisolated let folder: String

    /// A sequencer of the shared log `log` (named `logName` in messages) for the folder at `folder`.
    /// - Throws: ``SequencerError/log(shared:reason:)`` for a log that cannot decide
    ///   several submissions in one hold of its lock (every log of this package can).
    public init(log: any EventLog, logName: String, folder: String,
                clock: any TimelineClock = SystemClock()) throws(SequencerError) {
        guard let batching = log as? any BatchAppending else {
            throw .log(shared: logName, reason: "it cannot append several batches in one hold of its lock")
        }
        self.log = batching
        self.folder = folder
        self.clock = clock
        engine = FolderSequencer(folderName: folder, logName: logName)
    }

    /// One run: publishes the shared log's new records, decides the submissions found in
    /// the folder (each device's in number order), publishes their outcomes. Files that are
    /// not whole yet, conflicted copies and other names are skipped (counted in the report).
    public func run() throws(SequencerError) -> SequenceReport {
        let now = DateValue(utc: clock.now())
        let report = try engine.run(log: log, folder: DirectoryFolder(root: folder), now: { now })
        return SequenceReport(decided: report.decided, accepted: report.accepted, rejected: report.rejected,
                              published: report.published, skipped: report.skipped, position: report.position)
    }

    /// Runs now and then whenever the folder's device directories or the shared log change,
    /// until the task is cancelled (file notifications; nothing polls). After a failure it
    /// tries again after 1 s, doubling up to a minute. `onRun` hears every run's result.
    public func runContinuously(onRun: @escaping @Sendable (Result<SequenceReport, SequencerError>) async -> Void) async {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        defer { wake.finish() }
        var watches: [String: LogWatch] = [:]
        /// Watches the devices' directory and each device's directory (new ones appear).
        func watchDevices() {
            let devices = folder + "/" + FolderLayout.devicesDirectory
            var paths = [devices]
            if let names = try? DirectoryFolder(root: folder).names(in: FolderLayout.devicesDirectory) {
                paths += names.filter { DeviceID($0) != nil }.map { devices + "/" + $0 }
            }
            for path in paths where watches[path] == nil {
                watches[path] = try? DirectoryWatch.start(path: path) { wake.yield() }
            }
        }
        let logWatch = try? log.watch { wake.yield() }
        defer {
            logWatch?.cancel()
            for watch in watches.values { watch.cancel() }
        }
        var delay = Duration.seconds(1)
        var iterator = wakes.makeAsyncIterator()
        while !Task.isCancelled {
            watchDevices()
            let result: Result<SequenceReport, SequencerError>
            do throws(SequencerError) {
                result = .success(try run())
                delay = .seconds(1)
            } catch {
                result = .failure(error)
                let wait = delay
                Task { try? await Task.sleep(for: wait); wake.yield() }
                delay = min(delay * 2, .seconds(60))
            }
            await onRun(result)
            guard await iterator.next() != nil else { return }
        }
    }
}

/// What one run of a ``TimelineSequencer`` did.
public struct SequenceReport: Hashable, Sendable {
    /// Submissions decided.
    public var decided: Int
    /// Of those, accepted.
    public var accepted: Int
    /// Of those, rejected.
    public var rejected: Int
    /// Records published into the folder.
    public var published: Int
    /// Files in the devices' directories skipped (not whole yet, conflicted copies, other names).
    public var skipped: Int
    /// The shared log's position after the run.
    public var position: Int64
}
