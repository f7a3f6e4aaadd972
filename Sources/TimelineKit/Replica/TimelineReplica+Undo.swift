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
    // MARK: Undo and redo of this replica's sends

    /// Whether ``undo()`` has a send of this replica (made through this instance) to undo.
    public var canUndo: Bool { !undoHistory.undoSteps.isEmpty }

    /// Whether ``redo()`` has an undo to redo (one made since the last send).
    public var canRedo: Bool { !undoHistory.redoSteps.isEmpty }

    /// The name of what ``undo()`` undoes, for a menu's "Undo …": `Retitle "Born"`; `nil`
    /// when there is nothing to undo.
    public var undoActionName: String? { undoHistory.undoSteps.last?.actionName }

    /// The name of what ``redo()`` redoes, for a menu's "Redo …"; `nil` when there is nothing to redo.
    public var redoActionName: String? { undoHistory.redoSteps.last?.actionName }

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
