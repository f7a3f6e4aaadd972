import TimelineCore

/// Baseline (b): what a fetched-results controller effectively does. Each view is a
/// sorted array; after a change the view's rows are edited in a copy (the event's old
/// rows filtered out, its new rows appended), the whole copy is sorted again, diffed
/// against the old array with Swift's `difference(from:)`, and its sections recounted.
///
/// Swift's sort finds the sorted runs, so re-sorting an array that is sorted but for a
/// few rows costs about one comparison per row: the baseline is as cheap as re-sorting
/// gets.
struct ResortDiffBaseline {
    struct View {
        let spec: BaselineViewSpec
        var rows: [BaselineRow] = []
        var sections: [(year: Int, count: Int)] = []
    }

    private(set) var store: BaselineStore
    private(set) var views: [View]

    init<S: Sequence>(facts: S, specs: [BaselineViewSpec], now: Instant) where S.Element == Fact {
        var store = BaselineStore(now: now)
        for fact in facts { _ = store.apply(fact) }
        var views = specs.map { View(spec: $0) }
        for (id, event) in store.events {
            for index in views.indices { views[index].rows += store.rows(of: id, event, in: views[index].spec) }
        }
        for index in views.indices {
            views[index].rows.sort(by: BaselineRow.precedes)
            views[index].sections = Self.sections(of: views[index].rows)
        }
        self.store = store
        self.views = views
    }

    /// Applies a command's facts, then re-sorts and diffs every view; returns the size of
    /// the differences.
    mutating func apply(_ command: Command) -> Int {
        var changes: [BaselineStore.Change] = []
        for fact in CommandFacts.facts(of: command) { changes += store.apply(fact) }
        var size = 0
        for index in views.indices {
            let spec = views[index].spec
            var rows = views[index].rows
            for change in changes {
                rows.removeAll { $0.event == change.id }
                rows += store.rows(of: change.id, change.new, in: spec)
            }
            rows.sort(by: BaselineRow.precedes)
            size += Self.replace(&views[index], with: rows)
        }
        return size
    }

    /// Diffs a view's new rows and sections against its old ones, then keeps the new.
    private static func replace(_ view: inout View, with rows: [BaselineRow]) -> Int {
        let difference = rows.difference(from: view.rows)
        var size = difference.insertions.count + difference.removals.count
        if view.spec.byYear {
            let sections = Self.sections(of: rows)
            size += sections.map(\.year).difference(from: view.sections.map(\.year)).count
            view.sections = sections
        }
        view.rows = rows
        return size
    }

    /// The year sections of sorted rows, by scanning them (as `sectionNameKeyPath` does).
    private static func sections(of rows: [BaselineRow]) -> [(year: Int, count: Int)] {
        var sections: [(year: Int, count: Int)] = []
        for row in rows {
            let year = row.year
            if let last = sections.last, last.year == year {
                sections[sections.count - 1].count += 1
            } else {
                sections.append((year, 1))
            }
        }
        return sections
    }
}
