import TimelineCore

extension TimelineProjection {
    /// Moves "now" to `instant`: ongoing rows of `now`-placed views that pass dated rows move.
    ///
    /// Moving forward costs O(*k* log *n*) for the *k* rows whose place relative to the
    /// ongoing rows changes; moving backwards, O(*m* log *n*) for the *m* ongoing rows
    /// at now, which go back to now or to their start. Either way a view is sent a
    /// change set only if a row or a section of it changed.
    @discardableResult
    package mutating func advanceClock(to instant: Instant) -> ProjectionChanges {
        let old = now.microsecondsSinceEpoch, new = instant.microsecondsSinceEpoch
        guard old != new else { return ProjectionChanges() }
        var changes = ProjectionChanges()
        let nowSets = rowSets.indices.filter { rowSets[$0].placement == .now }
        for i in nowSets {
            // Forward, the ongoing rows that now passes; backwards, those at the old now,
            // which go back to now or to their start. Either way they leave their place at
            // the old now and sort again at the new.
            let moving = new < old ? rowSets[i].rowsAtNow(old) : rowSets[i].rowsPassed(from: old, to: new)
            rowSets[i].withBatch(startingAt: old, large: moving.count > 64, endingAt: position, now: new,
                                 resetThreshold: resetThreshold, into: &changes.rows) { rows in
                for entry in moving { rows.remove(entry, now: old) }
                for entry in moving {
                    rows.insert(RowEntry(event: entry.event, kind: entry.kind, now: new, placement: .now,
                                         idPrefix: entry.idPrefix), now: new)
                }
            }
        }
        now = instant
        return changes
    }
}
