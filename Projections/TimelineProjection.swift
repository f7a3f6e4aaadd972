import TimelineCore

/// The date rows of the timelines, kept incrementally for any number of views.
///
/// A pure left fold over records: ``apply(_:)`` takes a batch of records and returns, per
/// view that changed, one ``ChangeSet``; ``advanceClock(to:)`` moves ongoing rows of views
/// that place them at "now". Applying records one by one gives exactly the rows that
/// ``init(records:views:now:)`` builds from scratch.
///
/// Records are assumed to have passed the decider's rules (``Decider/check(_:in:)``);
/// facts about unknown events are ignored rather than trapping.
package struct TimelineProjection: Sendable {
    /// The log position of the last record applied.
    package internal(set) var position: Int64 = 0
    /// "Now", for views that place ongoing rows at now.
    package internal(set) var now: Instant

    var events = EventTable()
    /// The rows of the views, one set for each filter and placement, in the order they
    /// were first asked for; `viewIndex` finds a view by definition. (An array, so that a
    /// set is mutated in place: a dictionary's `d[k]!.mutate()` may copy the value out,
    /// which would make every tree node shared and copied.)
    var rowSets: [RowSet] = []
    var viewIndex: [ViewDefinition: ViewLocation] = [:]
    var summaries = SummaryState()

    /// Batches that touch more rows than this give a reset change set instead of indices.
    package var resetThreshold = 10_000

    /// Creates an empty projection that maintains `views`, with "now" from the clock.
    package init(views: [ViewDefinition] = [ViewDefinition()], now: Instant) {
        self.now = now
        for definition in views { addView(definition) }
    }

    /// Builds the projection from records in one pass, sorting each view once.
    ///
    /// The records are assumed to follow the domain rules; see
    /// ``init(validating:views:now:)`` for a log that must be checked.
    /// - Complexity: O(*r* + *n* log *n*) for *r* records and *n* rows.
    package init<S: Sequence>(records: S, views: [ViewDefinition] = [ViewDefinition()], now: Instant)
    where S.Element == Record {
        var loader = Loader(views: views, now: now, validating: false)
        _ = loader.add(records)
        self = loader.finish()
    }

    /// Builds the projection from records in one pass, checking each fact against the
    /// domain rules in the state before it, as the decider would (``Decider/check(_:in:)``).
    ///
    /// Checking needs no state beside the projection's own events and timelines.
    /// - Throws: ``FactRefusal`` for the first fact the rules refuse.
    /// - Complexity: O(*r* + *n* log *n*) for *r* records and *n* rows.
    package init<S: Sequence>(validating records: S, views: [ViewDefinition] = [ViewDefinition()], now: Instant)
    throws(FactRefusal) where S.Element == Record {
        var loader = Loader(views: views, now: now, validating: true)
        if let refusal = loader.add(records) { throw refusal }
        self = loader.finish()
    }

    /// How many events there are.
    /// - Complexity: O(1).
    package var eventCount: Int { events.count }

    /// Calls `body` with the id of each event, in no particular order, without
    /// gathering them.
    /// - Complexity: O(*n*).
    package func forEachEventID(_ body: (EventID) -> Void) {
        events.forEachSnapshot { _, snapshot in body(snapshot.id) }
    }

    /// The timeline summaries, ordered by name and then id.
    /// - Complexity: O(1) while ``tracksSummaryChanges`` is on. While it is off, O(*t* log
    ///   *t*) for *t* timelines once one changed, plus O(*k* log *k*) for the *k* changes
    ///   of dates not yet counted into a timeline's dates.
    package var timelineSummaries: [TimelineSummary] { summaries.currentList }

    /// Whether ``apply(_:)`` describes how the summaries changed
    /// (``ProjectionChanges/summaries``) and counts each timeline's dates in at once.
    ///
    /// Describing them, and counting each timeline's dates in and out as events come, go
    /// and change, is work on every command; a store turns it off
    /// while nobody follows the summaries, and the dates' changes are then counted in
    /// together, later. ``timelineSummaries`` is up to date either way (made when read,
    /// while off). Turning it on starts from the summaries as they are, counting in the
    /// changes left pending.
    package var tracksSummaryChanges: Bool {
        get { summaries.tracksChanges }
        set {
            // Turned on, the next change set goes from the summaries as they are now.
            if newValue && !summaries.tracksChanges { summaries.restorePosition(position) }
            summaries.trackChanges(newValue)
        }
    }
}
