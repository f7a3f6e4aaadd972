/// What the shared log knows, folded from its records: the timelines and events, each
/// command id's outcome, each device's last decided submission, and where each id's
/// current life began. Pure: the sync engine decides submissions against it.
///
/// A replica keeps one, folded from its mirror (and, during a sync, from what it reads
/// under the shared log's lock before its mirror has caught up).
package struct SharedLogState: Sendable {
    /// The outcome of a command id in the shared log.
    package struct Outcome: Hashable, Sendable {
        /// The nonce written with it (`sub`), if any.
        package var nonce: String?
        /// The position of its first record.
        package var position: Int64
        /// Its rejection's rule code, or `nil` when it was accepted.
        package var rule: String?
        /// Its rejection's message, or `nil` when it was accepted.
        package var message: String?
    }

    /// Where an id's current life began: the position of its creation and the command id
    /// of the batch that created it.
    struct Birth: Hashable, Sendable {
        var position: Int64
        var command: String?
    }

    /// What the log says of one id: where its current life began (none for an id that
    /// was named but never made), the position of the last record that touched it, and,
    /// for an event, the record that put it in its timeline now (its addition or its last move).
    struct Marks: Sendable {
        var birth: Birth?
        var touched: Int64
        var entered: Birth? = nil

        /// The record `birth` names put the event in a timeline (a move): it touched it too.
        mutating func enter(_ birth: Birth) {
            touched = birth.position
            entered = birth
        }
    }

    /// The position of the last record folded.
    package private(set) var position: Int64 = 0
    /// The timelines and events after the records folded.
    package private(set) var domain = DomainState()
    /// The outcome of every device submission (`D:n`) in the log.
    package private(set) var outcomes: [String: Outcome] = [:]
    /// The number of each device's last decided submission.
    package private(set) var lastNumbers: [DeviceID: Int64] = [:]
    /// Each id's birth and the position of the last record that touched it (section 11: a
    /// record touches the event it names; a timeline's creation, renaming or removal the
    /// timeline, a removal also all its events). One table per kind of id: one lookup per
    /// fact.
    private var events: [EventID: Marks] = [:]
    private var timelines: [TimelineID: Marks] = [:]
    /// The positions of the last undo of each batch undone (by its first position), so that
    /// an undo of a batch another device undid first is told so.
    private var lastUndos: [Int64: ClosedRange<Int64>] = [:]

    /// The state of an empty log.
    package init() {}

    /// Folds records that follow ``position``, checking each fact against the domain rules.
    ///
    /// - Throws: ``FactRefusal`` naming the first record the rules refuse; the state then
    ///   holds the records before it.
    /// - Complexity: O(*k*) for *k* facts.
    package mutating func apply<C: Collection<Record>>(_ records: C) throws(FactRefusal) {
        // The records of one batch share a command id: its outcome is its first record's.
        var previousCommand: String?
        for record in records where record.position > position {
            for fact in record.facts {
                do { try Decider.check(fact, in: domain) } catch {
                    throw FactRefusal(position: record.position, fact: fact, rejection: error)
                }
                note(fact, of: record)
                domain.apply(fact)
            }
            if let undone = record.undoneBatch {
                // One range per undo batch: its records follow one another with one command id.
                if let undo = lastUndos[undone], undo.upperBound == record.position - 1, record.commandID == previousCommand {
                    lastUndos[undone] = undo.lowerBound...record.position
                } else {
                    lastUndos[undone] = record.position...record.position
                }
            }
            defer { previousCommand = record.commandID }
            // Only a device's submissions have outcomes (`D:n`): other command ids are not kept.
            if let command = record.commandID, command != previousCommand, let id = SubmissionID(commandID: command),
               outcomes[command] == nil {
                var outcome = Outcome(nonce: record.submission, position: record.position)
                if case .commandRejected(_, let rule, let message)? = record.facts.first {
                    (outcome.rule, outcome.message) = (rule, message)
                }
                outcomes[command] = outcome
                lastNumbers[id.device] = max(lastNumbers[id.device] ?? 0, id.number)
            }
            position = record.position
        }
    }

    private mutating func note(_ fact: Fact, of record: Record) {
        let position = record.position
        switch fact {
        case .eventAdded(let id, _, _, _):
            let birth = Birth(position: position, command: record.commandID)
            events[id] = Marks(birth: birth, touched: position, entered: birth)
        case .eventMoved(let id, _):
            events[id, default: Marks(touched: position)].enter(Birth(position: position, command: record.commandID))
        case .timelineCreated(let id, _):
            timelines[id] = Marks(birth: Birth(position: position, command: record.commandID), touched: position)
        default:
            if let event = fact.event { events[event, default: Marks(touched: position)].touched = position }
            if let timeline = fact.touchedTimeline {
                timelines[timeline, default: Marks(touched: position)].touched = position
                if case .timelineRemoved = fact {
                    for event in domain.eventIDs(in: timeline) {
                        events[event, default: Marks(touched: position)].touched = position
                    }
                }
            }
        }
    }

    /// What the shared log does with `submission`, decided against this state.
    ///
    /// - Complexity: O(*k*) for the submission's *k* facts.
    package func decide(_ submission: Submission, recordedAt: DateValue?) -> SharedDecision {
        let command = submission.id.description
        if let outcome = outcomes[command] {
            return .alreadyDecided(outcome, sameSubmission: outcome.nonce == submission.nonce)
        }
        let expected = (lastNumbers[submission.id.device] ?? 0) + 1
        guard submission.id.number == expected else { return .outOfOrder(expected: expected) }
        let options = AppendOptions(commandID: command, recordedAt: recordedAt, submission: submission.nonce)
        // An accepted undo says which batch it undoes (`undo`), since its command id is
        // the device's; a rejection undoes nothing.
        var accepted = options
        accepted.undoes = submission.condition?.undoes
        func rejected(_ rule: String, _ message: String) -> SharedDecision {
            .append([.commandRejected(command: command, rule: rule, message: message)], options)
        }
        // Made beyond the shared log: no device makes one (it mirrors no more than the log
        // holds); the file was edited or damaged.
        guard submission.basePosition <= position else {
            return rejected("invalidSubmission", "the submission says it was made at position \(submission.basePosition), "
                + "beyond the shared log's \(position): it was damaged; nothing was changed")
        }
        // An undo's condition first: an id made again since was touched since, and the undo
        // says so (`changedSince`, naming the record), not that the id is unknown.
        if let condition = submission.condition {
            // One no device makes (the file was edited or damaged) is refused, never trusted.
            if condition.after > position || condition.after > submission.basePosition
                || (condition.undoes.map { $0 > condition.after } ?? false) {
                return rejected("invalidCondition", "the undo's condition (after position \(condition.after)"
                    + (condition.undoes.map { ", undoing record \($0)" } ?? "") + ") is not one a device makes: "
                    + "the submission was damaged; nothing was changed")
            }
            if let change = changeSince(condition, removing: submission.commands.compactMap(\.removedTimeline)) {
                // The latest change is another undo of the same batch: it is undone already.
                if let undone = condition.undoes, let undo = lastUndos[undone], undo.lowerBound > condition.after,
                   undo.contains(change.position) {
                    return rejected("changedSince", "the batch at record \(undone) was undone already, by record "
                        + "\(undo.lowerBound) (another undo reached the shared log first): nothing to undo")
                }
                return rejected("changedSince", change.message)
            }
        }
        if let stale = staleReference(in: submission) { return rejected(stale.rule, stale.description) }
        if submission.condition == nil, let entered = enteredUnseen(submission) { return rejected("changedSince", entered) }
        guard !submission.commands.isEmpty else { return rejected("emptySubmission", "the submission holds no command") }
        do {
            return .append(try Decider.decide(submission.commands, domain), accepted)
        } catch {
            return rejected(error.rule, error.description)
        }
    }

    /// Why an undo's condition fails: the first of its events or timelines that a record
    /// after `condition.after` touched, or an event that entered (or changed in) a timeline
    /// the undo removes (`removing`) after it, which would go with the timeline, as
    /// ``Compensation/checkLater(_:)`` refuses on a plain log; `nil` when none did.
    func changeSince(_ condition: UndoCondition, removing removed: [TimelineID] = []) -> (message: String, position: Int64)? {
        for event in condition.events {
            if let position = events[event]?.touched, position > condition.after {
                return ("event \(IdentifierText.quoted(event.rawValue)) was changed by record \(position), after position "
                    + "\(condition.after) where the undo was made: the undo would overwrite that change; undo it first", position)
            }
        }
        for timeline in condition.timelines {
            if let position = timelines[timeline]?.touched, position > condition.after {
                return ("timeline \(IdentifierText.quoted(timeline.rawValue)) was changed by record \(position), after "
                    + "position \(condition.after) where the undo was made: the undo would overwrite that change; undo it first",
                        position)
            }
        }
        for timeline in removed {
            let entered = domain.eventIDs(in: timeline).compactMap { event in
                (events[event]?.touched).flatMap { $0 > condition.after ? (event, $0) : nil }
            }
            if let (event, position) = entered.min(by: { ($0.1, $0.0.rawValue) < ($1.1, $1.0.rawValue) }) {
                return ("event \(IdentifierText.quoted(event.rawValue)) was put in timeline "
                    + "\(IdentifierText.quoted(timeline.rawValue)) or changed by record \(position), after position "
                    + "\(condition.after) where the undo was made: the undo would remove it with the timeline; undo it first",
                        position)
            }
        }
        return nil
    }

    /// Why removing a timeline would remove an event its device never saw there: the first
    /// event (by position, then id) that a record after the submission's position put in a
    /// timeline it removes, by adding it or moving it there (another device's work, or
    /// another copy's), which would go with the timeline unseen; `nil` when none did. An
    /// event edited there since is not named: the device saw it there, and a removal
    /// beats an edit.
    func enteredUnseen(_ submission: Submission) -> String? {
        var found: (event: EventID, position: Int64, timeline: TimelineID)?
        for timeline in submission.commands.compactMap(\.removedTimeline) {
            for event in domain.eventIDs(in: timeline) {
                guard let entry = events[event]?.entered, !Self.deviceSaw(entry, submission),
                      found.map({ (entry.position, event.rawValue) < ($0.position, $0.event.rawValue) }) ?? true else {
                    continue
                }
                found = (event, entry.position, timeline)
            }
        }
        return found.map { found in
            "event \(IdentifierText.quoted(found.event.rawValue)) was put in timeline "
                + "\(IdentifierText.quoted(found.timeline.rawValue)) by record \(found.position), after position "
                + "\(submission.basePosition) where the removal was made: it would be removed unseen; remove the "
                + "timeline again to remove it too"
        }
    }

    /// Whether `submission`'s device saw the record `mark` names: one at or before the
    /// position the submission was made at, or one of the device's earlier submissions.
    private static func deviceSaw(_ mark: Birth, _ submission: Submission) -> Bool {
        guard mark.position > submission.basePosition else { return true }
        guard let command = mark.command, let maker = SubmissionID(commandID: command) else { return false }
        return maker.device == submission.id.device && maker.number < submission.id.number
    }

    /// The first id the submission names that was removed and made again after the
    /// submission was made (by another device, or another copy of this one): the device
    /// meant the entity it saw, which no longer exists.
    func staleReference(in submission: Submission) -> Rejection? {
        var madeHere = Set<String>()
        func isStale(_ birth: Birth?) -> Bool { birth.map { !Self.deviceSaw($0, submission) } ?? false }
        for command in submission.commands {
            let names = command.names
            for timeline in names.timelines where !madeHere.contains("t" + timeline.rawValue) {
                if isStale(timelines[timeline]?.birth) { return .unknownTimeline(timeline) }
            }
            for event in names.events where !madeHere.contains("e" + event.rawValue) {
                if isStale(events[event]?.birth) { return .unknownEvent(event) }
            }
            if let made = command.made { madeHere.insert(made) }
        }
        return nil
    }
}

