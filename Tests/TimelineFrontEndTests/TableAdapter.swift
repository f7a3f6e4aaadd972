import Foundation
import TimelineKit

// A table adapter as a front end writes it, and a test double of the table it drives:
// only what `import TimelineKit` gives (no `@testable`), so what these tests use is public.

/// The calls of `UITableView` a table adapter makes.
protocol BatchTable: AnyObject {
    func reloadData()
    func performBatchUpdates(_ updates: () -> Void)
    func deleteSections(_ sections: IndexSet)
    func insertSections(_ sections: IndexSet)
    func deleteRows(at indexPaths: [IndexPath])
    func insertRows(at indexPaths: [IndexPath])
    func moveRow(at from: IndexPath, to: IndexPath)
    func reconfigureRows(at indexPaths: [IndexPath])
}

/// A table's data source and its updates, for a list with or without sections: the
/// README's snippet, as a type a front end can test with values.
final class TimelineTableAdapter {
    private(set) var view: ViewDefinition
    private(set) var rows: RowList
    private(set) var sections: SectionList

    init(_ snapshot: ViewSnapshot) {
        view = snapshot.view
        rows = snapshot.rows
        sections = snapshot.sections
    }

    /// A list without sections is a table of one section.
    var numberOfSections: Int { view.sections == .none ? 1 : sections.count }

    func numberOfRows(inSection section: Int) -> Int { view.sections == .none ? rows.count : sections[section].count }

    func title(forHeaderInSection section: Int) -> String? { view.sections == .none ? nil : sections[section].title }

    /// The row shown at `indexPath`.
    func row(at indexPath: IndexPath) -> Row {
        let start = sections.prefix(view.sections == .none ? 0 : indexPath[0]).reduce(0) { $0 + $1.count }
        return rows[start + indexPath[1]]
    }

    /// Takes the change set's rows and animates the change: one batch, then the updates.
    func apply(_ change: ChangeSet, to table: any BatchTable) {
        rows = change.rows
        sections = change.sections
        // A reset (a subscriber that fell behind, a large import) has no positions.
        guard let paths = change.sectioned else { return table.reloadData() }
        table.performBatchUpdates {
            table.deleteSections(paths.deletedSections)
            table.insertSections(paths.insertedSections)
            table.deleteRows(at: paths.deletedIndexPaths)
            table.insertRows(at: paths.insertedIndexPaths)
            for move in paths.movedIndexPaths { table.moveRow(at: move.from, to: move.to) }
        }
        table.reconfigureRows(at: paths.updatedIndexPaths)
    }
}

/// A test double of a table: it keeps the row counts it last read, as UIKit does, and at
/// the end of a batch checks the adapter's new counts against them as UIKit would
/// ("invalid number of rows in section …"), and every index path against the old or new
/// counts; it shows each row's title, read from the adapter when a row is inserted, moved
/// in or reconfigured, so what it shows after an update is what the animation left.
final class FakeTable: BatchTable {
    let adapter: TimelineTableAdapter
    private(set) var shown: [[String]] = []
    private(set) var violations: [String] = []
    private(set) var reloads = 0
    private(set) var batches = 0
    private var batch: (deletedSections: IndexSet, insertedSections: IndexSet, deletions: [IndexPath],
                        insertions: [IndexPath], moves: [(IndexPath, IndexPath)])?

    init(_ adapter: TimelineTableAdapter) {
        self.adapter = adapter
        reloadData()
        reloads = 0
    }

    private func read() -> [[String]] {
        (0..<adapter.numberOfSections).map { section in
            (0..<adapter.numberOfRows(inSection: section)).map {
                adapter.row(at: IndexPath(indexes: [section, $0])).title
            }
        }
    }

    func reloadData() {
        reloads += 1
        shown = read()
    }

    func performBatchUpdates(_ updates: () -> Void) {
        batches += 1
        batch = ([], [], [], [], [])
        updates()
        guard let batch = batch.take() else { return }
        let old = shown
        let newCounts = (0..<adapter.numberOfSections).map { adapter.numberOfRows(inSection: $0) }
        let surviving = old.indices.filter { !batch.deletedSections.contains($0) }
        let receiving = newCounts.indices.filter { !batch.insertedSections.contains($0) }
        guard surviving.count == receiving.count, batch.deletedSections.allSatisfy(old.indices.contains),
              batch.insertedSections.allSatisfy(newCounts.indices.contains) else {
            return violations.append("invalid number of sections")
        }
        func isOld(_ path: IndexPath) -> Bool {
            old.indices.contains(path[0]) && old[path[0]].indices.contains(path[1])
                && !batch.deletedSections.contains(path[0])
        }
        func isNew(_ path: IndexPath) -> Bool {
            newCounts.indices.contains(path[0]) && (0..<newCounts[path[0]]).contains(path[1])
                && !batch.insertedSections.contains(path[0])
        }
        let sources = batch.deletions + batch.moves.map(\.0), destinations = batch.insertions + batch.moves.map(\.1)
        if !sources.allSatisfy(isOld) || Set(sources).count != sources.count {
            violations.append("a row deleted or moved that is not there, or twice")
        }
        if !destinations.allSatisfy(isNew) || Set(destinations).count != destinations.count {
            violations.append("a row inserted or moved to where there is none, or twice")
        }
        guard violations.isEmpty else { return }
        var result = newCounts.map { [String?](repeating: nil, count: $0) }
        for (from, to) in batch.moves { result[to[0]][to[1]] = old[from[0]][from[1]] }
        for path in batch.insertions { result[path[0]][path[1]] = adapter.row(at: path).title }
        for (oldSection, newSection) in zip(surviving, receiving) {
            var kept = old[oldSection].indices.filter { !sources.contains(IndexPath(indexes: [oldSection, $0])) }
                .map { old[oldSection][$0] }[...]
            let free = result[newSection].indices.filter { result[newSection][$0] == nil }
            guard kept.count == free.count else {
                return violations.append("invalid number of rows in section \(newSection): \(newCounts[newSection]) "
                    + "after, \(old[oldSection].count) before")
            }
            for item in free { result[newSection][item] = kept.removeFirst() }
        }
        for section in batch.insertedSections {
            result[section] = (0..<newCounts[section]).map { adapter.row(at: IndexPath(indexes: [section, $0])).title }
        }
        shown = result.map { $0.map { $0 ?? "?" } }
    }

    func deleteSections(_ sections: IndexSet) { batch?.deletedSections.formUnion(sections) }
    func insertSections(_ sections: IndexSet) { batch?.insertedSections.formUnion(sections) }
    func deleteRows(at indexPaths: [IndexPath]) { batch?.deletions += indexPaths }
    func insertRows(at indexPaths: [IndexPath]) { batch?.insertions += indexPaths }
    func moveRow(at from: IndexPath, to: IndexPath) { batch?.moves.append((from, to)) }

    func reconfigureRows(at indexPaths: [IndexPath]) {
        for path in indexPaths {
            guard shown.indices.contains(path[0]), shown[path[0]].indices.contains(path[1]) else {
                violations.append("reconfigured \(path), which is not there")
                continue
            }
            shown[path[0]][path[1]] = adapter.row(at: path).title
        }
    }
}

extension Optional {
    /// The value, leaving `nil` behind.
    mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
