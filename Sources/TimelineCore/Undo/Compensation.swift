/// The undo of one batch: the commands that bring every event and timeline the batch
/// touched back to its state just before the batch, and what it touched.
///
/// *Touches* (the contract): a record touches the event it names; a timeline's creation,
/// renaming or removal touches the timeline, and a removal also every event the timeline
/// held; adding or moving an event touches the event, not the timeline.
///
/// The commands come in an order the decider accepts in the state after the batch:
/// timelines the batch removed come back (and renamed ones get their names back) first,
/// then each event, then the timelines the batch created go. A batch that changed nothing
/// (a move to the timeline the event is in) gives no commands.
package struct Compensation: Hashable, Sendable {
    /// The positions of the batch's records.
    package var positions: ClosedRange<Int64>
    /// The commands that undo the batch; empty when it changed nothing.
    package var commands: [Command]
    /// The events the batch touched, in the order it first touched them.
    package var events: [EventID]
    /// The timelines the batch touched, in the order it first touched them.
    package var timelines: [TimelineID]
    /// Each touched event that exists after the batch, as it is then.
    package var eventsAfter: [EventID: Event]
    /// The name of each touched timeline that exists after the batch.
    package var namesAfter: [TimelineID: String]
    /// The timelines the commands remove (the batch created them): an event a later record
    /// adds or moves into one of them would go with it, so that record refuses the undo.
    package var removedTimelines: Set<TimelineID>

    /// The command id of the compensating batch (``UndoMarker``).
    package var commandID: String { UndoMarker.commandID(undoing: positions.lowerBound) }

    /// The undo of the batch whose records are `records` (in order), in `state`, the state
    /// just before the batch.
    /// - Complexity: O(*k* log *k*) for a batch of *k* facts, plus O(*e*) for the events
    ///   of each timeline it removes as `state` lists them.
    package init<C: Collection<Record>>(records: C, before state: some UndoLookup) {
        let first = records.first?.position ?? 1
        let last = records.reduce(first) { max($0, $1.position) }
        self.init(facts: records.lazy.flatMap(\.facts), positions: first...last, before: state)
    }

    /// The undo of the batch of `facts` recorded at `positions`, in `state`, the state just
    /// before the batch.
    /// - Complexity: as ``init(records:before:)``.
    package init<S: Sequence<Fact>>(facts: S, positions: ClosedRange<Int64>, before state: some UndoLookup) {
        var events: [EventID] = [], timelines: [TimelineID] = []
        var eventsAfter: [EventID: Event?] = [:], timelinesAfter: [TimelineID: Timeline?] = [:]
        func touch(_ id: EventID) { if eventsAfter[id] == nil { events.append(id); eventsAfter[id] = .some(state.event(id)) } }
        func touch(_ id: TimelineID) {
            if timelinesAfter[id] == nil { timelines.append(id); timelinesAfter[id] = .some(state.timeline(id)) }
        }
        for fact in facts {
            if let timeline = fact.touchedTimeline {
                touch(timeline)
                if case .timelineRemoved = fact {
                    // Its events as they stand at this fact: those of the state before the
                    // batch that the batch has not moved or removed, and those it put there.
                    var held = state.eventIDs(in: timeline).filter { id in
                        guard let after = eventsAfter[id] else { return true }
                        return after?.timeline == timeline
                    }
                    for case let (id, event?) in eventsAfter where event.timeline == timeline { held.insert(id) }
                    for id in held.sorted(by: { $0.precedesInUTF8($1) }) {
                        touch(id)
                        eventsAfter[id] = .some(nil)
                    }
                }
            }
            if let id = fact.event {
                touch(id)
                switch fact.eventEffect {
                case .add(let event): eventsAfter[id] = .some(event)
                case .remove: eventsAfter[id] = .some(nil)
                case .update(_, let update): eventsAfter[id] = .some(eventsAfter[id]??.updated(by: update))
                case .none, .removeEvents: break
                }
            }
            switch fact {
            case .timelineCreated(let id, let name): timelinesAfter[id] = .some(Timeline(id: id, name: name))
            case .timelineRenamed(let id, let name): timelinesAfter[id] = .some(timelinesAfter[id]??.renamed(name))
            case .timelineRemoved(let id): timelinesAfter[id] = .some(nil)
            default: break
            }
        }

        var opening: [Command] = [], middle: [Command] = [], closing: [Command] = []
        var removed = Set<TimelineID>()
        for id in timelines {
            switch (state.timeline(id), timelinesAfter[id] ?? nil) {
            case (let before?, nil): opening.append(.createTimeline(id, name: before.name))
            case (let before?, let after?) where before.name != after.name:
                opening.append(.renameTimeline(id, name: before.name))
            case (nil, _?):
                closing.append(.removeTimeline(id))
                removed.insert(id)
            default: break
            }
        }
        var after: [EventID: Event] = [:], names: [TimelineID: String] = [:]
        for case let (id, timeline?) in timelinesAfter { names[id] = timeline.name }
        for id in events {
            let now = eventsAfter[id] ?? nil
            if let now { after[id] = now }
            switch (state.event(id), now) {
            case (nil, let now?) where !removed.contains(now.timeline): middle.append(.removeEvent(id))
            case (let before?, nil):
                middle.append(.addEvent(id, timeline: before.timeline, title: before.title, dates: before.dates))
            case (let before?, let now?):
                if before.timeline != now.timeline { middle.append(.moveEvent(id, to: before.timeline)) }
                if before.title != now.title { middle.append(.retitleEvent(id, title: before.title)) }
                if before.dates != now.dates { middle.append(Self.restoring(id, before.dates, from: now.dates)) }
            default: break
            }
        }
        self.positions = positions
        self.commands = opening + middle + closing
        self.events = events
        self.timelines = timelines
        self.eventsAfter = after
        self.namesAfter = names
        self.removedTimelines = removed
    }

    /// The command that gives event `id` its dates `before` back from `now`: a closed range
    /// reopens, an open one closes, anything else is set again.
    private static func restoring(_ id: EventID, _ before: EventDates, from now: EventDates) -> Command {
        switch (before, now) {
        case (.range(let start, nil), .range(let now, _?)) where now == start: .reopenRange(id)
        case (.range(let start, let end?), .range(let now, nil)) where now == start: .closeRange(id, end: end)
        case (.range(let start, let end), _): .setRange(id, start: start, end: end)
        case (.single(let date), _): .setDate(id, date)
        }
    }

    /// Checks that no record after the batch touched what it touched; `later` is every
    /// record after the batch, in order. A fact that leaves an event or a timeline as it
    /// was (a move to its own timeline, a rename to the same name) does not touch it.
    ///
    /// A later batch that has been undone does not count, nor does the batch that undid it
    /// (so undoing the last *k* batches in turn works, and a redo is the undo of an undo).
    /// A batch is undone when a later batch's command id is its ``UndoMarker`` and that
    /// later batch is not itself undone.
    /// - Throws: ``UndoRefusal/changedLater(position:subject:)`` naming the first such record,
    ///   or ``UndoRefusal/alreadyUndone(by:)`` when the batch itself was undone.
    /// - Complexity: O(*n* + *m*·*e*) for *n* later facts, *m* of them timeline removals,
    ///   and *e* events touched by the batch.
    package func checkLater<C: Collection<Record>>(_ later: C) throws(UndoRefusal) where C.Index == Int {
        let batches = Self.batches(later)
        let (counts, refusal) = Self.undos(of: positions, amongLater: batches)
        if let refusal { throw refusal }

        let touchedEvents = Set(events), touchedTimelines = Set(timelines)
        // The touched events and timelines followed through the later records: a fact that
        // leaves them as they were (a move to the event's own timeline, a title set to the
        // one it has) changes nothing, so it does not count as touching them. Without this,
        // undoing such a batch (which appends nothing) would block undoing the one before.
        var current = eventsAfter, names = namesAfter
        for (index, batch) in batches.enumerated() {
            for record in later[batch.records] {
                for fact in record.facts {
                    if counts[index], let subject = subject(of: fact, touchedEvents, touchedTimelines, current, names) {
                        throw .changedLater(position: record.position, subject: subject)
                    }
                    if let id = fact.event, touchedEvents.contains(id) {
                        switch fact.eventEffect {
                        case .add(let event): current[id] = event
                        case .remove: current[id] = nil
                        case .update(_, let update): current[id] = current[id]?.updated(by: update)
                        case .none, .removeEvents: break
                        }
                    }
                    switch fact {
                    case .timelineCreated(let id, let name), .timelineRenamed(let id, let name): names[id] = name
                    case .timelineRemoved(let timeline):
                        names[timeline] = nil
                        current = current.filter { $0.value.timeline != timeline }
                    default: break
                    }
                }
            }
        }
    }

    /// How the batch at `batch` stands among the undos of the `later` batches: which of
    /// them count as touching it, and whether it was undone (``UndoRefusal/alreadyUndone(by:)``)
    /// or undone and redone (``UndoRefusal/redone(undo:redo:)``).
    ///
    /// Walking back, a batch is undone when an undo after it (itself not undone) names it;
    /// an undo that is not undone, of a batch after this one, cancels that batch and counts
    /// no more than it.
    /// - Complexity: O(*b*) for the *b* later batches.
    package static func undos(of batch: ClosedRange<Int64>,
                              amongLater batches: [(first: Int64, undoes: Int64?, records: Range<Int>)])
        -> (counts: [Bool], refusal: UndoRefusal?) {
        var undoneBy: [Int64: Int64] = [:], anyUndo: [Int64: Int64] = [:]
        var counts = [Bool](repeating: false, count: batches.count)
        for index in batches.indices.reversed() {
            let later = batches[index]
            let standing = undoneBy[later.first] == nil
            if let target = later.undoes {
                anyUndo[target] = later.first
                if standing, undoneBy[target] == nil { undoneBy[target] = later.first }
            }
            counts[index] = standing && (later.undoes.map { $0 <= batch.upperBound } ?? true)
        }
        if let by = undoneBy[batch.lowerBound] { return (counts, .alreadyUndone(by: by)) }
        // Undone and redone: its marker is taken, and the way to undo it again is to undo the redo.
        if let undo = anyUndo[batch.lowerBound], let redo = undoneBy[undo] { return (counts, .redone(undo: undo, redo: redo)) }
        return (counts, nil)
    }

    /// Why the rules refuse this undo, said as an undo's refusal when the later records
    /// explain it: a timeline it puts events back in was removed after the batch (by the last
    /// of `later` that removed it). `nil` when they do not.
    /// - Complexity: O(*l*) for the *l* later records.
    package func refusal(for rejection: Rejection, later: some BidirectionalCollection<Record>) -> UndoRefusal? {
        guard case .unknownTimeline(let timeline) = rejection else { return nil }
        let removal = later.last { record in
            record.facts.contains { if case .timelineRemoved(timeline) = $0 { true } else { false } }
        }
        return removal.map { .timelineRemoved(timeline, position: $0.position) }
    }

    /// The batch whose revert brings the batch at `batch` back, when it stands undone among
    /// the `later` records: its undo, or, when that undo was redone and undone again, the
    /// last undo in force (following the chain of redos). `nil` when it is not undone.
    /// - Complexity: O(*b* · *k*) for the *b* later batches and a chain of *k* redos.
    package static func undoInForce<C: Collection<Record>>(of batch: ClosedRange<Int64>, amongLater later: C) -> Int64?
    where C.Index == Int {
        let batches = batches(later)
        guard case .alreadyUndone(var undo)? = undos(of: batch, amongLater: batches).refusal else { return nil }
        while case .redone(_, let redo)? = undos(of: undo...undo, amongLater: batches.filter { $0.first > undo }).refusal {
            undo = redo
        }
        return undo
    }

    /// What of the batch's `fact` touches, if anything.
    private func subject(of fact: Fact, _ events: Set<EventID>, _ timelines: Set<TimelineID>,
                         _ current: [EventID: Event], _ names: [TimelineID: String]) -> UndoRefusal.Subject? {
        if let id = fact.event, events.contains(id) {
            if case .update(_, let update) = fact.eventEffect, let event = current[id], event.updated(by: update) == event {
                return nil
            }
            return .event(id)
        }
        if let id = fact.touchedTimeline {
            if case .timelineRenamed(_, let name) = fact, names[id] == name { return nil }
            if timelines.contains(id) { return .timeline(id) }
            if case .timelineRemoved = fact,
               let event = current.filter({ $0.value.timeline == id }).keys.min(by: { $0.precedesInUTF8($1) }) {
                return .event(event)
            }
        }
        switch fact {
        case .eventAdded(_, let timeline, _, _), .eventMoved(_, let timeline):
            return removedTimelines.contains(timeline) ? .timeline(timeline) : nil
        default:
            return nil
        }
    }

    /// The atomic batches of `records`: consecutive records whose `more` counts down to 0.
    /// A last batch left unfinished ends with the last record.
    package static func batches<C: Collection<Record>>(_ records: C) -> [(first: Int64, undoes: Int64?, records: Range<Int>)]
    where C.Index == Int {
        var batches: [(first: Int64, undoes: Int64?, records: Range<Int>)] = []
        var start = records.startIndex
        for index in records.indices where records[index].batchRemainder == 0 || index == records.endIndex - 1 {
            let first = records[start]
            batches.append((first.position, first.undoneBatch, start..<(index + 1)))
            start = index + 1
        }
        return batches
    }
}

extension Timeline {
    /// The timeline with another name.
    fileprivate func renamed(_ name: String) -> Timeline { Timeline(id: id, name: name) }
}

extension Fact {
    /// The timeline this fact touches: the one it creates, renames or removes; `nil` for
    /// facts about events (adding or moving an event touches the event, not the timeline).
    package var touchedTimeline: TimelineID? {
        switch self {
        case .timelineCreated(let id, _), .timelineRenamed(let id, _), .timelineRemoved(let id): id
        case .eventAdded, .eventRetitled, .dateSet, .rangeSet, .rangeClosed, .rangeReopened, .eventMoved,
             .eventRemoved, .commandRejected: nil
        }
    }
}
