import TimelineCore

// Values for previews and for tests of a front end, made by the engine itself: the rows,
// sections and change sets a store would show and send, with no store. Made from commands
// (checked by the rules), never from indices given by hand, so they keep every invariant of
// a store's values: rows in the view's order, sections that cut them, change sets whose
// indices apply to the old rows to give exactly the new ones.

extension ViewSnapshot {
    /// The rows and sections of `view` after `commands`, as a store that was sent them (as
    /// one batch, with its clock at `now`) shows them: values for a preview or for a
    /// test of a table adapter, made synchronously, with no store.
    ///
    /// The snapshot's ``position`` is the number of records the commands made, as in a
    /// store on a new log.
    /// - Throws: the ``Rejection`` of the first command the rules refuse, as `send` would.
    /// - Complexity: O(*n* log *n*) for *n* rows.
    public init(view: ViewDefinition, after commands: [Command], now: Instant) throws(Rejection) {
        var projection = TimelineProjection(views: [view], now: now)
        _ = try projection.send(commands)
        self = projection.snapshot(view)
    }
}

extension ChangeSet {
    /// The change set a store sends for `view` when it is sent `commands` (as one batch)
    /// after `earlier`, with its clock at `now`; `nil` when they change nothing the view
    /// shows (a store sends that view nothing then).
    ///
    /// Its `from` is the ``ViewSnapshot/position`` of `ViewSnapshot(view:after:now:)` with
    /// `earlier`, so the two make a test double of a live view: the rows, then the change.
    /// A batch too large to animate gives a reset, as it does from a store.
    /// - Throws: the ``Rejection`` of the first command the rules refuse, as `send` would.
    /// - Complexity: O(*n* log *n*) for *n* rows.
    public init?(view: ViewDefinition, sending commands: [Command], after earlier: [Command], now: Instant)
        throws(Rejection) {
        var projection = TimelineProjection(views: [view], now: now)
        _ = try projection.send(earlier)
        guard let changeSet = try projection.send(commands).rows.first(where: { $0.view == view }) else { return nil }
        self = changeSet
    }
}

extension TimelineProjection {
    /// Decides `commands` against the projection, as one batch, and applies their facts
    /// as a log after the projection's position would record them.
    /// - Complexity: O(*k* log *n*) for *k* facts and *n* rows.
    fileprivate mutating func send(_ commands: [Command]) throws(Rejection) -> ProjectionChanges {
        let facts = try Decider.decide(commands, self)
        guard !facts.isEmpty else { return ProjectionChanges() }
        return apply(Record.batch(of: facts, after: position, options: AppendOptions()))
    }
}
