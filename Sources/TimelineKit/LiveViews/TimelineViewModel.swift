import Observation
import TimelineCore
import TimelineProjections

/// An `@Observable` copy of a live view for SwiftUI: `ForEach(model.rows) { row in … }`.
///
/// It subscribes to the store and applies each change set on the main actor; its rows are
/// the change set's structurally shared snapshot, so an update costs O(1), not a copy of
/// the list. Keep the model alive as long as the list is shown; ``stop()`` ends it.
@MainActor
@Observable
public final class TimelineViewModel {
    /// The view's rows in list order.
    public private(set) var rows = RowList()
    /// The view's sections (empty without sectioning).
    public private(set) var sections = SectionList()
    /// The log position the rows reflect.
    public private(set) var position: Int64 = 0
    /// The latest change set applied (for UIKit-style animation), or `nil` before the first.
    public private(set) var lastChange: ChangeSet?

    /// The view this model shows.
    public let view: ViewDefinition

    @ObservationIgnored private var task: Task<Void, Never>?

    /// Starts following `view` of `store`.
    public init(store: TimelineStore, view: ViewDefinition = ViewDefinition()) {
        self.view = view
        task = Task { [weak self] in
            let stream = await store.changes(view)
            for await changeSet in stream {
                guard let self else { return }
                self.apply(changeSet)
            }
        }
    }

    /// Applies a change set: the new rows, sections and position.
    func apply(_ changeSet: ChangeSet) {
        rows = changeSet.rows
        sections = changeSet.sections
        position = changeSet.to
        lastChange = changeSet
    }

    /// Stops following the store.
    public func stop() {
        task?.cancel()
        task = nil
    }

    isolated deinit {
        task?.cancel()
    }
}
