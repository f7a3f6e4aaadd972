import Foundation
import TimelineCore
import TimelineProjections

/// A replica of a shared log on this device (section 10 of the design): usable with no
/// connection, synced when the shared log can be reached.
///
/// ``send(_:)`` records a submission durably and shows it at once, tentatively, without
/// touching the network; ``sync(with:)`` mirrors what others committed, has the shared log
/// decide this device's pending submissions in order, and learns their outcomes from the
/// records it mirrors. What the replica shows is its mirror's state with its pending
/// submissions decided again on top; a rejected submission becomes a ``Notice``.
public actor TimelineReplica {
    private var engine: ReplicaSync
    /// The storage's version when ``engine`` last read or wrote it.
    private var seen: [Int64]
    private let clock: any TimelineClock
    private var random: SystemRandomNumberGenerator
    /// This instance's own sends that can be undone, and its undos that can be redone.
    var undoHistory = UndoHistory<ReplicaUndoStep>()

    /// The replica's mirror: a log file holding the shared log's records 1…P byte for byte.
    public nonisolated let path: String
    /// Where the shared log is: an absolute path, or a URL without its password; in folder
    /// mode, the shared folder's path.
    public nonisolated let shared: String
    /// Whether the replica reaches the shared log through a shared folder and its
    /// sequencer (folder mode) rather than the log itself.
    public nonisolated let isFolder: Bool

    /// Opens the replica whose mirror is at `path`.
    public init(path: String, clock: any TimelineClock = SystemClock()) throws(ReplicaError) {
        let identity = try FileReplicaStorage.identity(of: path)
        self.path = path
        self.shared = identity.shared
        self.isFolder = identity.folder
        self.clock = clock
        self.random = SystemRandomNumberGenerator()
        let storage = FileReplicaStorage(path: path)
        storage.removeTemporaries()
        (engine, seen) = try storage.withExclusiveAccess { () throws(ReplicaError) in
            (try ReplicaSync(storage: storage, sharedName: identity.shared), storage.version())
        }
    }

    /// Runs `body` on the engine while no other process works on the replica, after
    /// reading the replica's files again if another process changed them since.
    func exclusively<T>(_ body: (inout ReplicaSync) throws(ReplicaError) -> T) throws(ReplicaError) -> T {
        let storage = engine.storage
        return try storage.withExclusiveAccess { () throws(ReplicaError) -> T in
            if storage.version() != seen { engine = try ReplicaSync(storage: storage, sharedName: shared) }
            defer { seen = storage.version() }
            return try body(&engine)
        }
    }

    /// Reads the replica's files again if another process changed them.
    private func refresh() throws(ReplicaError) { try exclusively { _ throws(ReplicaError) in } }

    /// Makes a replica of `log` (found at `shared`) at `path`, with a new device id, and
    /// mirrors the log. Refuses when anything exists at `path`.
    public static func clone(_ log: any EventLog, shared: String, to path: String,
                             clock: any TimelineClock = SystemClock()) async throws(ReplicaError) -> TimelineReplica {
        var random = SystemRandomNumberGenerator()
        let device = DeviceID.make(at: clock.now(), using: &random)
        let storage = try FileReplicaStorage.create(path: path, device: device, shared: shared)
        do {
            let replica = try TimelineReplica(path: path, clock: clock)
            _ = try await replica.sync(with: log)
            return replica
        } catch {
            // Nothing half made is left behind: the person runs clone again.
            storage.remove()
            throw error
        }
    }

    /// Makes a replica of the shared log that the folder at `folder` publishes (folder
    /// mode), at `path`, with a new device id, and mirrors what the folder holds. Refuses
    /// when anything exists at `path`, and when the folder holds no layout file yet (its
    /// sequencer has not run, or the folder has not synced to this device).
    public static func clone(folder: String, to path: String,
                             clock: any TimelineClock = SystemClock()) async throws(ReplicaError) -> TimelineReplica {
        let files = DirectoryFolder(root: folder)
        let layout: [UInt8]?
        do { layout = try files.read(FolderLayout.layoutFile) } catch {
            throw .unreachable(shared: folder, reason: error.description)
        }
        guard let layout else { throw .notSharedFolder(path: folder) }
        guard FolderLayout.layout(in: layout) == FolderLayout.version else {
            throw .folderLayout(path: folder, layout: FolderLayout.layout(in: layout))
        }
        var random = SystemRandomNumberGenerator()
        let device = DeviceID.make(at: clock.now(), using: &random)
        let storage = try FileReplicaStorage.create(path: path, device: device, shared: folder, folder: true)
        do {
            let replica = try TimelineReplica(path: path, clock: clock)
            _ = try await replica.syncThroughFolder()
            return replica
        } catch {
            storage.remove()
            throw error
        }
    }

    /// Whether `path` is a replica's mirror.
    public nonisolated static func isReplica(_ path: String) -> Bool { FileReplicaStorage.isReplica(path) }

    /// The device id.
    public var device: DeviceID { engine.device }
    /// The shared log's position the mirror has reached.
    public var position: Int64 { engine.mirrorPosition }
    /// Why the mirror does not read, if it does not (the next sync fetches it again).
    public var mirrorProblem: String? { engine.mirrorProblem }
    /// The submissions not yet decided, in order.
    public var pending: [Submission] { engine.queue.pending }
    /// This device's rejected submissions, not yet dismissed, oldest first.
    public var notices: [Notice] { engine.queue.notices }
    /// The command id found with another nonce, once another copy of this device was found.
    public var conflict: SubmissionID? {
        if case .stopped(let id) = engine.queue.state { return id }
        return nil
    }

    /// The state the replica shows: the mirror's timelines and events with the pending
    /// submissions that still pass decided on top.
    /// - Complexity: O(*k*) for the pending submissions' *k* facts, plus a copy of the state.
    package var shownState: DomainState {
        var state = engine.shared.domain
        for fact in engine.queue.tentativeFacts(on: engine.shared.domain).facts { state.apply(fact) }
        return state
    }

    /// Records `commands` as one submission, durably, after checking them against what the
    /// replica shows (a refused command is not queued: ``ReplicaSendError/rejected(_:)``).
    ///
    /// `localID` is the app's own id for this send: sending again with it (after a crash,
    /// not knowing whether the first send was saved) queues nothing and throws
    /// ``ReplicaSendError/alreadySent(_:)`` with the submission it was saved as, while that
    /// submission is pending or among the last 1,000 decided. The shared log never sees it.
    public func send(_ commands: [Command], condition: UndoCondition? = nil,
                     localID: String? = nil) throws(ReplicaSendError) -> Submission {
        try send(condition: condition, localID: localID) { _ in commands }.submission
    }

    /// ``send(_:condition:localID:)`` of the commands `make` builds, with ids it makes
    /// (``NewIdentifiers``, each ending with this device's tag) in what the replica shows
    /// under its exclusive access: an id made is free of every submission any process on
    /// this replica saved before it, and ids made offline go up by one per command.
    /// Returns the commands sent and their submission.
    public func send(condition: UndoCondition? = nil, localID: String? = nil,
                     making make: @Sendable (NewIdentifiers) -> [Command])
        throws(ReplicaSendError) -> (commands: [Command], submission: Submission) {
        let nonce = Submission.makeNonce(using: &random)
        let madeAt = DateValue(utc: clock.now())
        let tag = IdentifierMaker.tag(of: device)
        let outcome: Result<(commands: [Command], submission: Submission, actionName: String), ReplicaSendError>
        do {
            outcome = try exclusively { engine throws(ReplicaError) in
                if let localID, let sent = engine.queue.submission(localID: localID) {
                    // The same commands are a resend; others given a local id in use are refused
                    // (compared while the first send's commands are kept: pending, or a notice).
                    let earlier = engine.queue.pending.first { $0.id == sent }?.commands
                        ?? engine.queue.notices.first { $0.id == sent }?.commands
                    let commands = make(NewIdentifiers(replica: engine.shownState(), eventCount: engine.shownEventBound,
                                                       tag: tag))
                    if let earlier, !Decider.sameCommands(commands, as: earlier) {
                        return .failure(.localIDInUse(localID: localID, sent: sent))
                    }
                    return .failure(.alreadySent(sent))
                }
                let bound = engine.shownEventBound
                let commands = make(NewIdentifiers(replica: engine.shownState(), eventCount: bound, tag: tag))
                // An undo that a pending change here overwrites is refused for that change
                // first: it is why what the replica shows may refuse it ("already exists").
                if let condition, let change = engine.pendingChange(against: condition) {
                    return .failure(.changedSince(change))
                }
                // Against what the replica shows, kept between sends: O(commands) per send.
                do throws(Rejection) { _ = try engine.check(commands) } catch { return .failure(.rejected(error)) }
                let actionName = TimelineStore.actionName(for: commands, in: engine.shownState())
                let submission = try engine.send(commands, madeAt: madeAt, nonce: nonce, condition: condition,
                                                 localID: localID)
                return .success((commands, submission, actionName))
            }
        } catch {
            throw .replica(error)
        }
        let sent = try outcome.get()
        // A send of a person's own is undoable; an undo (a send with a condition) is not.
        if condition == nil {
            undoHistory.push(undo: ReplicaUndoStep(id: sent.submission.id, actionName: sent.actionName), clearingRedo: true)
        }
        return (sent.commands, sent.submission)
    }

    /// One sync with the shared log: pull, push every pending submission in order, pull.
    public func sync(with log: any EventLog) throws(ReplicaError) -> SyncReport {
        let now = DateValue(utc: clock.now())
        let report = try exclusively { engine throws(ReplicaError) in try engine.sync(with: log, now: { now }) }
        return SyncReport(pushed: report.pushed, accepted: report.accepted, rejected: report.rejected,
                          pulled: report.pulled, position: report.position, pending: report.pending,
                          notices: report.notices)
    }

    /// One sync through the shared folder (folder mode): mirrors what the sequencer
    /// published, writes this device's pending submissions into the folder as one sealed
    /// segment, removes its segments whose outcomes are published. A submission stays
    /// pending until the sequencer's outcome for it reaches this device.
    public func syncThroughFolder() throws(ReplicaError) -> SyncReport {
        let folder = DirectoryFolder(root: shared)
        let report = try exclusively { engine throws(ReplicaError) in try engine.sync(throughFolder: folder) }
        return SyncReport(pushed: report.pushed, accepted: report.accepted, rejected: report.rejected,
                          pulled: report.pulled, position: report.position, pending: report.pending,
                          notices: report.notices)
    }

    /// One sync with the shared log or through the shared folder, as the replica was made.
    /// `connect` opens the shared log (not called in folder mode); by default
    /// ``openSharedLog()``.
    public func sync(connecting connect: () throws(ReplicaError) -> any EventLog) throws(ReplicaError) -> SyncReport {
        if isFolder { return try syncThroughFolder() }
        return try sync(with: try connect())
    }

    /// One sync, connecting to the shared log where the replica says it is (or through the
    /// shared folder).
    public func sync() throws(ReplicaError) -> SyncReport {
        try sync(connecting: openSharedLog)
    }

    /// Opens this replica's shared log (``openSharedLog(_:)``); a database log's password,
    /// which the replica does not keep, comes from libpq's usual places (`PGPASSWORD`,
    /// `~/.pgpass`).
    public nonisolated func openSharedLog() throws(ReplicaError) -> any EventLog {
        try Self.openSharedLog(LogLocation(shared))
    }

    /// Opens the shared log at `location` to sync with, or says why it cannot be reached
    /// (``ReplicaError/unreachable(shared:reason:)``, or ``ReplicaError/sharedLogDamaged(shared:reason:)``
    /// for a log no sync can use). Syncing never creates a shared log: one that is not there
    /// is unreachable; a replica's mirror is not a shared log.
    public static func openSharedLog(_ location: LogLocation) throws(ReplicaError) -> any EventLog {
        try openSharedLogReporting(location).log
    }

    /// ``openSharedLog(_:)``, with the torn tail opening a shared log file found (its last
    /// write interrupted) and what opening did with it, for a caller to say: a database
    /// log has none.
    package static func openSharedLogReporting(_ location: LogLocation) throws(ReplicaError)
        -> (log: any EventLog, tornTail: (tail: LogReader.TornTail, outcome: FileEventLog.TornTailOutcome)?) {
        let log = try openSharedLogUnreported(location)
        guard let file = log as? FileEventLog, let torn = file.tornTail else { return (log, nil) }
        return (log, (torn, file.tornTailOutcome))
    }

    private static func openSharedLogUnreported(_ location: LogLocation) throws(ReplicaError) -> any EventLog {
        let name = location.description
        if !location.isDatabase {
            guard FileManager.default.fileExists(atPath: location.given) else { throw .noSharedLog(shared: name) }
            guard !isReplica(location.given) else {
                throw .sharedLogDamaged(shared: name, reason: "it is a replica's mirror, not a shared log (was the "
                    + "shared log replaced by a replica?)")
            }
        }
        do { return try location.open(creating: false) } catch .missing {
            throw .noSharedLog(shared: name)
        } catch .log(let error) {
            throw .sharedLog(name, failed: error)
        } catch {
            throw .unreachable(shared: name, reason: error.description)
        }
    }

    /// What the shared folder publishes (folder mode): the last position any published
    /// segment names, and when the sequencer recorded the last record this replica
    /// mirrored (`nil` when none says); `nil` for a replica of a shared log.
    public func folderHead() throws(ReplicaError) -> (position: Int64, lastRecordedAt: DateValue?)? {
        guard isFolder else { return nil }
        let folder = DirectoryFolder(root: shared)
        try FolderLayout.checkLayout(of: folder, name: shared, mustExist: true)
        let head: Int64
        do { head = try FolderLayout.publishedHead(in: folder) } catch {
            throw .unreachable(shared: shared, reason: error.description)
        }
        return (head, engine.lastRecordedAt)
    }

    /// Where the replica stands, for a settings screen or `timeline status`: its own
    /// state, and how far the shared log (or the folder) is, asked now without syncing.
    /// `connect` opens the shared log (not called in folder mode).
    public func status(connecting connect: () throws(ReplicaError) -> any EventLog) -> ReplicaStatus {
        var status = ReplicaStatus(device: device, shared: shared, isFolder: isFolder, position: position,
                                   pending: pending.count, notices: notices.count, mirrorProblem: mirrorProblem,
                                   conflict: conflict)
        do {
            if isFolder {
                (status.head, status.lastRecordedAt) = try folderHead() ?? (nil, nil)
            } else {
                let log = try connect()
                defer { log.close() }
                status.head = log.position
                try engine.checkContinued(by: log)
            }
        } catch {
            status.sharedProblem = error
        }
        return status
    }

    /// Where the replica stands, connecting to the shared log where it says it is.
    public func status() -> ReplicaStatus { status(connecting: openSharedLog) }

    /// Syncs now and then whenever either side changes, until the task is cancelled:
    /// the shared log's notifications (inotify for a file, `LISTEN` for PostgreSQL) and
    /// the replica's own files (a send from another process) wake it; nothing polls.
    /// While the shared log cannot be reached it tries again after 1 s, doubling up to
    /// a minute. `connect` opens the shared log; `onSync` hears every sync's result. In
    /// folder mode the folder's published segments wake it instead, and `connect` is not called.
    public func syncContinuously(
        connect: @escaping @Sendable () throws(ReplicaError) -> any EventLog,
        onSync: @escaping @Sendable (Result<SyncReport, ReplicaError>) async -> Void
    ) async {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        defer { wake.finish() }
        // A send from another process appends to LOCAL.pending; a dismissal or a sync replaces LOCAL.queue.
        var local = [path + ".pending", path + ".queue"].compactMap { try? FileWatch.start(path: $0) { wake.yield() } }
        // Folder mode: what the sequencer publishes.
        if isFolder, let watch = try? DirectoryWatch.start(path: shared + "/" + FolderLayout.logDirectory, { wake.yield() }) {
            local.append(watch)
        }
        defer { for watch in local { watch.cancel() } }
        var connection: (log: any EventLog, watch: LogWatch?)?
        var delay = Duration.seconds(1)
        var iterator = wakes.makeAsyncIterator()
        while !Task.isCancelled {
            let result: Result<SyncReport, ReplicaError>
            do throws(ReplicaError) {
                if isFolder {
                    result = .success(try syncThroughFolder())
                } else {
                    if connection == nil {
                        let log = try connect()
                        connection = (log, try? log.watch { wake.yield() })
                    }
                    result = .success(try sync(with: connection!.log))
                }
                delay = .seconds(1)
            } catch {
                result = .failure(error)
                if error.isUnreachable {
                    connection?.watch?.cancel()
                    connection = nil
                    let wait = delay
                    Task { try? await Task.sleep(for: wait); wake.yield() }
                    delay = min(delay * 2, .seconds(60))
                }
            }
            await onSync(result)
            guard await iterator.next() != nil else { return }
        }
        connection?.watch?.cancel()
    }

    /// Fetches the whole mirror again from the shared log (a mirror damaged or edited by
    /// hand); the pending submissions and notices stay. Returns how many records it holds.
    public func fetchMirrorAgain(from log: any EventLog) throws(ReplicaError) -> Int {
        try exclusively { engine throws(ReplicaError) in try engine.fetchMirrorAgain(from: log) }
    }

    /// Fetches the whole mirror again from what the shared folder publishes (folder mode).
    public func fetchMirrorAgainFromFolder() throws(ReplicaError) -> Int {
        let folder = DirectoryFolder(root: shared)
        return try exclusively { engine throws(ReplicaError) in try engine.fetchMirrorAgain(fromFolder: folder) }
    }

    /// Dismisses the notice of `id`; whether there was one.
    public func dismissNotice(_ id: SubmissionID) throws(ReplicaError) -> Bool {
        try exclusively { engine throws(ReplicaError) in try engine.dismissNotice(id) }
    }

    /// Dismisses every notice; how many there were.
    public func dismissAllNotices() throws(ReplicaError) -> Int {
        try exclusively { engine throws(ReplicaError) in try engine.dismissAllNotices() }
    }

    /// An event id made on this device, free in what it shows now: never one another
    /// device makes (`e<n>.TAG`). Another process on this replica may take it before a
    /// command that carries it is sent: to be sure, make it in
    /// ``send(condition:localID:making:)``.
    public func makeEventID() -> EventID {
        NewIdentifiers(replica: engine.shownState(), eventCount: engine.shownEventBound,
                       tag: IdentifierMaker.tag(of: device)).eventID()
    }

    /// A timeline id made from `name` on this device, free in what it shows now: never
    /// one another device makes (`my-life.TAG`; see ``makeEventID()``).
    public func makeTimelineID(name: String) -> TimelineID {
        NewIdentifiers(replica: engine.shownState(), eventCount: engine.shownEventBound,
                       tag: IdentifierMaker.tag(of: device)).timelineID(name: name)
    }

    /// The projection of what the replica shows, maintaining `views` at `now`, and the
    /// events whose shown value rests on a pending submission (differs from the mirror's,
    /// or exists only because of one).
    /// - Complexity: O(*r* + *n* log *n*) for the mirror's *r* records and *n* rows.
    package func shownProjection(views: [ViewDefinition], now: Instant) throws(ReplicaError)
        -> (projection: TimelineProjection, pending: Set<EventID>) {
        try refresh()
        if let problem = engine.mirrorProblem {
            throw .damaged(path: path, reason: "it does not read (\(problem))")
        }
        let contents = try engine.storage.load()
        var projection = TimelineProjection(records: contents.mirror, views: views, now: now)
        let tentative = engine.queue.tentativeFacts(on: engine.shared.domain).facts
        guard !tentative.isEmpty else { return (projection, []) }
        projection.apply(Record(position: projection.position, facts: tentative))
        var pending = Set<EventID>()
        for fact in tentative {
            guard let id = fact.event else { continue }
            if let shown = projection.event(id), shown != engine.shared.domain.event(id) { pending.insert(id) }
        }
        return (projection, pending)
    }
}

