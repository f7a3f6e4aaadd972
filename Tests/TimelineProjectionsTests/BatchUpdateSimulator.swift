@testable import TimelineProjections

/// UIKit's rules for one `performBatchUpdates` of a sectioned table or collection view,
/// applied strictly: every index in range and used once, no item deleted or moved out of a
/// deleted section, nor inserted or moved into an inserted one, each surviving section's
/// new item count as UIKit computes it, and the rows after the batch (and the updates'
/// reconfiguration) exactly the new rows.
enum BatchUpdateSimulator {
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    /// Applies `change` to `old` (rows by section), the data source answering from `new`
    /// for inserted rows and sections and for reconfigured rows; returns the rows UIKit
    /// would show, or the first rule broken.
    ///
    /// With the sections' ids, a section kept must be the same section after the update.
    static func apply(_ change: SectionedChangeSet, old: [[Row]], new: [[Row]],
                      ids: (old: [RowSection.ID], new: [RowSection.ID])? = nil) throws(Violation) -> [[Row]] {
        func fail(_ text: String) -> Violation { Violation(description: "Invalid update: " + text) }
        // Sections.
        let deletedSections = Set(change.sectionDeletions), insertedSections = Set(change.sectionInsertions)
        guard deletedSections.count == change.sectionDeletions.count else { throw fail("a section deleted twice") }
        guard insertedSections.count == change.sectionInsertions.count else { throw fail("a section inserted twice") }
        for section in change.sectionDeletions where !old.indices.contains(section) {
            throw fail("attempt to delete section \(section), but there are only \(old.count) sections before the update")
        }
        for section in change.sectionInsertions where !new.indices.contains(section) {
            throw fail("attempt to insert section \(section), but there are only \(new.count) sections after the update")
        }
        let surviving = old.indices.filter { !deletedSections.contains($0) }
        let receiving = new.indices.filter { !insertedSections.contains($0) }
        guard surviving.count == receiving.count else {
            throw fail("invalid number of sections: \(new.count) after, \(old.count) before, "
                + "\(insertedSections.count) inserted, \(deletedSections.count) deleted")
        }
        if let ids {
            for (oldSection, newSection) in zip(surviving, receiving) where ids.old[oldSection] != ids.new[newSection] {
                throw fail("section \(oldSection) (\(ids.old[oldSection])) becomes section \(newSection) (\(ids.new[newSection]))")
            }
        }
        // Items.
        func checkOld(_ path: RowPath, _ what: String) throws(Violation) {
            guard old.indices.contains(path.section), old[path.section].indices.contains(path.item) else {
                throw fail("attempt to \(what) item \(path), which does not exist before the update")
            }
            guard !deletedSections.contains(path.section) else {
                throw fail("attempt to \(what) item \(path) of section \(path.section), which is being deleted")
            }
        }
        func checkNew(_ path: RowPath, _ what: String) throws(Violation) {
            guard new.indices.contains(path.section), new[path.section].indices.contains(path.item) else {
                throw fail("attempt to \(what) item \(path), which does not exist after the update")
            }
            guard !insertedSections.contains(path.section) else {
                throw fail("attempt to \(what) item \(path) into section \(path.section), which is being inserted")
            }
        }
        var sources = Set<RowPath>(), destinations = Set<RowPath>()
        for path in change.deletions {
            try checkOld(path, "delete")
            guard sources.insert(path).inserted else { throw fail("item \(path) deleted twice") }
        }
        for move in change.moves {
            try checkOld(move.from, "move")
            guard sources.insert(move.from).inserted else { throw fail("attempt to move item \(move.from), which is also deleted or moved") }
            try checkNew(move.to, "move")
            guard destinations.insert(move.to).inserted else { throw fail("attempt to move to \(move.to), which is also a destination") }
        }
        for path in change.insertions {
            try checkNew(path, "insert")
            guard destinations.insert(path).inserted else { throw fail("item \(path) inserted twice") }
        }
        // Counts, and the rows after the update.
        var result = new
        for (oldSection, newSection) in zip(surviving, receiving) {
            let deleted = change.deletions.filter { $0.section == oldSection }.count
            let movedOut = change.moves.filter { $0.from.section == oldSection }.count
            let inserted = change.insertions.filter { $0.section == newSection }.count
            let movedIn = change.moves.filter { $0.to.section == newSection }.count
            let expected = old[oldSection].count - deleted - movedOut + inserted + movedIn
            guard expected == new[newSection].count else {
                throw fail("invalid number of items in section \(newSection). The number of items contained in an "
                    + "existing section after the update (\(new[newSection].count)) must be equal to the number of "
                    + "items contained in that section before the update (\(old[oldSection].count)), plus or minus "
                    + "the number of items inserted or deleted from that section (\(inserted) inserted, \(deleted) "
                    + "deleted) and plus or minus the number of items moved into or out of that section "
                    + "(\(movedIn) moved in, \(movedOut) moved out).")
            }
            var kept = old[oldSection].indices.filter { !sources.contains(RowPath(section: oldSection, item: $0)) }
                .map { old[oldSection][$0] }[...]
            var arrivals: [Int: Row] = [:]
            for path in change.insertions where path.section == newSection { arrivals[path.item] = new[newSection][path.item] }
            for move in change.moves where move.to.section == newSection {
                arrivals[move.to.item] = old[move.from.section][move.from.item]
            }
            for item in new[newSection].indices {
                result[newSection][item] = arrivals[item] ?? kept.removeFirst()
            }
        }
        // Updates: reconfigured after the batch, at their new positions.
        var updated = Set<RowID>()
        for update in change.updates {
            guard result.indices.contains(update.path.section), result[update.path.section].indices.contains(update.path.item) else {
                throw fail("attempt to reconfigure item \(update.path), which does not exist after the update")
            }
            guard result[update.path.section][update.path.item].id == update.id else {
                throw fail("update of \(update.id) at \(update.path), where \(result[update.path.section][update.path.item].id) is")
            }
            guard updated.insert(update.id).inserted else { throw fail("\(update.id) updated twice") }
            result[update.path.section][update.path.item] = new[update.path.section][update.path.item]
        }
        for section in result.indices where result[section] != new[section] {
            let item = zip(result[section], new[section]).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(result[section].count, new[section].count)
            throw fail("after the update, section \(section) shows \(item < result[section].count ? result[section][item].description : "nothing") "
                + "at item \(item) where the new rows have \(item < new[section].count ? new[section][item].description : "nothing")")
        }
        return result
    }

    /// Applies a flat change set to a table of one section, with the same rules.
    static func apply(flat change: ChangeSet, old: [Row], new: [Row]) throws(Violation) -> [Row] {
        func path(_ item: Int) -> RowPath { RowPath(section: 0, item: item) }
        let newByID = Dictionary(uniqueKeysWithValues: new.enumerated().map { ($1.id, $0) })
        let sectioned = SectionedChangeSet(
            deletions: change.removals.map(path), insertions: change.insertions.map(path),
            moves: change.moves.map { SectionedChangeSet.Move(from: path($0.from), to: path($0.to)) },
            updates: try change.updates.map { id throws(Violation) in
                guard let index = newByID[id] else { throw Violation(description: "update of \(id), not in the new rows") }
                return SectionedChangeSet.Update(id: id, path: path(index))
            })
        return try apply(sectioned, old: [old], new: [new])[0]
    }

    /// `rows` cut into sections of `counts` rows.
    static func grouped(_ rows: [Row], _ counts: [Int]) -> [[Row]] {
        var start = 0
        return counts.map { count in
            defer { start += count }
            return Array(rows[start..<(start + count)])
        }
    }
}