/// What the shared log does with a submission.
package enum SharedDecision: Sendable {
    /// Append these facts as one batch with these options (its command id, time and nonce):
    /// the submission's facts, or one `commandRejected` fact.
    case append([Fact], AppendOptions)
    /// The command id has its outcome already (from this submission, or, when
    /// `sameSubmission` is false, from another copy of the device): append nothing.
    case alreadyDecided(SharedLogState.Outcome, sameSubmission: Bool)
    /// The device's submission `expected` comes first: this one waits for it.
    case outOfOrder(expected: Int64)
}

extension Command {
    /// The ids the command names that must exist before it (not the one it makes).
    var names: (timelines: [TimelineID], events: [EventID]) {
        switch self {
        case .createTimeline: ([], [])
        case .renameTimeline(let id, _), .removeTimeline(let id): ([id], [])
        case .addEvent(_, let timeline, _, _): ([timeline], [])
        case .retitleEvent(let id, _), .setDate(let id, _), .setRange(let id, _, _), .closeRange(let id, _),
             .reopenRange(let id), .removeEvent(let id):
            ([], [id])
        case .moveEvent(let id, let timeline): ([timeline], [id])
        }
    }

    /// Whether the command names the event `event` or makes it.
    package func mentions(_ event: EventID) -> Bool {
        if case .addEvent(let id, _, _, _) = self, IdentifierText.sameBytes(id.rawValue, event.rawValue) { return true }
        return names.events.contains(event)
    }

    /// The timeline the command removes, if it is a removal.
    var removedTimeline: TimelineID? {
        if case .removeTimeline(let id) = self { id } else { nil }
    }

    /// The id the command makes, tagged `t` for a timeline and `e` for an event.
    var made: String? {
        switch self {
        case .createTimeline(let id, _): "t" + id.rawValue
        case .addEvent(let id, _, _, _): "e" + id.rawValue
        default: nil
        }
    }
}
