import Synchronization
import TimelineCore
import TimelineProjections

/// The store front ends talk to: commands in, live views out.
///
/// `send` validates a command against the current state, appends its facts durably,
/// applies them to every view and publishes one change set per changed view before it
/// returns (read-your-writes). Views are live: ``subscribe(_:bufferLimit:)`` gives a view's
/// rows and the stream of its change sets, ``changes(_:bufferLimit:)`` the stream alone,
/// ``observe(_:bufferLimit:_:)`` calls a closure, and `TimelineViewModel` keeps an
/// `@Observable` copy for SwiftUI and UIKit. Nobody polls, and a slow subscriber never
/// blocks a writer. The store keeps a view up to date only while someone subscribes to it
/// (and the views it was opened with, always); reading a view once does not keep it.
///
/// A store runs on an executor of its own unless it is opened with ``ExecutorChoice/mainActor``,
/// which an app that sends from the main actor chooses to spare each send two thread
/// switches.
public actor TimelineStore {
    /// The actor whose serial executor the store shares: an empty actor of its own, or
    /// the main actor. Mutual exclusion is the executor's, so isolation is unchanged.
    private nonisolated let executorOwner: any Actor

    /// The serial executor the store runs its jobs on: one of its own, or the main actor's
    /// (chosen when it is opened, with ``ExecutorChoice``).
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executorOwner.unownedExecutor }

    /// The log the store appends to (read it for catch-up or export; append only through `send` or `importFacts`).
    package nonisolated let log: any EventLog
    nonisolated let clock: any TimelineClock
    /// The views and the timelines and events they are made of; commands are decided
    /// against it (it is a ``DomainLookup``), so the events are held once.
    var projection: TimelineProjection
    /// The live subscriptions of each view.
    var subscribers: [ViewDefinition: [UpdateBuffer<ChangeSet>]] = [:]
    /// The views the store was opened with: kept up to date whether or not anyone subscribes.
    var pinnedViews: Set<ViewDefinition> = []
    private var summarySubscribers: [UpdateBuffer<SummaryUpdate>] = []
    var tickTask: Task<Void, Never>?
    /// The log's notifications, while someone subscribes: other processes' appends are
    /// read and published as they come.
    private var logWatch: LogWatch?
    /// Told of each failure to catch up with the log (``onFollowingFailure(_:whenReadingAgain:)``).
    private var followingFailure: (@Sendable (StoreError) -> Void)?
    /// Told when a catch-up succeeds after one failed.
    private var followingResumed: (@Sendable () -> Void)?
    /// Whether the last catch-up with the log failed.
    private var followingFailed = false
    /// Set by ``release()``: the log is closed, and other processes' appends are not read.
    private(set) var isReleased = false
    /// Whether a catch-up with the log is already on its way (notifications coalesce).
    private nonisolated let catchUpPending = Atomic<Bool>(false)
    /// Where checkpoints go, if the store keeps them.
    let checkpointPath: String?
    /// The log's file, for a store opened on a path: its checkpoints take its permissions.
    let logFilePath: String?
    /// Write a checkpoint after this many records since the last one (`nil`: only on close).
    let checkpointInterval: Int64?
    private var checkpointedPosition: Int64 = 0
    /// The store's own sends to undo and undos to redo (``undo()``, ``redo()``).
    var undoHistory = UndoHistory<UndoStep>()
    /// How the store was opened: from a checkpoint (and how many records of tail it
    /// replayed), or by replaying the whole log.
    package nonisolated let openingReport: OpeningReport

    /// Opens a store on `log`, replaying every record in it; by default an empty in-memory log.
    ///
    /// Every record is checked against the domain rules: a record the decider would refuse
    /// makes the log unusable, and opening fails naming its position.
    /// `executor` is where the store's work runs (see ``ExecutorChoice``).
    public init(log: any EventLog = InMemoryEventLog(), clock: any TimelineClock = SystemClock(),
                views: [ViewDefinition] = [ViewDefinition()], executor: ExecutorChoice = .own) throws(StoreError) {
        let replay = try Self.replayingAll(log, clock: clock, views: views)
        self.init(log: log, clock: clock, projection: replay.projection,
                  checkpointPath: nil, logFilePath: nil, checkpointInterval: nil,
                  report: OpeningReport(checkpointPosition: nil, replayedRecords: replay.count, checkpointProblem: nil),
                  executor: executor)
    }

    /// Reads every record of `log`, checks each against the domain rules and builds the views.
    static func replayingAll(
        _ log: any EventLog, clock: any TimelineClock, views: [ViewDefinition]
    ) throws(StoreError) -> (projection: TimelineProjection, count: Int) {
        var loader = TimelineProjection.Loader(views: views, now: clock.now(), validating: true)
        var count = 0
        do {
            try log.forEachChunk(after: 0) { records in
                count += records.count
                return loader.add(records) == nil
            }
        } catch { throw .log(error) }
        if let refusal = loader.refusal { throw invalidRecord(refusal) }
        return (loader.finish(), count)
    }

    /// The error for a record of the log that the rules refuse; `file`, when the log is one,
    /// names the record's line.
    static func invalidRecord(_ refusal: FactRefusal, in file: FileEventLog? = nil) -> StoreError {
        switch refusal.place {
        case .record(let position):
            .invalidRecord(position: position, line: file?.lineNumber(ofRecord: position),
                           reason: "\(refusal.fact.type.rawValue): \(refusal.rejection.description)")
        case .index(let index):
            .importRefused(index: index, line: nil, type: refusal.fact.type, rejection: refusal.rejection)
        }
    }

    init(log: any EventLog, clock: any TimelineClock, projection: TimelineProjection,
         checkpointPath: String?, logFilePath: String?, checkpointInterval: Int64?, report: OpeningReport,
         executor: ExecutorChoice = .own) {
        self.executorOwner = executor.owner
        self.log = log
        self.clock = clock
        self.projection = projection
        self.pinnedViews = Set(projection.viewDefinitions)
        // Nobody follows the summaries yet: describing their changes waits for a subscriber.
        self.projection.tracksSummaryChanges = false
        self.checkpointPath = checkpointPath
        self.logFilePath = logFilePath
        self.checkpointInterval = checkpointInterval
        self.checkpointedPosition = report.checkpointPosition ?? 0
        self.openingReport = report
    }

    /// Checks `records` against the domain rules in the state `projection` stands for and
    /// the records before each, without changing or copying it (the facts are tried on an
    /// overlay, as a batch of commands is).
    static func validate<C: Collection<Record>>(_ records: C, in projection: TimelineProjection) throws(StoreError) {
        let facts = records.lazy.flatMap { record in record.facts.lazy.map { (record.position, $0) } }
        do {
            try Decider.check(facts.map(\.1), in: projection)
        } catch {
            guard case .index(let index) = error.place else { throw invalidRecord(error) }
            let position = facts.dropFirst(index).first?.0 ?? projection.position
            throw invalidRecord(FactRefusal(position: position, fact: error.fact, rejection: error.rejection))
        }
    }

    func markCheckpointed() { checkpointedPosition = projection.position }

    /// The result of `body` on the store's projection as it stands (for the package's
    /// readers of the whole state, such as the pictures).
    package func reading<T: Sendable>(_ body: @Sendable (TimelineProjection) -> T) -> T { body(projection) }

    /// The position of the last record applied.
    public var position: Int64 { projection.position }

    /// "Now" as the store's views see it.
    package var now: Instant { projection.now }

    /// The timelines and events as they stand, copied out of the projection.
    /// - Complexity: O(*n*) for *n* events; to look one up, use ``event(_:)`` or ``timeline(_:)``.
    package var domainState: DomainState { projection.domainState }

    /// The event with this id, if it exists.
    /// - Complexity: O(1) on average.
    public func event(_ id: EventID) -> Event? { projection.event(id) }

    /// How many events there are.
    /// - Complexity: O(1).
    package var eventCount: Int { projection.eventCount }

    /// The ids of the events, in no particular order.
    /// - Complexity: O(*n*) for *n* events.
    package var eventIDs: [EventID] {
        var ids: [EventID] = []
        ids.reserveCapacity(projection.eventCount)
        projection.forEachEventID { ids.append($0) }
        return ids
    }

    /// The timeline with this id, if it exists.
    /// - Complexity: O(1) on average.
    package func timeline(_ id: TimelineID) -> Timeline? { projection.timeline(id) }

    // MARK: Commands

    /// Validates, appends, projects and publishes one command; returns its records.
    ///
    /// A command with a `commandID` that was already sent appends nothing and returns the records
    /// of the first time. `expectedPosition`, when given, must be the log's position.
    @discardableResult
    public func send(_ command: Command, commandID: String? = nil, expectedPosition: Int64? = nil) throws(StoreError) -> [Record] {
        try send([command], commandID: commandID, expectedPosition: expectedPosition)
    }

    /// Sends `commands` as ``send(_:commandID:expectedPosition:)`` does and tells whether
    /// `commandID` was already in the log (``AppendResult/wasDuplicate``: nothing appended,
    /// the records are the first time's).
    package func sendReporting(_ commands: [Command], commandID: String?) throws(StoreError) -> AppendResult {
        let result = try append(AppendOptions(commandID: commandID, recordedAt: DateValue(utc: clock.now()))) {
            () throws(StoreError) in
            do throws(Rejection) { return try Decider.decide(commands, projection) } catch { throw .rejected(error) }
        }
        if result.wasDuplicate { try Self.refuseOtherCommands(commands, commandID: commandID, recorded: result) }
        return result
    }

    /// Throws ``StoreError/commandIDInUse(commandID:positions:types:)`` when the records a
    /// command id's first send appended (`recorded`, a duplicate) are not what `commands`
    /// record (``Decider/recordsSameCommands(_:as:)``): a used id given to another command.
    static func refuseOtherCommands(_ commands: [Command], commandID: String?, recorded: AppendResult) throws(StoreError) {
        let facts = recorded.records.flatMap(\.facts)
        guard let commandID, let positions = recorded.positions,
              !Decider.recordsSameCommands(commands, as: facts) else { return }
        throw .commandIDInUse(commandID: commandID, positions: positions, types: facts.map(\.type))
    }

    /// Validates a batch of commands (each against the state after the ones before it),
    /// appends all their facts as one atomic batch and publishes one change set per view.
    /// The batch becomes the one ``undo()`` undoes next, and nothing is left to ``redo()``.
    @discardableResult
    public func send(_ commands: [Command], commandID: String? = nil, expectedPosition: Int64? = nil) throws(StoreError) -> [Record] {
        let sent = try sendRecordingUndo(commands, commandID: commandID, expectedPosition: expectedPosition)
        noteSent(sent.undo, actionName: sent.actionName)
        return sent.records
    }

    /// Appends what `decide` returns, decided under the log's lock against every record
    /// committed before (other processes' included, applied and published first); applies
    /// the batch to the views, publishes the change sets, and writes a checkpoint when the
    /// interval has passed. A log replaced meanwhile (by a repair) is read again and the
    /// append tried once more.
    ///
    /// `projected` gives, after the append, a projection of the state after the appended
    /// facts that was folded elsewhere from an empty state, to take instead of applying the
    /// records (``importFacts(_:lines:foldedOnAnEmptyLog:)``); `nil` to apply them.
    func append(_ options: AppendOptions, deciding decide: () throws(StoreError) -> [Fact],
                projected: () -> TimelineProjection? = { nil }) throws(StoreError) -> AppendResult {
        // A closed store appends nothing, whatever its log (another store may share an
        // in-memory log, which stays open).
        guard !isReleased else { throw .log(.closed(path: logFilePath ?? "the store's log")) }
        var attempts = 0
        while true {
            attempts += 1
            let result: AppendResult
            do {
                result = try log.append(after: projection.position, options: options, catchingUp: { (records) throws(StoreError) in
                    try apply(records)
                }, deciding: decide)
            } catch {
                switch error {
                case .refused(let refusal): throw refusal
                case .log(.replaced) where attempts < 3:
                    try rebuildFromLog()
                    continue
                case .log(let failure): throw .log(failure)
                }
            }
            guard !result.wasDuplicate, let positions = result.positions else { return result }
            // Taken, not copied: the store's copy must be the only one, or changing it
            // (the clock, below) would copy its storage. The records are not made.
            if var taken = projected() {
                taken.reposition(to: positions.upperBound)
                Self.settle(&taken, views: projection.viewDefinitions, clock: clock)
                replaceProjection(with: consume taken, chained: true)
            } else {
                publish(projection.apply(result.records))
            }
            if let interval = checkpointInterval, projection.position - checkpointedPosition >= interval {
                try? saveCheckpoint()
            }
            return result
        }
    }

    /// Applies records that other processes appended (checked against the rules first) and
    /// publishes their change sets.
    func apply(_ records: [Record]) throws(StoreError) {
        guard let last = records.last, last.position > projection.position else { return }
        let newer = records.drop { $0.position <= projection.position }
        try Self.validate(newer, in: projection)
        publish(projection.apply(Array(newer)))
    }

    /// Reads the log again from its start (it was replaced) and tells every subscriber
    /// with a reset.
    func rebuildFromLog() throws(StoreError) {
        let replay = try Self.replayingAll(log, clock: clock, views: projection.viewDefinitions)
        replaceProjection(with: replay.projection)
        // The records were renumbered: the positions the undo steps name mean nothing now.
        undoHistory = UndoHistory<UndoStep>()
    }

    /// Makes `replacement` the projection (following the summaries' changes if it was) and
    /// tells every subscriber with a reset.
    ///
    /// With `chained`, each view's reset goes on from the view's position before (the
    /// replacement follows from the old state); otherwise it starts afresh at the new one.
    private func replaceProjection(with replacement: consuming TimelineProjection, chained: Bool = false) {
        replacement.tracksSummaryChanges = projection.tracksSummaryChanges
        var before: [ViewDefinition: Int64] = [:]
        if chained {
            for view in subscribers.keys { before[view] = projection.viewPosition(view) ?? projection.position }
        }
        projection = replacement
        for (view, buffers) in subscribers {
            let reset = ChangeSet.initial(view: view, from: before[view],
                                          position: projection.viewPosition(view) ?? projection.position,
                                          rows: projection.rows(view) ?? RowList(), sections: projection.sections(view))
            for buffer in buffers where !buffer.isFinished { buffer.push(reset) }
        }
        if !summarySubscribers.isEmpty {
            for buffer in summarySubscribers where !buffer.isFinished {
                buffer.push(.initial(projection.timelineSummaries, position: projection.position))
            }
        }
    }

    // MARK: Views

    /// The timeline summaries, ordered by name.
    public var timelineSummaries: [TimelineSummary] { projection.timelineSummaries }

    /// The timeline summaries as a live stream: the current list, then each change.
    public func summaryChanges(bufferLimit: Int = 256) -> SummaryStream {
        let buffer = UpdateBuffer<SummaryUpdate>(limit: bufferLimit, collapse: SummaryUpdate.collapse)
        followLog()
        projection.tracksSummaryChanges = true
        buffer.push(.initial(projection.timelineSummaries, position: projection.position))
        // A closed store publishes nothing more: the stream ends after the current list.
        if isReleased { buffer.finish() } else { summarySubscribers.append(buffer) }
        return SummaryStream(buffer: buffer, token: SubscriptionToken(buffer: buffer))
    }

    private func publish(_ changes: ProjectionChanges) {
        for changeSet in changes.rows {
            guard var buffers = subscribers[changeSet.view] else { continue }
            buffers.removeAll { $0.isFinished }
            for buffer in buffers { buffer.push(changeSet) }
            subscribers[changeSet.view] = buffers.isEmpty ? nil : buffers
        }
        if let summaries = changes.summaries {
            summarySubscribers.removeAll { $0.isFinished }
            for buffer in summarySubscribers { buffer.push(.changes(summaries)) }
            // The last subscriber is gone: stop describing the summaries' changes.
            if summarySubscribers.isEmpty { projection.tracksSummaryChanges = false }
        }
    }

    /// The number of live subscriptions (for tests and diagnostics).
    package var subscriptionCount: Int {
        subscribers.values.reduce(0) { $0 + $1.filter { !$0.isFinished }.count }
    }

    // MARK: Other processes

    /// Starts following the log's notifications (once), then catches up with what was
    /// committed before they started, so that nothing falls between the two.
    func followLog() {
        guard logWatch == nil else { return }
        logWatch = try? log.watch { [weak self] in
            guard let self, !self.catchUpPending.exchange(true, ordering: .acquiringAndReleasing) else { return }
            Task { await self.catchUpWithLog() }
        }
        catchUpWithLog()
    }

    /// Reads what other processes committed since the store last looked, and applies and
    /// publishes it like the store's own records; a log replaced by a repair is read again
    /// and every subscriber gets a reset. A failure goes to ``onFollowingFailure(_:)``'s
    /// handler and is left for the next notification or command, which reads again.
    func catchUpWithLog() {
        catchUpPending.store(false, ordering: .releasing)
        // A notification that came before ``release()`` finds the log closed: nothing to
        // read on, and nothing to report (it is not a reason the views stopped).
        guard !isReleased else { return }
        do throws(StoreError) {
            do throws(StoreError) {
                let records: [Record]
                do { records = try log.records(after: projection.position) } catch { throw .log(error) }
                try apply(records)
            } catch .log(.replaced) {
                try rebuildFromLog()
            }
            if followingFailed {
                followingFailed = false
                followingResumed?()
            }
        } catch {
            followingFailed = true
            followingFailure?(error)
        }
    }

    /// Calls `handler` (on the store's executor) with each failure to read what other
    /// processes committed: a line the rules or the format refuse, a log shorter than what
    /// was read, a read that failed. The views stay as they were, and the store tries again
    /// at the next change of the log; a front end that follows the log says why it stopped
    /// moving (`timeline watch` warns). `resumed` is called when a catch-up succeeds
    /// after one failed (the server is back, the line was mended), once per recovery.
    package func onFollowingFailure(_ handler: @escaping @Sendable (StoreError) -> Void,
                                    whenReadingAgain resumed: (@Sendable () -> Void)? = nil) {
        followingFailure = handler
        followingResumed = resumed
    }

    // MARK: The clock

    /// Sets "now" for the views that place ongoing rows at now, publishing the rows that move.
    public func advanceClock(to instant: Instant) {
        publish(projection.advanceClock(to: instant))
    }

    /// Reads the store's clock every `interval` and advances the views to it, until
    /// ``stopClock()``; without it, "now" changes only through ``advanceClock(to:)``.
    public func startClock(every interval: Duration) {
        startClock(every: interval, on: ContinuousClock())
    }

    /// Reads the store's clock every `interval` of `ticks` (a test's clock, for example)
    /// and advances the views to it, until ``stopClock()``.
    package func startClock<C: Clock>(every interval: C.Duration, on ticks: C) {
        tickTask?.cancel()
        tickTask = Task { [weak self] in
            while !Task.isCancelled {
                do { try await ticks.sleep(for: interval) } catch { return }
                guard let self else { return }
                await self.advanceClock(to: self.clock.now())
            }
        }
    }

    /// Stops the automatic clock.
    public func stopClock() {
        tickTask?.cancel()
        tickTask = nil
    }

    /// Writes a checkpoint (for a store that keeps them), ends every subscription, stops the
    /// clock and releases the log.
    public func close() throws(StoreError) {
        defer { release() }
        if checkpointPath != nil, projection.position != checkpointedPosition { try saveCheckpoint() }
    }

    /// Ends every subscription, stops the clock and releases the log, without writing a
    /// checkpoint (a command that failed, or one whose caller writes it with ``close()``).
    /// With `removingAnEmptyLog`, a log file still empty is removed (a command that
    /// created it and then failed, on a full disk, leaves no empty log behind; see
    /// ``FileEventLog/closeRemovingIfEmpty()``).
    package func release(removingAnEmptyLog: Bool = false) {
        isReleased = true
        if removingAnEmptyLog, let file = log as? FileEventLog { _ = file.closeRemovingIfEmpty() }
        log.close()
        logWatch?.cancel()
        logWatch = nil
        stopClock()
        for buffer in subscribers.values.joined() { buffer.finish() }
        for buffer in summarySubscribers { buffer.finish() }
        subscribers = [:]
        summarySubscribers = []
    }
}
