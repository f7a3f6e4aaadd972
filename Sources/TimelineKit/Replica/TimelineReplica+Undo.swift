import TimelineCore

/// One of a replica's sends (or undos) that can be undone (or redone): its submission and
/// the name a menu shows.
struct ReplicaUndoStep: Sendable {
    /// The submission whose batch, once the shared log has accepted it, is undone.
    var id: SubmissionID
    /// What a menu shows after "Undo " or "Redo ", such as `Retitle "Born"`.
    var actionName: String
}

extension TimelineReplica {
    // MARK: Reverting a mirrored batch

    /// Undoes the mirror's batch that holds the record at `position` (section 11): sends the
    /// commands that bring what it touched back to their state before it, as one submission
    /// carrying its condition (nothing touched those after the mirror's position), which the
    /// shared log checks: another device's change since is never overwritten (the submission
    /// is rejected `changedSince`, a notice).
    ///
    /// Refused at once, queueing nothing, as a revert on a plain log is
    /// (``ReplicaSendError/undoRefused(_:)``: a later mirrored record touched the same, the
    /// batch was undone already, no such record), or when a submission pending here breaks
    /// the condition (``ReplicaSendError/changedSince(_:)``).
    /// - Returns: the submission; `nil` when the batch changed nothing (nothing is queued).
    /// - Complexity: O(*n*) for the mirror's *n* records.
    public func revert(batchContaining position: Int64, localID: String? = nil) throws(ReplicaSendError) -> Submission? {
        let (compensation, condition) = try revertPlan(batchContaining: position)
        guard !compensation.commands.isEmpty else { return nil }
        return try send(compensation.commands, condition: condition, localID: localID)
    }

    /// The undo of the mirror's batch that holds the record at `position`, checked against
    /// the mirror's later records, and the condition the shared log is to check it by.
    /// - Complexity: O(*n*) for the mirror's *n* records.
    package func revertPlan(batchContaining position: Int64) throws(ReplicaSendError)
        -> (compensation: Compensation, condition: UndoCondition) {
        let path = self.path
        enum Outcome {
            case plan(Compensation, UndoCondition)
            case failed(StoreError)
            /// Refused for a later change whose undo is pending here.
            case undonePending(position: Int64, subject: UndoRefusal.Subject, by: SubmissionID)
            /// Refused: an undo of the same batch is pending here (`redo`: of the undo that undid it).
            case alreadyPending(SubmissionID, redo: Int64?)
        }
        let outcome: Outcome
        do throws(ReplicaError) {
            // Under the replica's exclusive access: no sync changes the mirror meanwhile.
            outcome = try exclusively { engine throws(ReplicaError) in
                let mirror: FileEventLog
                do throws(EventLogError) { mirror = try FileEventLog(path: path) } catch { return .failed(.log(error)) }
                defer { mirror.close() }
                do throws(StoreError) {
                    let compensation = try Compensation.ofBatch(containing: position, in: mirror, last: mirror.position)
                    // Its undo pending already: said before what the replica shows refuses it for that undo.
                    if let undo = engine.queue.pending.first(where: { $0.condition?.undoes == compensation.positions.lowerBound }) {
                        return .alreadyPending(undo.id, redo: nil)
                    }
                    // Refused by the rules for a timeline removed since: said as the store says it.
                    do throws(Rejection) { _ = try engine.check(compensation.commands) } catch {
                        let later = (try? mirror.records(after: compensation.positions.upperBound)) ?? []
                        if let refusal = compensation.refusal(for: error, later: later) { return .failed(.undoRefused(refusal)) }
                    }
                    return .plan(compensation, UndoCondition(after: mirror.position, events: compensation.events,
                                                             timelines: compensation.timelines,
                                                             undoes: compensation.positions.lowerBound))
                } catch .undoRefused(.alreadyUndone(let undo)) {
                    // Undone, and the revert of that undo (a redo) pending here.
                    if let redo = engine.queue.pending.first(where: { $0.condition?.undoes == undo }) {
                        return .alreadyPending(redo.id, redo: undo)
                    }
                    return .failed(.undoRefused(.alreadyUndone(by: undo)))
                } catch .undoRefused(.changedLater(let later, let subject)) {
                    if let undo = Self.pendingUndo(of: later, among: engine.queue.pending, in: mirror) {
                        return .undonePending(position: later, subject: subject, by: undo)
                    }
                    return .failed(.undoRefused(.changedLater(position: later, subject: subject)))
                } catch {
                    return .failed(error)
                }
            }
        } catch {
            throw .replica(error)
        }
        switch outcome {
        case .plan(let compensation, let condition): return (compensation, condition)
        case .alreadyPending(let id, nil):
            throw .changedSince("this batch's undo is pending on this device already, as \(id): sync to send it")
        case .alreadyPending(let id, let undo?):
            throw .changedSince("this batch was undone by record \(undo), and the revert of that undo is pending on this "
                + "device, as \(id): sync, then revert this batch again")
        case .undonePending(let later, let subject, let undo):
            throw .changedSince("record \(later) changed \(subject) after this batch, and its undo is pending on this "
                + "device, as \(undo): sync, then revert this batch again")
        case .failed(.undoRefused(let refusal)): throw .undoRefused(refusal)
        case .failed(.log(let error)):
            if case .invalidLine = error { throw .replica(.damaged(path: path, reason: error.description)) }
            throw .replica(.storage(path: path, reason: error.description))
        case .failed(let other): throw .replica(.storage(path: path, reason: other.description))
        }
    }

