/// A replica's own side of sync, pure: its submissions not yet decided, in number order,
/// the notices of its rejected ones, and whether it may push.
///
/// It learns outcomes only from records mirrored from the shared log (``learn(from:)``),
/// never from a reply, so a sync cut off anywhere is finished by the next one.
package struct ReplicaQueue: Hashable, Sendable {
    /// Whether the replica pushes its submissions.
    package enum State: Hashable, Sendable {
        /// It pushes.
        case pushing
        /// It found an outcome for one of its command ids with another nonce: another copy
        /// of this device (restored from a backup, copied to another machine) used it. It
        /// pushes nothing more and keeps its pending submissions, to be sent again under a
        /// new device id.
        case stopped(conflict: SubmissionID)
    }

    /// A local id (the app's own id for a send) and the submission it was sent as.
    package struct LocalSend: Hashable, Sendable {
        /// The app's id.
        package var localID: String
        /// The submission.
        package var id: SubmissionID

        /// Creates one.
        package init(localID: String, id: SubmissionID) {
            self.localID = localID
            self.id = id
        }
    }

    /// How many decided submissions' local ids are remembered: a resend comes soon after
    /// its send (a process killed before it answered), not thousands of sends later.
    package static let decidedLocalIDsKept = 1_000

    /// The replica's device id.
    package let device: DeviceID
    /// The submissions not yet decided, in number order.
    package private(set) var pending: [Submission]
    /// The rejections not yet dismissed, oldest first.
    package private(set) var notices: [Notice]
    /// The number the next submission takes.
    package private(set) var nextNumber: Int64
    /// Whether it pushes.
    package private(set) var state: State
    /// The local ids of the last decided submissions that had one, oldest first
    /// (at most ``decidedLocalIDsKept``); pending ones keep theirs in ``pending``.
    package private(set) var decidedLocalIDs: [LocalSend]

    /// A queue with these contents (as read back from a replica's files).
    package init(device: DeviceID, pending: [Submission] = [], notices: [Notice] = [], nextNumber: Int64 = 1,
                 state: State = .pushing, decidedLocalIDs: [LocalSend] = []) {
        self.device = device
        self.pending = pending
        self.notices = notices
        self.nextNumber = max(nextNumber, (pending.last?.id.number ?? 0) + 1)
        self.state = state
        self.decidedLocalIDs = decidedLocalIDs
    }

    /// The submission sent with the local id `localID`, pending or among the last decided.
    ///
    /// - Complexity: O(*p* + ``decidedLocalIDsKept``).
    package func submission(localID: String) -> SubmissionID? {
        pending.first { $0.localID == localID }?.id ?? decidedLocalIDs.last { $0.localID == localID }?.id
    }

    /// Records a new submission of `commands`, made at `basePosition` of the shared log.
    ///
    /// - Complexity: O(1) amortised.
    package mutating func submit(_ commands: [Command], basePosition: Int64, nonce: String,
                                 madeAt: DateValue?, condition: UndoCondition? = nil,
                                 localID: String? = nil) -> Submission {
        let submission = nextSubmission(commands, basePosition: basePosition, nonce: nonce, madeAt: madeAt,
                                        condition: condition, localID: localID)
        add(submission)
        return submission
    }

    /// The submission ``submit(_:basePosition:nonce:madeAt:condition:localID:)`` would
    /// record, not recorded: a replica saves it first, then ``add(_:)``s it.
    /// - Complexity: O(1).
    package func nextSubmission(_ commands: [Command], basePosition: Int64, nonce: String,
                                madeAt: DateValue?, condition: UndoCondition? = nil,
                                localID: String? = nil) -> Submission {
        Submission(id: SubmissionID(device: device, number: nextNumber), nonce: nonce, commands: commands,
                   basePosition: basePosition, madeAt: madeAt, condition: condition, localID: localID)
    }

    /// Records `submission`, made by ``nextSubmission(_:basePosition:nonce:madeAt:condition:localID:)``
    /// on this queue as it is.
    /// - Complexity: O(1) amortised.
    package mutating func add(_ submission: Submission) {
        precondition(submission.id == SubmissionID(device: device, number: nextNumber),
                     "a submission added out of turn: \(submission.id), expected \(device):\(nextNumber)")
        nextNumber += 1
        pending.append(submission)
    }

    /// What mirroring some records taught this replica about its own submissions.
    package struct Learned: Hashable, Sendable {
        /// Its submissions the shared log accepted.
        package var accepted: [SubmissionID] = []
        /// Its submissions the shared log rejected (now notices).
        package var rejected: [Notice] = []
        /// The first of its command ids found with another nonce, if this stopped pushing.
        package var conflict: SubmissionID?

        /// Whether nothing was learned.
        package var isEmpty: Bool { accepted.isEmpty && rejected.isEmpty && conflict == nil }
    }

    /// Takes the outcomes of this device's submissions from newly mirrored records: each
    /// decided submission leaves the queue (a rejected one becomes a notice); an outcome
    /// with another nonce stops pushing.
    ///
    /// - Complexity: O(*r* + *p*) for *r* records and *p* pending submissions.
    package mutating func learn<C: Collection<Record>>(from records: C) -> Learned {
        var learned = Learned()
        for record in records {
            guard let command = record.commandID, let id = SubmissionID(commandID: command), id.device == device,
                  let index = pending.firstIndex(where: { $0.id == id }) else { continue }
            let submission = pending[index]
            guard record.submission == submission.nonce else {
                if case .pushing = state {
                    state = .stopped(conflict: id)
                    learned.conflict = id
                }
                continue
            }
            pending.remove(at: index)
            if let localID = submission.localID {
                decidedLocalIDs.append(LocalSend(localID: localID, id: id))
                if decidedLocalIDs.count > Self.decidedLocalIDsKept { decidedLocalIDs.removeFirst() }
            }
            if case .commandRejected(_, let rule, let message)? = record.facts.first {
                let notice = Notice(id: id, commands: submission.commands, rule: rule, message: message,
                                    position: record.position)
                notices.append(notice)
                learned.rejected.append(notice)
            } else {
                learned.accepted.append(id)
            }
        }
        return learned
    }

    /// Makes the next submission's number at least `number`: after the mirror shows that
    /// this device (another copy of it, restored from a backup) used numbers up to
    /// `number - 1`, a new submission never takes one of them.
    package mutating func numberAtLeast(_ number: Int64) {
        nextNumber = max(nextNumber, number)
    }

    /// Stops pushing: the shared log holds an outcome for `id` with another nonce.
    /// Returns whether it was pushing until now.
    package mutating func stop(conflict id: SubmissionID) -> Bool {
        guard case .pushing = state else { return false }
        state = .stopped(conflict: id)
        return true
    }

    /// The pending submissions that may be pushed now: all of them while pushing, none once stopped.
    package var pushable: [Submission] {
        if case .pushing = state { return pending }
        return []
    }

    /// Removes the notice of `id`; whether there was one.
    package mutating func dismissNotice(_ id: SubmissionID) -> Bool {
        guard let index = notices.firstIndex(where: { $0.id == id }) else { return false }
        notices.remove(at: index)
        return true
    }

    /// Removes every notice; how many there were.
    package mutating func dismissAllNotices() -> Int {
        defer { notices = [] }
        return notices.count
    }

    /// The facts the pending submissions add to `base` when decided again on top of it, in
    /// number order, by the same rules: a submission that no longer passes (another
    /// device's change came first) adds nothing here, but stays queued for the shared log.
    ///
    /// - Complexity: O(*k*) for the pending submissions' *k* facts; `base` is not copied.
    package func tentativeFacts(on base: some DomainLookup) -> (facts: [Fact], passing: [SubmissionID]) {
        let (facts, passing, _) = tentative(on: base)
        return (facts, passing)
    }

    /// ``tentativeFacts(on:)``, with the state they make: `base` seen through them, not copied.
    package func tentative<Base: DomainLookup>(on base: Base)
        -> (facts: [Fact], passing: [SubmissionID], shown: some DomainLookup) {
        overlay(on: base)
    }

    /// ``tentative(on:)``, with the overlay's own type, to keep it.
    func overlay<Base: DomainLookup>(on base: Base)
        -> (facts: [Fact], passing: [SubmissionID], shown: PendingState<Base>) {
        var overlay = PendingState(base: base)
        var facts: [Fact] = []
        var passing: [SubmissionID] = []
        for submission in pending {
            let proposed = submission.commands.flatMap(Decider.proposedFacts(for:))
            if proposed.count == 1 {
                // One fact (most submissions): checked on the overlay itself, no copy of it.
                guard (try? Decider.check(proposed[0], lookup: overlay)) != nil else { continue }
                overlay.apply(proposed[0])
            } else {
                // All or nothing: tried on a copy, kept only when every fact passes.
                var trial = overlay
                do throws(Rejection) {
                    for fact in proposed {
                        try Decider.check(fact, lookup: trial)
                        trial.apply(fact)
                    }
                } catch {
                    continue
                }
                overlay = trial
            }
            facts += proposed
            passing.append(submission.id)
        }
        return (facts, passing, overlay)
    }
}