extension TimelineReplica {
    /// What a replica shows of a view at one moment: its rows and sections, the events
    /// whose shown value rests on a pending submission, and the mirror's position.
    public struct Shown: Sendable {
        /// The mirror's position.
        public var position: Int64
        /// The view's rows, the mirror's state with the pending submissions on top.
        public var rows: RowList
        /// The view's sections (empty without sections).
        public var sections: SectionList
        /// The events whose shown value differs from the mirror's because of a pending
        /// submission, or that exist only because of one.
        public var pending: Set<EventID>
        /// How many submissions wait to be synced.
        public var pendingCount: Int
        /// This device's submissions the shared log rejected, not yet dismissed.
        public var notices: [Notice]
        /// Why the replica could not be read the last time, when it could not (its mirror
        /// damaged: a sync, or a repair, fetches it again); the rest is the last read's.
        public var problem: ReplicaError?
    }

    /// What the replica shows of `view` now, then again whenever it changes (a send, a
    /// sync, by this process or another: the replica's files are followed with the
    /// operating system's notifications), until the task iterating it is cancelled.
    ///
    /// Each element is the whole view: a front end animates it as a reset, or diffs it.
    /// - Complexity: O(*r* + *n* log *n*) per change for the mirror's *r* records and *n* rows.
    public func shownChanges(_ view: ViewDefinition, now: @escaping @Sendable () -> Instant) -> AsyncStream<Shown> {
        shownChanges(view, now: now, failingReads: 0)
    }

