import TimelineCore
import TimelineProjections

/// One step a front end can undo or redo: the batch that takes it back, and its name.
struct UndoStep: Sendable {
    /// The commands that take the step back, and what the step touched.
    var compensation: Compensation
    /// What a menu shows after "Undo " or "Redo ", such as `Retitle "Born"`.
    var actionName: String
}

/// The sends that can be undone, and the undos that can be redone, last on top: a store's
/// (``UndoStep``) or a replica's (``ReplicaUndoStep``).
///
/// Invariant: a redo step exists only for an undo made since the last send; a new send
/// clears them, as a front end's undo manager does.
struct UndoHistory<Step: Sendable>: Sendable {
    var undoSteps: [Step] = []
    var redoSteps: [Step] = []

    /// How many sends are kept for undo; the oldest goes first.
    static var limit: Int { 100 }

    /// Keeps `step` as the one to undo next, after a send (which clears redo) or a redo.
    mutating func push(undo step: Step, clearingRedo: Bool) {
        undoSteps.append(step)
        if undoSteps.count > Self.limit { undoSteps.removeFirst(undoSteps.count - Self.limit) }
        if clearingRedo { redoSteps.removeAll() }
    }
}

extension TimelineStore {
    // MARK: Undo and redo of the store's sends

    /// Whether ``undo()`` has a send of this store to undo.
    public var canUndo: Bool { !undoHistory.undoSteps.isEmpty }

    /// Whether ``redo()`` has an undo to redo (one made since the last send).
    public var canRedo: Bool { !undoHistory.redoSteps.isEmpty }

    /// The name of what ``undo()`` undoes, for a menu's "Undo …": `Retitle "Born"`,
    /// `Remove 3 events`; `nil` when there is nothing to undo.
    public var undoActionName: String? { undoHistory.undoSteps.last?.actionName }

    /// The name of what ``redo()`` redoes, for a menu's "Redo …"; `nil` when there is nothing to redo.
    public var redoActionName: String? { undoHistory.redoSteps.last?.actionName }

    /// Undoes the store's last send not yet undone: appends its compensating batch, the
    /// commands that bring every event and timeline it touched back to their state before it.
    ///
    /// The undo is an ordinary batch (other processes see it like any other), whose command
    /// id is `undo:N` for the send's first position N. It is refused, appending nothing,
    /// when a later record (of any process) touched the same events or timelines
    /// (``UndoRefusal/changedLater(position:subject:)``), or with the rule's message when the
    /// rules refuse it; the step stays to undo. A send that changed nothing undoes to nothing.
    /// - Returns: the records appended (none for a send that changed nothing).
    /// - Complexity: O(*r*) for the *r* records after the send, plus the commands' own cost.
    @discardableResult
    public func undo() throws(StoreError) -> [Record] {
        guard let step = undoHistory.undoSteps.last else { throw .undoRefused(.nothingToUndo) }
        let (records, inverse) = try perform(step.compensation)
        undoHistory.undoSteps.removeLast()
        undoHistory.redoSteps.append(UndoStep(compensation: inverse, actionName: step.actionName))
        return records
    }

    /// Redoes the last undo: undoes it, as any batch is undone, and makes the send undoable again.
    ///
    /// Refused as ``undo()`` is; a new send since the undo leaves nothing to redo.
    /// - Returns: the records appended.
    /// - Complexity: as ``undo()``.
    @discardableResult
    public func redo() throws(StoreError) -> [Record] {
        guard let step = undoHistory.redoSteps.last else { throw .undoRefused(.nothingToRedo) }
        let (records, inverse) = try perform(step.compensation)
        undoHistory.redoSteps.removeLast()
        undoHistory.push(undo: UndoStep(compensation: inverse, actionName: step.actionName), clearingRedo: false)
        return records
    }

    // MARK: Reverting any batch of the log

    /// Undoes the log's batch that holds the record at `position`, whoever sent it: appends
    /// the commands that bring what it touched back to their state before it, refused as
    /// ``undo()`` is. This is what a refusal's advice "revert record N" asks for.
    /// - Returns: the records appended; none when the batch changed nothing.
    /// - Complexity: O(*n*) for the log's *n* records.
    @discardableResult
    public func revert(batchContaining position: Int64) throws(StoreError) -> [Record] {
        try perform(compensation(forBatchContaining: position)).records
    }

