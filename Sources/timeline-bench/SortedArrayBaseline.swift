import TimelineCore

/// Baseline (a): each view is a sorted array of rows; a change removes and inserts rows at
/// binary-searched indices (O(log n) to find, O(n) to shift the array), and the indices
/// touched are the change set.
struct SortedArrayBaseline {
    struct View {
        let spec: BaselineViewSpec
        var rows: [BaselineRow] = []
        /// Rows per year, for a sectioned view.
        var sections: [Int: Int] = [:]
    }

    private(set) var store: BaselineStore
    private(set) var views: [View]

    /// Builds the views from facts (sorting each view once).
    init<S: Sequence>(facts: S, specs: [BaselineViewSpec], now: Instant) where S.Element == Fact {
        var store = BaselineStore(now: now)
        for fact in facts { _ = store.apply(fact) }
        var views = specs.map { View(spec: $0) }
        for (id, event) in store.events {
            for index in views.indices {
                views[index].rows += store.rows(of: id, event, in: views[index].spec)
            }
        }
        for index in views.indices {
            views[index].rows.sort(by: BaselineRow.precedes)
            if views[index].spec.byYear {
                for row in views[index].rows { views[index].sections[row.year, default: 0] += 1 }
            }
        }
        self.store = store
        self.views = views
    }

    /// Applies a command's facts; returns how many indices the change sets name.
    mutating func apply(_ command: Command) -> Int {
        var touched = 0
        for fact in CommandFacts.facts(of: command) {
            for change in store.apply(fact) {
                for index in views.indices {
                    let spec = views[index].spec
                    let old = store.rows(of: change.id, change.old, in: spec)
                    let new = store.rows(of: change.id, change.new, in: spec)
                    touched += Self.update(&views[index], removing: old, inserting: new)
                }
            }
        }
        return touched
    }

    /// Removes and inserts a change's rows (the view is the only thing touched, so its
    /// arrays stay uniquely referenced and shift in place).
    private static func update(_ view: inout View, removing old: [BaselineRow], inserting new: [BaselineRow]) -> Int {
        var removals: [Int] = [], insertions: [Int] = [], sectionChanges = 0
        for row in old {
            let at = Self.lowerBound(of: row, in: view.rows)
            guard at < view.rows.count, view.rows[at].event == row.event, view.rows[at].role == row.role else { continue }
            view.rows.remove(at: at)
            removals.append(at)
            if view.spec.byYear {
                let year = row.year
                view.sections[year, default: 0] -= 1
                if view.sections[year] == 0 {
                    view.sections[year] = nil
                    sectionChanges += 1
                }
            }
        }
        for row in new {
            let at = Self.lowerBound(of: row, in: view.rows)
            view.rows.insert(row, at: at)
            insertions.append(at)
            if view.spec.byYear {
                let year = row.year
                if view.sections[year] == nil { sectionChanges += 1 }
                view.sections[year, default: 0] += 1
            }
        }
        return removals.count + insertions.count + sectionChanges
    }

    private static func lowerBound(of row: BaselineRow, in rows: [BaselineRow]) -> Int {
        var low = 0, high = rows.count
        while low < high {
            let mid = (low + high) / 2
            if BaselineRow.precedes(rows[mid], row) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
