import TimelineCore

extension TimelineProjection {
    /// Where a view is: its row set in ``rowSets``, and its place among that set's views.
    struct ViewLocation: Hashable, Sendable {
        var rowSet: Int
        var view: Int
    }

    /// The views the projection maintains, those with the same filter and placement next
    /// to each other (in the order ``apply(_:)`` gives their change sets).
    package var viewDefinitions: [ViewDefinition] { rowSets.flatMap { $0.views.map(\.definition) } }

    /// Starts maintaining a view, if it is not already: it shares the rows of a view with
    /// the same filter and placement, or is built from the current events.
    /// - Complexity: O(*n* log *n*) for *n* rows when no view has its filter and
    ///   placement; O(*n*) with sections, O(1) without, when one has; O(1) for a view
    ///   that exists.
    package mutating func addView(_ definition: ViewDefinition) {
        guard viewIndex[definition] == nil else { return }
        if let set = rowSets.firstIndex(where: { $0.holds(definition) }) {
            rowSets[set].addView(definition, position: position, now: now.microsecondsSinceEpoch)
            viewIndex[definition] = ViewLocation(rowSet: set, view: rowSets[set].views.count - 1)
        } else {
            // A view's rows hold every event they show: a checkpoint's pending ones load now.
            events.loadAll()
            var set = RowSet(filter: definition.filter, placement: definition.placement)
            set.addView(definition, position: position, now: now.microsecondsSinceEpoch)
            set.rebuild(events: events, now: now.microsecondsSinceEpoch, position: position)
            viewIndex[definition] = ViewLocation(rowSet: rowSets.count, view: 0)
            rowSets.append(set)
        }
    }

    /// Stops maintaining a view; its rows go with the last view that shows them.
    package mutating func removeView(_ definition: ViewDefinition) {
        guard let location = viewIndex.removeValue(forKey: definition) else { return }
        rowSets[location.rowSet].removeView(at: location.view)
        if rowSets[location.rowSet].views.isEmpty { rowSets.remove(at: location.rowSet) }
        indexViews()
    }

    /// Finds every view afresh, after row sets or views moved.
    mutating func indexViews() {
        viewIndex.removeAll(keepingCapacity: true)
        for (set, rowSet) in rowSets.enumerated() {
            for (offset, view) in rowSet.views.enumerated() {
                viewIndex[view.definition] = ViewLocation(rowSet: set, view: offset)
            }
        }
    }

    /// The rows of a view, in list order, or `nil` for a view the projection does not maintain.
    /// - Complexity: O(1).
    package func rows(_ definition: ViewDefinition) -> RowList? {
        viewIndex[definition].map { rowSets[$0.rowSet].rows(descending: definition.order == .descending) }
    }

    /// The sections of a view in list order (empty for a view without sections).
    /// - Complexity: O(log *s*) for *s* sections (each section is made when it is read).
    package func sections(_ definition: ViewDefinition) -> SectionList {
        viewIndex[definition].map {
            rowSets[$0.rowSet].sections(ofView: $0.view, now: now.microsecondsSinceEpoch)
        } ?? SectionList()
    }

    /// Moves a view's position up to the projection's, for a view nobody follows yet:
    /// its rows are the same at every position since its latest change, and its first
    /// follower's first change set then goes from the position the rows were read at.
    /// - Complexity: O(1).
    package mutating func bringViewPositionUp(_ definition: ViewDefinition) {
        guard let location = viewIndex[definition] else { return }
        rowSets[location.rowSet].moveView(at: location.view, to: position)
    }

    /// The log position of a view's latest change: the `from` of its next change set.
    package func viewPosition(_ definition: ViewDefinition) -> Int64? {
        viewIndex[definition].map { rowSets[$0.rowSet].views[$0.view].position }
    }
}
