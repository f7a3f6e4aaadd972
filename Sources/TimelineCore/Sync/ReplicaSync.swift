/// The replica's sync engine: one replica's state (what it mirrored, folded into a
/// ``SharedLogState``; its ``ReplicaQueue``) and the steps of a sync, against any
/// ``EventLog`` that decides under its lock (a file log, a PostgreSQL log) and any
/// ``ReplicaStorage`` (files, or memory in the simulation).
///
/// Every decision is made by pure code (``SharedLogState/decide(_:recordedAt:)``,
/// ``ReplicaQueue/learn(from:)``); this type only runs the steps in order, each durable
/// before the next:
///
/// 1. pull: read the shared log's lines after the mirror, append them to the mirror,
///    fold them, learn this device's outcomes from them, save the queue;
/// 2. push: for each pending submission in number order, one append to the shared log
///    that, under its lock, folds what others appended and decides the submission
///    (its facts, or a `commandRejected` record, with `cmd` `D:n` and `sub` its nonce);
/// 3. pull again.
///
/// A sync cut off anywhere (a kill, a lost reply) is finished by the next: outcomes are
/// learned only from the mirror, and a command id already decided is never decided again.
package struct ReplicaSync {
    /// A point of a sync where a test may stop it, as a kill would.
    package enum Step: String, Sendable, CaseIterable {
        /// Before the shared log's lock is taken for a submission.
        case beforeLock
        /// After a submission's outcome was appended to the shared log, before anything else.
        case afterAppend
        /// After lines were read from the shared log, before the mirror is written.
        case beforeMirror
        /// After the mirror was written, before the queue is saved.
        case afterMirror
    }

    /// What one sync did (the contract's `sync --json`).
    package struct Report: Hashable, Sendable {
        /// This device's submissions whose outcomes this sync learned.
        package var pushed = 0
        /// Of those, accepted.
        package var accepted = 0
        /// Of those, rejected (each now a notice).
        package var rejected = 0
        /// Records mirrored.
        package var pulled = 0
        /// The mirror's position after the sync.
        package var position: Int64 = 0
        /// Submissions still pending.
        package var pending = 0
        /// The rejections this sync learned.
        package var notices: [Notice] = []
    }

    /// Where the replica keeps its files.
    package let storage: any ReplicaStorage
    /// The shared log's name, for messages (a path, or a URL without its password).
    package let sharedName: String
    /// The shared log's state as far as this replica has read it (the mirror, and during a
    /// sync what it read under the lock).
    package private(set) var shared = SharedLogState()
    /// This device's submissions and notices.
    package private(set) var queue: ReplicaQueue
    /// What the replica shows (the mirror with the pending submissions that pass on top),
    /// kept between sends so that a send decides its own commands only, never every pending
    /// submission again; `key` says what it was made from.
    var shown: (key: ShownKey, state: PendingState<DomainState>)?

    /// What ``shown`` was made from: the mirror's position and the pending submissions (a
    /// submission decided or sent changes the count or an end; numbers are never reused).
    struct ShownKey: Equatable {
        var position: Int64
        var count: Int
        var first: SubmissionID?
        var last: SubmissionID?
    }

    private var shownKey: ShownKey {
        ShownKey(position: mirrorPosition, count: queue.pending.count, first: queue.pending.first?.id,
                 last: queue.pending.last?.id)
    }
    /// The position of the mirror's last record.
    package private(set) var mirrorPosition: Int64 = 0
    /// The mirror's last record, to check that the shared log still continues it.
    private var lastMirrored: Record?
    /// When the shared log recorded the last mirrored record that says (a folder replica's
    /// `status`: when the sequencer was last heard of).
    package private(set) var lastRecordedAt: DateValue?
    /// Why the mirror must be fetched again (by the next sync, or `timeline repair`), if it must.
    package private(set) var mirrorProblem: String?
    /// Stops a sync at a step (tests' fault injection); `nil` in normal use.
    package var fault: (@Sendable (Step) -> Bool)?

    /// Opens the replica kept in `storage`: folds its mirror and learns from it the
    /// outcomes a sync cut off before saving its queue had already mirrored.
    package init(storage: any ReplicaStorage, sharedName: String) throws(ReplicaError) {
        self.storage = storage
        self.sharedName = sharedName
        let contents = try storage.load()
        queue = ReplicaQueue(device: contents.device, pending: contents.pending, notices: contents.notices,
                             state: contents.state, decidedLocalIDs: contents.decidedLocalIDs)
        mirrorProblem = contents.mirrorProblem
        if mirrorProblem == nil {
            do { try shared.apply(contents.mirror) } catch {
                mirrorProblem = "record \(error.fact.type.rawValue) at position \(contents.mirror.count): "
                    + error.rejection.description
            }
        }
        guard mirrorProblem == nil else {
            shared = SharedLogState()
            return
        }
        mirrorPosition = shared.position
        lastMirrored = contents.mirror.last
        lastRecordedAt = contents.mirror.last { $0.recordedAt != nil }?.recordedAt
        let learned = queue.learn(from: contents.mirror)
        queue.numberAtLeast((shared.lastNumbers[queue.device] ?? 0) + 1)
        // Saved when it can be: the mirror teaches the same again at the next opening (a
        // full disk must not stop a command that only reads).
        if !learned.isEmpty { try? storage.replaceQueue(queue) }
    }

    /// The device id.
    package var device: DeviceID { queue.device }

    /// Records a submission of `commands` durably (before it returns) and queues it; it
    /// touches no network.
    package mutating func send(_ commands: [Command], madeAt: DateValue?, nonce: String,
                               condition: UndoCondition? = nil, localID: String? = nil) throws(ReplicaError) -> Submission {
        // Saved, then recorded: the queue is not copied (a copy costs O(pending) a send).
        let submission = queue.nextSubmission(commands, basePosition: mirrorPosition, nonce: nonce, madeAt: madeAt,
                                              condition: condition, localID: localID)
        try storage.appendPending(submission)
        let before = shownKey
        queue.add(submission)
        // The shown state after it: its facts on top when they pass there, as
        // `ReplicaQueue.tentative` would decide it; else made again when next needed.
        // Taken out of `shown` first, so that applying them does not copy its tables.
        if var kept = shown.take(), kept.key == before, let facts = try? Decider.decide(commands, kept.state) {
            for fact in facts { kept.state.apply(fact) }
            shown = (shownKey, kept.state)
        }
        return submission
    }

    /// Decides `commands` against what the replica shows (the mirror with the pending
    /// submissions that pass on top): the facts they would record, or why not.
    /// - Complexity: O(*k*) for the commands' *k* facts while the replica is unchanged since
    ///   the last send or check; else O(*p*) to decide the *p* pending submissions' facts again.
    package mutating func check(_ commands: [Command]) throws(Rejection) -> [Fact] {
        try Decider.decide(commands, shownState())
    }

    /// What the replica shows (the mirror with the pending submissions that pass on top),
    /// kept between sends.
    /// - Complexity: O(1) while the replica is unchanged since the last call; else O(*p*) to
    ///   decide the *p* pending submissions' facts again.
    package mutating func shownState() -> some DomainLookup {
        let key = shownKey
        if let kept = shown, kept.key == key { return kept.state }
        let state = queue.overlay(on: shared.domain).shown
        shown = (key, state)
        return state
    }

    /// At least the number of events the replica shows: the mirror's, plus one per
    /// pending command, plus one per command of a notice (so that an id a rejected
    /// submission carried is not made again for another event while its notice stands).
    /// An id made after it (`e<n+1>.TAG`) is free unless a person gave such an id, so ids
    /// made offline go up by one per command.
    /// - Complexity: O(*p*) for the *p* pending submissions and notices.
    package var shownEventBound: Int {
        let pending = queue.pending.reduce(shared.domain.events.count) { $0 + $1.commands.count }
        return queue.notices.reduce(pending) { $0 + $1.commands.count }
    }

    /// Why an undo's `condition` already fails on this device: one of its events or
    /// timelines is touched (as the shared log counts touches) by a submission still
    /// pending here, which the shared log decides first (`changedSince`); `nil` when none is.
    ///
    /// - Complexity: O(*f*) for the pending submissions' *f* facts.
    package func pendingChange(against condition: UndoCondition) -> String? {
        let events = Set(condition.events), timelines = Set(condition.timelines)
        for submission in queue.pending {
            for fact in submission.commands.flatMap(Decider.proposedFacts(for:)) {
                var touched = fact.event.map(events.contains) ?? false
                if let timeline = fact.touchedTimeline {
                    touched = touched || timelines.contains(timeline)
                    if case .timelineRemoved = fact {
                        touched = touched || shared.domain.eventIDs(in: timeline).contains(where: events.contains)
                    }
                }
                if touched {
                    if let undone = condition.undoes, submission.condition?.undoes == undone {
                        return "this batch's undo is pending on this device already, as \(submission.id): sync to send it"
                    }
                    return "\(submission.id), pending on this device, changes what the undo would restore: the undo "
                        + "would overwrite that change; sync, then undo that change first"
                }
            }
        }
        return nil
    }

    /// Stops pushing: another copy of this device used `conflict` (saved at once).
    mutating func stop(conflict: SubmissionID) throws(ReplicaError) {
        if queue.stop(conflict: conflict) { try storage.replaceQueue(queue) }
    }

    /// Dismisses the notice of `id`; whether there was one.
    package mutating func dismissNotice(_ id: SubmissionID) throws(ReplicaError) -> Bool {
        var next = queue
        guard next.dismissNotice(id) else { return false }
        try storage.replaceQueue(next)
        queue = next
        return true
    }

    /// Dismisses every notice; how many there were.
    package mutating func dismissAllNotices() throws(ReplicaError) -> Int {
        var next = queue
        let count = next.dismissAllNotices()
        if count > 0 { try storage.replaceQueue(next) }
        queue = next
        return count
    }

    /// One sync with the shared log `log`: pull, push every pending submission, pull.
    /// `now` stamps each outcome's records.
    ///
    /// - Throws: ``ReplicaError/unreachable(shared:reason:)`` when the log cannot be read or
    ///   appended to (what was done before stays done); ``ReplicaError/stopped(conflict:)``
    ///   once another copy of the device is found, after pulling.
    package mutating func sync(with log: any EventLog, now: () -> DateValue?) throws(ReplicaError) -> Report {
        shown = nil  // a push reads the shared log beyond the mirror
        var report = Report()
        try pull(log, into: &report)
        let sent = if let batching = log as? any BatchAppending {
            try push(to: batching, now: now)
        } else {
            try pushOneByOne(to: log, now: now)
        }
        do { try pull(log, into: &report) } catch { throw failure(error, after: sent) }
        report.position = mirrorPosition
        report.pending = queue.pending.count
        if case .stopped(let conflict) = queue.state { throw .stopped(conflict: conflict) }
        return report
    }

    /// Pushes every pending submission in one hold of the shared log's lock: each decided
    /// against the log and the ones before it, all made durable at once. Returns those the
    /// shared log holds now.
    private mutating func push(to log: any BatchAppending, now: () -> DateValue?) throws(ReplicaError) -> [SubmissionID] {
        let pushable = queue.pushable
        guard !pushable.isEmpty else { return [] }
        var sent: [SubmissionID] = []
        if fault?(.beforeLock) == true { throw .interrupted(step: Step.beforeLock.rawValue) }
        let recordedAt = now()
        var conflict: SubmissionID?
        do {
            _ = try log.appendEach(after: shared.position, count: pushable.count, catchingUp: { (records) throws(FactRefusal) in
                try self.shared.apply(records)
            }, deciding: { (index) throws(FactRefusal) -> PlannedBatch? in
                let submission = pushable[index]
                if index == 0 { sent = [] }  // decided again after catching up
                let options = AppendOptions(commandID: submission.id.description, recordedAt: recordedAt,
                                            submission: submission.nonce)
                switch self.shared.decide(submission, recordedAt: recordedAt) {
                case .append(let facts, let options):
                    sent.append(submission.id)
                    return PlannedBatch(facts: facts, options: options)
                case .alreadyDecided(_, let sameSubmission):
                    guard sameSubmission else {
                        conflict = submission.id
                        return nil
                    }
                    sent.append(submission.id)
                    return PlannedBatch(facts: [], options: options)
                case .outOfOrder:
                    // An earlier submission of this device has no outcome yet (another
                    // copy's numbering): nothing after it is decided before it.
                    return nil
                }
            })
        } catch {
            throw unreachable(error)
        }
        if fault?(.afterAppend) == true { throw .interrupted(step: Step.afterAppend.rawValue) }
        if let conflict, queue.stop(conflict: conflict) { try storage.replaceQueue(queue) }
        return sent
    }

    /// `error`, thrown after `sent` reached the shared log: the replica's own files failing
    /// then is said as ``ReplicaError/sentNotRecorded(shared:sent:path:reason:)``, so that
    /// nobody sends again what the shared log holds.
    func failure(_ error: ReplicaError, after sent: [SubmissionID]) -> ReplicaError {
        guard case .storage(let path, let reason) = error, !sent.isEmpty else { return error }
        return .sentNotRecorded(shared: sharedName, sent: sent, path: path, reason: reason)
    }

    /// Why a push failed, as a person reads it: the shared log's error, or a record of it
    /// that the rules refuse.
    private func unreachable(_ error: AppendFailure<FactRefusal>) -> ReplicaError {
        switch error {
        case .log(let failure): logFailure(failure)
        case .refused(let refusal):
            .sharedLogDamaged(shared: sharedName, reason: "its \(refusal.place) breaks the rules: "
                + refusal.rejection.description)
        }
    }

    /// Why the shared log failed (``ReplicaError/sharedLog(_:failed:)``).
    func logFailure(_ error: EventLogError) -> ReplicaError { .sharedLog(sharedName, failed: error) }

    /// Pushes every pending submission, one append (one hold of the lock) each.
    private mutating func pushOneByOne(to log: any EventLog, now: () -> DateValue?) throws(ReplicaError) -> [SubmissionID] {
        var sent: [SubmissionID] = []
        for submission in queue.pushable {
            if fault?(.beforeLock) == true { throw .interrupted(step: Step.beforeLock.rawValue) }
            // One set of options for either outcome: a rejection's `undo` is read as nothing
            // (``Record/undoneBatch``).
            let options = AppendOptions(commandID: submission.id.description, recordedAt: now(),
                                        submission: submission.nonce, undoes: submission.condition?.undoes)
            var waits = false
            var conflict = false
            do {
                // The state is changed in place (a copy would copy every event once changed).
                _ = try log.append(after: shared.position, options: options, catchingUp: { (records) throws(FactRefusal) in
                    try self.shared.apply(records)
                }, deciding: { () throws(FactRefusal) -> [Fact] in
                    switch self.shared.decide(submission, recordedAt: options.recordedAt) {
                    case .append(let facts, _): return facts
                    case .alreadyDecided(_, let sameSubmission):
                        conflict = !sameSubmission
                        return []
                    case .outOfOrder:
                        waits = true
                        return []
                    }
                })
            } catch {
                throw unreachable(error)
            }
            if fault?(.afterAppend) == true { throw .interrupted(step: Step.afterAppend.rawValue) }
            if conflict, queue.stop(conflict: submission.id) {
                try storage.replaceQueue(queue)
                break
            }
            // An earlier submission of this device has no outcome yet (another copy's
            // numbering): nothing after it is decided before it.
            if waits { break }
            sent.append(submission.id)
        }
        return sent
    }

    /// Reads the shared log's committed records after a position, with their lines.
    typealias Reading = (Int64) throws(ReplicaError) -> (records: [Record], bytes: [UInt8])

    /// How to read `log` after a position.
    func reading(_ log: any EventLog) -> Reading {
        { (position) throws(ReplicaError) in
            do throws(EventLogError) { return try log.linesForMirror(after: position) } catch {
                throw logFailure(error)
            }
        }
    }

    /// Throws ``ReplicaError/sharedLogChanged(shared:position:)`` when `log` does not
    /// continue the mirror (its record at the mirror's position is not the one mirrored:
    /// it was replaced, shortened, or is another log), as a sync would; reads one chunk.
    package func checkContinued(by log: any EventLog) throws(ReplicaError) {
        guard mirrorPosition > 0, mirrorProblem == nil else { return }
        var found: Record?
        do throws(EventLogError) {
            try log.forEachChunk(after: mirrorPosition - 1) { records in
                found = records.first
                return false
            }
        } catch {
            throw .sharedLog(sharedName, failed: error)
        }
        guard found == lastMirrored else { throw .sharedLogChanged(shared: sharedName, position: mirrorPosition) }
    }

    /// Mirrors what the shared log committed after the mirror, folds it, and learns this
    /// device's outcomes from it.
    private mutating func pull(_ log: any EventLog, into report: inout Report) throws(ReplicaError) {
        try pull(reading(log), into: &report)
    }

    /// Mirrors what `read` gives after the mirror, folds it, and learns this device's
    /// outcomes from it.
    ///
    /// With `waiting`, a source that gives nothing from the mirror's position on is one
    /// whose files have not arrived (a folder not synced yet), not a replaced log.
    mutating func pull(_ read: Reading, into report: inout Report, waiting: Bool = false) throws(ReplicaError) {
        if let problem = mirrorProblem { try fetchAgain(read, because: problem, into: &report) }
        let read = try read(max(0, mirrorPosition - 1))
        var records = read.records[...]
        var bytes = read.bytes[...]
        if waiting, records.isEmpty { return }
        if mirrorPosition > 0 {
            // The record at the mirror's position must be the one mirrored: otherwise the
            // shared log was replaced, shortened, or is another log.
            guard let first = records.first, first == lastMirrored else {
                throw .sharedLogChanged(shared: sharedName, position: mirrorPosition)
            }
            records = records.dropFirst()
            bytes = bytes[(bytes.firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.endIndex)...]
        }
        guard let last = records.last else { return }
        if fault?(.beforeMirror) == true { throw .interrupted(step: Step.beforeMirror.rawValue) }
        // Folded before mirrored: a record the rules refuse never reaches the mirror, so the
        // replica still opens and shows what it did until the shared log is put right. (The
        // state may then hold records after the mirror, as after a push's catching up.)
        try fold(records, into: &shared)
        try storage.appendToMirror(Array(bytes))
        try absorb(records, into: &report)
        lastMirrored = last
    }

    /// Folds records of the shared log into `state`; a record the rules refuse is damage of
    /// the shared log.
    private func fold(_ records: ArraySlice<Record>, into state: inout SharedLogState) throws(ReplicaError) {
        do { try state.apply(records) } catch {
            throw .sharedLogDamaged(shared: sharedName, reason: "its \(error.place) breaks the rules: "
                + error.rejection.description)
        }
    }

    /// Takes in records just mirrored (folded already) and saves what they taught the queue.
    mutating func absorb(_ records: ArraySlice<Record>, into report: inout Report) throws(ReplicaError) {
        guard let last = records.last else { return }
        mirrorPosition = last.position
        lastRecordedAt = records.last { $0.recordedAt != nil }?.recordedAt ?? lastRecordedAt
        var learned = queue.learn(from: records)
        queue.numberAtLeast((shared.lastNumbers[queue.device] ?? 0) + 1)
        // A pending number the mirror already holds another outcome for (read before this
        // submission was made, so not among these records): another copy of this device.
        for submission in queue.pending {
            guard let outcome = shared.outcomes[submission.id.description], outcome.nonce != submission.nonce else {
                continue
            }
            if queue.stop(conflict: submission.id) { learned.conflict = submission.id }
            break
        }
        report.pulled += records.count
        report.accepted += learned.accepted.count
        report.rejected += learned.rejected.count
        report.pushed += learned.accepted.count + learned.rejected.count
        report.notices += learned.rejected
        if fault?(.afterMirror) == true { throw .interrupted(step: Step.afterMirror.rawValue) }
        if !learned.isEmpty { try storage.replaceQueue(queue) }
    }

    /// Fetches the whole mirror again from `log` (`timeline repair` on a replica); the
    /// pending submissions and notices stay. Returns how many records it holds.
    package mutating func fetchMirrorAgain(from log: any EventLog) throws(ReplicaError) -> Int {
        try fetchMirrorAgain(reading(log))
    }

    /// Fetches the whole mirror again from what `read` gives.
    mutating func fetchMirrorAgain(_ read: Reading) throws(ReplicaError) -> Int {
        shown = nil
        var report = Report()
        try fetchAgain(read, because: "asked for", into: &report)
        return report.pulled
    }

    /// Fetches the whole mirror again (it was damaged); the pending submissions stay.
    private mutating func fetchAgain(_ read: Reading, because problem: String,
                                     into report: inout Report) throws(ReplicaError) {
        let read = try read(0)
        // Checked before it replaces the mirror, as in a pull.
        var fetched = SharedLogState()
        try fold(read.records[...], into: &fetched)
        try storage.replaceMirror(read.bytes)
        shared = fetched
        mirrorPosition = 0
        mirrorProblem = nil
        try absorb(read.records[...], into: &report)
        lastMirrored = read.records.last
    }
}