    /// The pending undo, if any, of the mirror's batch that holds the record at `position`.
    private static func pendingUndo(of position: Int64, among pending: [Submission], in mirror: FileEventLog) -> SubmissionID? {
        for submission in pending {
            guard let undone = submission.condition?.undoes, undone <= position else { continue }
            if undone == position { return submission.id }
            // One batch from `undone` through `position`: every record before it says more follow.
            guard let records = try? mirror.records(after: undone - 1) else { continue }
            if records.prefix(Int(position - undone)).allSatisfy({ $0.batchRemainder > 0 }) { return submission.id }
        }
        return nil
    }

    // MARK: Undo and redo of this replica's sends

    /// Whether ``undo()`` has a send of this replica (made through this instance) to undo:
    /// one the shared log has not rejected (a rejected send changed nothing).
    public var canUndo: Bool { top(of: \.undoSteps) != nil }

    /// Whether ``redo()`` has an undo to redo (one made since the last send, not rejected).
    public var canRedo: Bool { top(of: \.redoSteps) != nil }

    /// The name of what ``undo()`` undoes, for a menu's "Undo …": `Retitle "Born"`; `nil`
    /// when there is nothing to undo.
    public var undoActionName: String? { top(of: \.undoSteps)?.actionName }

    /// The name of what ``redo()`` redoes, for a menu's "Redo …"; `nil` when there is nothing to redo.
    public var redoActionName: String? { top(of: \.redoSteps)?.actionName }

    /// The last step of `steps` that the shared log has not rejected, as the mirror holds
    /// it (read again first, if another process synced): the one ``undo()`` or ``redo()``
    /// takes, passing over the rejected ones.
    /// - Complexity: the replica's lock, and a read of its files if another process
    ///   changed them; O(*s*) for the *s* steps.
    private func top(of steps: KeyPath<UndoHistory<ReplicaUndoStep>, [ReplicaUndoStep]>) -> ReplicaUndoStep? {
        let candidates = undoHistory[keyPath: steps]
        let rejected = (try? exclusively { engine throws(ReplicaError) in
            Set(candidates.map(\.id).filter { id in
                guard let outcome = engine.shared.outcomes[id.description] else { return false }
                return outcome.position <= engine.mirrorPosition && outcome.rule != nil
            })
        }) ?? []
        return candidates.last { !rejected.contains($0.id) }
    }

