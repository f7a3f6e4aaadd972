extension ChangeSet {
    /// A reset from this change set's `from` to `later`'s `to`, with `later`'s rows: what a
    /// subscriber that fell behind receives instead of the change sets it missed.
    /// - Complexity: O(1).
    package func merged(with later: ChangeSet) -> ChangeSet {
        ChangeSet(view: view, from: from, to: later.to, isReset: true, rows: later.rows, sections: later.sections,
                  sectionedSource: .none)
    }

    /// A reset to `rows`: the first element of a live view's change stream.
    /// - Complexity: O(1).
    package static func initial(view: ViewDefinition, from: Int64? = nil, position: Int64, rows: RowList,
                                sections: SectionList) -> ChangeSet {
        ChangeSet(view: view, from: from ?? position, to: position, isReset: true, rows: rows, sections: sections,
                  sectionedSource: .none)
    }
}