    /// The undo of the batch of the log that holds the record at `position`, checked
    /// against every record after it (``Compensation/checkLater(_:)``).
    ///
    /// Reads the log from its start (the state before the batch is folded from the records).
    /// - Complexity: O(*n*) for the log's *n* records.
    package func compensation(forBatchContaining position: Int64) throws(StoreError) -> Compensation {
        try Compensation.ofBatch(containing: position, in: log, last: projection.position)
    }

    /// Appends `compensation`'s commands as the undo of its batch (refused as ``undo()`` is).
    /// - Returns: the records appended; none when the batch changed nothing.
    @discardableResult
    package func revert(_ compensation: Compensation) throws(StoreError) -> [Record] {
        try perform(compensation).records
    }

    /// Checks `compensation` against the records after its batch and appends its commands,
    /// expecting the log where it was read: a record another process appends meanwhile is
    /// read and checked again. Returns the records and the undo of the batch appended.
    private func perform(_ compensation: Compensation) throws(StoreError) -> (records: [Record], inverse: Compensation) {
        // Nothing to append: undoing the undo is nothing too.
        guard !compensation.commands.isEmpty else { return ([], compensation) }
        var attempts = 0
        while true {
            attempts += 1
            let later: [Record]
            do { later = try log.records(after: compensation.positions.upperBound) } catch { throw .log(error) }
            do throws(UndoRefusal) { try compensation.checkLater(later) } catch { throw .undoRefused(error) }
            do {
                let sent = try sendRecordingUndo(compensation.commands, commandID: compensation.commandID,
                                                 expectedPosition: later.last?.position ?? compensation.positions.upperBound)
                // The same undo appended already (by another process): nothing new to redo.
                return (sent.records, sent.undo ?? Compensation(facts: [], positions: compensation.positions,
                                                                before: DomainState()))
            } catch .rejected(let rejection) {
                throw compensation.refusal(for: rejection, later: later).map { .undoRefused($0) } ?? .rejected(rejection)
            } catch .log(.conflict) where attempts < 3 {
                continue
            }
        }
    }

    /// Decides and appends `commands` as one batch, as `send` does; returns its records and,
    /// unless it was a duplicate, its undo, made from the state just before it (under the
    /// log's lock, after every other process's records).
    func sendRecordingUndo(_ commands: [Command], commandID: String?, expectedPosition: Int64?)
        throws(StoreError) -> (records: [Record], undo: Compensation?, actionName: String) {
        try sendRecordingUndo({ _ in commands }, commandID: commandID, expectedPosition: expectedPosition)
    }

    /// ``sendRecordingUndo(_:commandID:expectedPosition:)`` of the commands `make` builds in
    /// the state they are decided in (under the log's lock, after every committed record).
    func sendRecordingUndo(_ make: (TimelineProjection) -> [Command], commandID: String?, expectedPosition: Int64?)
        throws(StoreError) -> (records: [Record], undo: Compensation?, actionName: String) {
        var undo: Compensation?
        var actionName = ""
        let result = try append(AppendOptions(expectedPosition: expectedPosition, commandID: commandID,
                                              recordedAt: DateValue(utc: clock.now()))) { () throws(StoreError) in
            let commands = make(projection)
            let facts: [Fact]
            do throws(Rejection) { facts = try Decider.decide(commands, projection) } catch { throw .rejected(error) }
            let start = projection.position + 1
            undo = Compensation(facts: facts, positions: start...(start + Int64(max(facts.count, 1)) - 1), before: projection)
            actionName = Self.actionName(for: commands, in: projection)
            return facts
        }
        if result.wasDuplicate { try Self.refuseOtherCommands(make(projection), commandID: commandID, recorded: result) }
        guard !result.wasDuplicate, var undo, let positions = result.positions else { return (result.records, nil, actionName) }
        undo.positions = positions
        return (result.records, undo, actionName)
    }

    /// Keeps the undo of a send (clearing redo), after ``sendRecordingUndo(_:commandID:expectedPosition:)``.
    func noteSent(_ undo: Compensation?, actionName: String) {
        guard let undo else { return }
        undoHistory.push(undo: UndoStep(compensation: undo, actionName: actionName), clearingRedo: true)
    }

    // MARK: Action names