    /// ``shownChanges(_:now:)`` whose first `failingReads` reads fail, as a file replaced
    /// under them or a process out of descriptors would make them.
    package func shownChanges(_ view: ViewDefinition, now: @escaping @Sendable () -> Instant,
                              failingReads: Int) -> AsyncStream<Shown> {
        let (stream, continuation) = AsyncStream<Shown>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let watches = [path, path + ".pending", path + ".queue"].compactMap {
            try? FileWatch.start(path: $0) { wake.yield() }
        }
        let task = Task {
            // The last yielded, and its rows as an array to compare.
            var shown: Shown?, shownRows: [Row] = []
            var iterator = wakes.makeAsyncIterator()
            // A read that fails (a file replaced under it by another process, a damaged
            // mirror) is said once and tried again after a pause, doubled up to a second:
            // nothing may write again for a long time.
            var pause = Duration.milliseconds(20), failing = failingReads
            repeat {
                failing -= 1
                let read = failing >= 0 ? .failure(.storage(path: path, reason: "a read that failed on purpose"))
                    : Result { () throws(ReplicaError) in try self.shownProjection(views: [view], now: now()) }
                switch read {
                case .failure(let problem):
                    if shown?.problem != problem {
                        var failed = shown ?? Shown(position: position, rows: RowList(), sections: SectionList(), pending: [],
                                                    pendingCount: pending.count, notices: notices)
                        failed.problem = problem
                        shown = failed
                        continuation.yield(failed)
                    }
                    try? await Task.sleep(for: pause)
                    pause = min(pause * 2, .seconds(1))
                    wake.yield()
                case .success(let (projection, pendingRows)):
                    pause = .milliseconds(20)
                    let rows = projection.rows(view) ?? RowList()
                    let next = Shown(position: position, rows: rows, sections: projection.sections(view),
                                     pending: pendingRows, pendingCount: pending.count, notices: notices)
                    let array = Array(rows)
                    if let shown, shown.problem == nil, shown.position == next.position, shownRows == array,
                       shown.pending == next.pending, shown.pendingCount == next.pendingCount,
                       shown.notices == next.notices { continue }
                    shown = next
                    shownRows = array
                    continuation.yield(next)
                }
            } while await iterator.next() != nil && !Task.isCancelled
            continuation.finish()
        }
        continuation.onTermination = { _ in
            task.cancel()
            wake.finish()
            for watch in watches { watch.cancel() }
        }
        return stream
    }
}

