import Foundation
import TimelineProjections

extension RowPath {
    /// The path as an `IndexPath` of a table or collection view: `[section, item]`.
    public var indexPath: IndexPath { IndexPath(indexes: [section, item]) }
}

extension SectionedChangeSet {
    /// ``sectionDeletions`` for `deleteSections(_:)`.
    public var deletedSections: IndexSet { IndexSet(sectionDeletions) }
    /// ``sectionInsertions`` for `insertSections(_:)`.
    public var insertedSections: IndexSet { IndexSet(sectionInsertions) }
    /// ``deletions`` for `deleteRows(at:)` or `deleteItems(at:)`.
    public var deletedIndexPaths: [IndexPath] { deletions.map(\.indexPath) }
    /// ``insertions`` for `insertRows(at:)` or `insertItems(at:)`.
    public var insertedIndexPaths: [IndexPath] { insertions.map(\.indexPath) }
    /// ``moves`` for `moveRow(at:to:)` or `moveItem(at:to:)`.
    public var movedIndexPaths: [(from: IndexPath, to: IndexPath)] { moves.map { ($0.from.indexPath, $0.to.indexPath) } }
    /// The paths of ``updates`` for `reconfigureRows(at:)` once the batch has run.
    public var updatedIndexPaths: [IndexPath] { updates.map(\.path.indexPath) }
}
