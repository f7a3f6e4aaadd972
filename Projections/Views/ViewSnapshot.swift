import TimelineCore

/// A view's rows and sections at one log position, taken together.
public struct ViewSnapshot: Sendable {
    /// The view the rows are of: one handler that follows several views tells them apart by it.
    public let view: ViewDefinition
    /// The log position the rows reflect: the `from` of the view's next change set.
    public let position: Int64
    /// The rows in list order: an O(1) snapshot that shares structure with the view.
    public let rows: RowList
    /// The sections in list order (empty for a view without sections).
    public let sections: SectionList

    /// Creates a snapshot (to test a front end, for example).
    package init(view: ViewDefinition, position: Int64, rows: RowList = RowList(), sections: SectionList = SectionList()) {
        self.view = view
        self.position = position
        self.rows = rows
        self.sections = sections
    }
}

/// Where a row is in a view: its index in the flat list and, in a view with sections, its
/// section and item.
public struct RowLocation: Hashable, Sendable {
    /// The row's index in the view's list.
    public var index: Int
    /// The row's section and item; `nil` for a view without sections.
    public var path: RowPath?
    /// The log position of the rows the location is in (a view's ``ViewSnapshot/position``).
    public var position: Int64

    /// Creates a location.
    package init(index: Int, path: RowPath?, position: Int64) {
        self.index = index
        self.path = path
        self.position = position
    }
}

extension TimelineProjection {
    /// The rows and sections of a view, together. A view the projection does not maintain
    /// is built for the call and dropped: it is not added.
    /// - Complexity: O(1) for a maintained view (each section is made when it is read);
    ///   O(*n* log *n*) for *n* rows otherwise.
    package func snapshot(_ definition: ViewDefinition) -> ViewSnapshot {
        withView(definition) { projection, location in
            let set = projection.rowSets[location.rowSet]
            return ViewSnapshot(
                view: definition, position: set.views[location.view].position,
                rows: set.rows(descending: definition.order == .descending),
                sections: set.sections(ofView: location.view, now: projection.now.microsecondsSinceEpoch))
        }
    }

    /// Where the row `id` is in a view, or `nil` if the view does not show it. A view the
    /// projection does not maintain is built for the call and dropped.
    /// - Complexity: O(log *n* + log *s*) for *n* rows and *s* sections in a maintained view;
    ///   O(*n* log *n*) otherwise.
    package func location(of id: RowID, in definition: ViewDefinition) -> RowLocation? {
        withView(definition) { projection, location in projection.location(of: id, at: location) }
    }

    /// Calls `body` with a projection that maintains `definition` and where the view is:
    /// this one, or a copy with the view added, dropped after the call.
    private func withView<R>(_ definition: ViewDefinition, _ body: (TimelineProjection, ViewLocation) -> R) -> R {
        if let location = viewIndex[definition] { return body(self, location) }
        var copy = self
        copy.addView(definition)
        return body(copy, copy.viewIndex[definition]!)
    }

    private func location(of id: RowID, at location: ViewLocation) -> RowLocation? {
        let set = rowSets[location.rowSet], view = set.views[location.view]
        guard let snapshot = events[id.event], set.filter.includes(snapshot) else { return nil }
        let kind = id.role == .start ? snapshot.firstRowKind : snapshot.secondRowKind
        guard let kind else { return nil }
        let nowValue = now.microsecondsSinceEpoch
        let order = set.order(now: nowValue)
        let entry = RowEntry(event: snapshot, kind: kind, now: nowValue, placement: set.placement)
        let found = order.find(entry, in: set.index)
        guard let row = found.row, row.isSameRow(as: entry) else { return nil }
        let count = set.index.count
        let descending = view.isDescending
        let index = descending ? count - 1 - found.at : found.at
        var path: RowPath?
        if let key = view.sectionKey(of: entry, order: order) ?? (view.hasSections ? view.nowKey(nowValue) : nil) {
            let sections = view.ascendingSections(marked: set.index.markedCount, now: nowValue)
            // The section's place among the sections and its first row's in the rows, ascending.
            let section = (0..<sections.count).partitioningIndex { sections.key(at: $0) >= key }
            let start = set.index.partitionIndex { (view.sectionKey(of: $0, order: order) ?? view.nowKey(nowValue)) >= key }
            let item = found.at - start
            path = descending
                ? RowPath(section: sections.count - 1 - section, item: sections.count(at: section) - 1 - item)
                : RowPath(section: section, item: item)
        }
        return RowLocation(index: index, path: path, position: view.position)
    }
}