    /// A menu's name for `commands` in `state` (the state before them): `Retitle "Born"`
    /// names the event by its title before the change, `Remove 3 events` counts a batch of
    /// one kind, `4 changes` a mixed one.
    static func actionName(for commands: [Command], in state: some DomainLookup) -> String {
        guard let first = commands.first else { return "No change" }
        func title(_ id: EventID) -> String { quoted(state.event(id)?.title ?? id.rawValue) }
        if commands.count == 1 {
            return switch first {
            case .createTimeline(_, let name): "Create Timeline \(quoted(name))"
            case .renameTimeline(let id, _): "Rename Timeline \(quoted(state.timeline(id)?.name ?? id.rawValue))"
            case .removeTimeline(let id): "Remove Timeline \(quoted(state.timeline(id)?.name ?? id.rawValue))"
            case .addEvent(_, _, let title, _): "Add \(quoted(title))"
            case .retitleEvent(let id, _): "Retitle \(title(id))"
            case .setDate(let id, _), .setRange(let id, _, _): "Change Dates of \(title(id))"
            case .closeRange(let id, _): "Close \(title(id))"
            case .reopenRange(let id): "Reopen \(title(id))"
            case .moveEvent(let id, _): "Move \(title(id))"
            case .removeEvent(let id): "Remove \(title(id))"
            }
        }
        let kinds = Set(commands.map(kind))
        guard kinds.count == 1, let kind = kinds.first else { return "\(commands.count) changes" }
        return "\(kind.verb) \(commands.count) \(kind.noun)"
    }

    /// The kind of a command in a name of several commands of one kind: `Remove`, `events`.
    private static func kind(_ command: Command) -> Kind {
        switch command {
        case .createTimeline: Kind(verb: "Create", noun: "timelines")
        case .renameTimeline: Kind(verb: "Rename", noun: "timelines")
        case .removeTimeline: Kind(verb: "Remove", noun: "timelines")
        case .addEvent: Kind(verb: "Add", noun: "events")
        case .retitleEvent: Kind(verb: "Retitle", noun: "events")
        case .setDate, .setRange: Kind(verb: "Change Dates of", noun: "events")
        case .closeRange: Kind(verb: "Close", noun: "events")
        case .reopenRange: Kind(verb: "Reopen", noun: "events")
        case .moveEvent: Kind(verb: "Move", noun: "events")
        case .removeEvent: Kind(verb: "Remove", noun: "events")
        }
    }

    /// A verb and the plural noun it acts on.
    private struct Kind: Hashable {
        let verb: String
        let noun: String
    }

    /// `"Born"`; a title over 40 characters is cut with "…".
    private static func quoted(_ text: String) -> String {
        "\"" + (text.count > 40 ? text.prefix(39) + "…" : text) + "\""
    }
}

extension Compensation {
    /// The undo of the batch of `log` that holds the record at `position`, checked against
    /// every record after it (``checkLater(_:)``); `last` is the log's last position as the
    /// caller knows it, for the message when there is no such record.
    ///
    /// Reads the log from its start (the state before the batch is folded from the records).
    /// - Complexity: O(*n*) for the log's *n* records.
    static func ofBatch(containing position: Int64, in log: any EventLog, last: Int64) throws(StoreError) -> Compensation {
        var state = DomainState()
        var batch: [Record] = [], later: [Record] = [], pending: [Record] = []
        var seen: Int64 = 0
        do {
            try log.forEachChunk(after: 0) { records in
                seen = records.last?.position ?? seen
                for record in records {
                    if !batch.isEmpty {
                        later.append(record)
                        continue
                    }
                    pending.append(record)
                    guard record.batchRemainder == 0 else { continue }
                    // A whole batch: the one asked for, or one more for the state before it.
                    if pending.contains(where: { $0.position == position }) {
                        batch = pending
                    } else {
                        for record in pending { for fact in record.facts { state.apply(fact) } }
                    }
                    pending.removeAll(keepingCapacity: true)
                }
                return true
            }
        } catch { throw .log(error) }
        if batch.isEmpty, pending.contains(where: { $0.position == position }) { batch = pending }
        guard !batch.isEmpty else {
            throw .undoRefused(.noSuchRecord(position: position, last: max(last, seen)))
        }
        let compensation = Compensation(records: batch, before: state)
        do throws(UndoRefusal) { try compensation.checkLater(later) } catch { throw .undoRefused(error) }
        return compensation
    }
}