/// Where a replica stands (``TimelineReplica/status()``).
public struct ReplicaStatus: Hashable, Sendable {
    /// The device's id.
    public var device: DeviceID
    /// Where the shared log (or folder) is, without a password.
    public var shared: String
    /// Whether the replica syncs through a shared folder.
    public var isFolder: Bool
    /// The last position mirrored.
    public var position: Int64
    /// How many submissions wait to be decided.
    public var pending: Int
    /// How many rejected submissions wait to be dismissed.
    public var notices: Int
    /// Why the mirror is damaged, when it is (the next sync fetches it again).
    public var mirrorProblem: String?
    /// The submission whose outcome stopped the replica, when it stopped.
    public var conflict: SubmissionID?
    /// The shared log's last position (in folder mode, the last position the folder
    /// publishes); `nil` when it cannot be reached.
    public var head: Int64?
    /// In folder mode, when the sequencer recorded the last record mirrored.
    public var lastRecordedAt: DateValue?
    /// Why the shared log (or folder) cannot be synced with now, when it cannot:
    /// ``ReplicaError/unreachable(shared:reason:)`` (the next sync may reach it) or
    /// ``ReplicaError/sharedLogDamaged(shared:reason:)`` (it must be repaired first).
    public var sharedProblem: ReplicaError?
}

