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
        if new < old {
            for i in nowSets {
                let atNow = rowSets[i].rowsAtNow(old)
                rowSets[i].beginBatch(now: old, large: atNow.count > 64)
                for entry in atNow { rowSets[i].remove(entry, now: old) }
                for entry in atNow {
                    rowSets[i].insert(RowEntry(event: entry.event, kind: entry.kind, now: new, placement: .now,
                                               idPrefix: entry.idPrefix), now: new)
                }
                rowSets[i].endBatch(to: position, now: new, resetThreshold: resetThreshold, into: &changes.rows)
            }
            now = instant
            return changes
        }
        for i in nowSets {
            let passed = rowSets[i].rowsPassed(from: old, to: new)
            rowSets[i].beginBatch(now: old, large: passed.count > 64)
            for entry in passed { rowSets[i].remove(entry, now: old) }
            for entry in passed {
                rowSets[i].insert(RowEntry(event: entry.event, kind: entry.kind, now: new, placement: .now,
                                           idPrefix: entry.idPrefix), now: new)
            }
            rowSets[i].endBatch(to: position, now: new, resetThreshold: resetThreshold, into: &changes.rows)
        }
        now = instant
        return changes
    }
}