    /// Undoes this replica's last send not yet undone, as a front end's undo manager expects:
    /// sends the undo of its batch (``revert(batchContaining:localID:)``), one submission that
    /// the shared log checks, and keeps it for ``redo()``.
    ///
    /// The send must be decided: while it is pending the undo is refused
    /// (``UndoRefusal/notDecidedYet(_:)``: sync, then undo), since only the shared log's
    /// records say what the batch changed. A send the shared log rejected changed nothing and
    /// is passed over. Refused as a revert is otherwise; the step then stays to undo.
    /// - Returns: the undo's submission; `nil` when the send changed nothing.
    /// - Complexity: O(*n*) for the mirror's *n* records.
    @discardableResult
    public func undo() throws(ReplicaSendError) -> Submission? {
        try step(from: \.undoSteps, to: \.redoSteps, nothing: .nothingToUndo)
    }

    /// Redoes the last undo: undoes it, as any batch is undone, once the shared log has
    /// accepted it. Refused as ``undo()`` is; a new send since the undo leaves nothing to redo.
    /// - Returns: the redo's submission; `nil` when the undo changed nothing.
    /// - Complexity: as ``undo()``.
    @discardableResult
    public func redo() throws(ReplicaSendError) -> Submission? {
        try step(from: \.redoSteps, to: \.undoSteps, nothing: .nothingToRedo)
    }

    /// Undoes the batch of the top step of `from` and keeps the undo on `to`.
    private func step(from: WritableKeyPath<UndoHistory<ReplicaUndoStep>, [ReplicaUndoStep]>,
                      to: WritableKeyPath<UndoHistory<ReplicaUndoStep>, [ReplicaUndoStep]>,
                      nothing: UndoRefusal) throws(ReplicaSendError) -> Submission? {
        while let step = undoHistory[keyPath: from].last {
            let outcome = try mirroredOutcome(of: step.id)
            guard outcome.rule == nil else {
                undoHistory[keyPath: from].removeLast()  // rejected: it changed nothing
                continue
            }
            let submission = try revert(batchContaining: outcome.position)
            undoHistory[keyPath: from].removeLast()
            if let submission {
                let next = ReplicaUndoStep(id: submission.id, actionName: step.actionName)
                if to == \.undoSteps { undoHistory.push(undo: next, clearingRedo: false) } else { undoHistory[keyPath: to].append(next) }
            }
            return submission
        }
        throw .undoRefused(nothing)
    }

    /// The outcome of this device's submission `id` as the mirror holds it (another
    /// process may have synced since: the replica's files are read again first).
    private func mirroredOutcome(of id: SubmissionID) throws(ReplicaSendError) -> SharedLogState.Outcome {
        let found: SharedLogState.Outcome?
        do {
            found = try exclusively { engine throws(ReplicaError) in
                engine.shared.outcomes[id.description].flatMap { $0.position <= engine.mirrorPosition ? $0 : nil }
            }
        } catch {
            throw .replica(error)
        }
        guard let found else { throw .undoRefused(.notDecidedYet(id)) }
        return found
    }
}

extension TimelineReplica {
    /// The mirror's batch of `commandID` (a device's `D:n`, or the id of a plain log's
    /// import) and, when it stands undone, the batch whose revert brings it back
    /// (``Compensation/undoInForce(of:amongLater:)``); `nil` when the mirror has no such batch.
    /// - Complexity: O(*n*) for the mirror's records after the batch.
    package func mirroredBatch(commandID: String) throws(ReplicaError) -> (positions: ClosedRange<Int64>, undoneBy: Int64?)? {
        let path = self.path
        return try exclusively { _ throws(ReplicaError) in
            do throws(EventLogError) {
                let mirror = try FileEventLog(path: path)
                defer { mirror.close() }
                guard let records = try mirror.records(forCommandID: commandID),
                      let first = records.first?.position, let last = records.last?.position else { return nil }
                return (first...last, Compensation.undoInForce(of: first...last, amongLater: try mirror.records(after: last)))
            } catch {
                throw .storage(path: path, reason: error.description)
            }
        }
    }
}