/// What one sync did.
public struct SyncReport: Hashable, Sendable {
    /// This device's submissions whose outcomes this sync learned.
    public var pushed: Int
    /// Of those, accepted.
    public var accepted: Int
    /// Of those, rejected (each now a notice).
    public var rejected: Int
    /// Records mirrored.
    public var pulled: Int
    /// The mirror's position after the sync.
    public var position: Int64
    /// Submissions still pending.
    public var pending: Int
    /// The rejections this sync learned.
    public var notices: [Notice]
}

/// Why a replica did not queue a submission.
public enum ReplicaSendError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What the replica shows refuses it: nothing was queued.
    case rejected(Rejection)
    /// The replica's files could not be written: nothing was queued.
    case replica(ReplicaError)
    /// A submission with the same local id was sent before, as this one: nothing was queued.
    case alreadySent(SubmissionID)
    /// The local id was given before to other commands, sent as `sent`: nothing was queued.
    /// A local id names one send; these commands need one of their own.
    case localIDInUse(localID: String, sent: SubmissionID)
    /// An undo whose condition a submission pending on this device already breaks (the
    /// shared log would reject it `changedSince`): nothing was queued.
    case changedSince(String)
    /// A revert that the mirror's own records refuse (a later record touched the same, the
    /// batch was undone already, there is no such record): nothing was queued.
    case undoRefused(UndoRefusal)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .rejected(let rejection): rejection.description
        case .replica(let error): error.description
        case .alreadySent(let id): "already sent as \(id): nothing was queued again"
        case .localIDInUse(let localID, let sent):
            "the local id \(IdentifierText.quoted(localID)) was given to another send, \(sent): a local id names one "
                + "send: give this one another id; nothing was queued"
        case .changedSince(let change): change
        case .undoRefused(let refusal): refusal.description
        }
    }
}
