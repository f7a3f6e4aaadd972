import Observation
import TimelineCore
import TimelineProjections

/// An `@Observable` copy of a live view, for SwiftUI (`ForEach(model.rows) { row in … }`)
/// and UIKit alike.
///
/// It has the view's rows from the moment it exists (the store's current snapshot), then
/// applies each change set on the main actor; its rows are the change set's structurally
/// shared snapshot, so an update costs O(1), not a copy of the list.
///
/// SwiftUI reads ``rows`` and ``sections``. A UIKit list needs every change set, in order,
/// which observation (that may coalesce changes) does not promise: pass `onChange`, which
/// the model calls with each change set right after ``rows`` and ``sections`` become its
/// new ones, and apply it there (a reset, which has no indices, with `reloadData()`):
///
/// ```swift
/// let byMonth = ViewDefinition(sections: .month)
/// model = await TimelineViewModel(store: store, view: byMonth) { [weak self] change in
///     guard let table = self?.tableView else { return }
///     // A reset has no indices (nor a sectioned form): reload.
///     guard let sectioned = change.sectioned else { return table.reloadData() }
///     table.performBatchUpdates {
///         table.deleteSections(sectioned.deletedSections, with: .automatic)
///         table.insertSections(sectioned.insertedSections, with: .automatic)
///         table.deleteRows(at: sectioned.deletedIndexPaths, with: .automatic)
///         table.insertRows(at: sectioned.insertedIndexPaths, with: .automatic)
///         for move in sectioned.movedIndexPaths { table.moveRow(at: move.from, to: move.to) }
///     }
///     table.reconfigureRows(at: sectioned.updatedIndexPaths)
/// }
/// ```
///
/// Keep the model alive as long as the list is shown; ``stop()`` (or releasing the model)
/// ends its subscription, and the store stops keeping the view up to date once nobody
/// else subscribes to it.
@MainActor
@Observable
public final class TimelineViewModel {
    /// The view's rows in list order.
    public private(set) var rows: RowList
    /// The view's sections (empty without sectioning).
    public private(set) var sections: SectionList
    /// The log position the rows reflect.
    public private(set) var position: Int64

    /// The view this model shows.
    public let view: ViewDefinition

    @ObservationIgnored private var task: Task<Void, Never>?
    @ObservationIgnored private let onChange: (@MainActor (ChangeSet) -> Void)?

    /// Starts following `view` of `store`, with its current rows.
    ///
    /// At most `bufferLimit` change sets wait while the main actor is busy; past that they
    /// collapse into one reset. `onChange` is called with every change set, after the
    /// model's rows are its new ones.
    public convenience init(store: TimelineStore, view: ViewDefinition = ViewDefinition(), bufferLimit: Int = 256,
                            onChange: (@MainActor (ChangeSet) -> Void)? = nil) async {
        self.init(subscription: await store.subscribe(view, bufferLimit: bufferLimit), onChange: onChange)
    }

    /// Follows a subscription taken already, from its snapshot: synchronously, for a view
    /// controller or a SwiftUI view made on the main actor after the subscription was taken
    /// (`await store.subscribe(view)`).
    ///
    /// The model takes the subscription over: iterate its `changes` nowhere else (a
    /// stream has one reader). `onChange` is called with every change set, after the
    /// model's rows are its new ones.
    public init(subscription: ViewSubscription, onChange: (@MainActor (ChangeSet) -> Void)? = nil) {
        view = subscription.snapshot.view
        rows = subscription.snapshot.rows
        sections = subscription.snapshot.sections
        position = subscription.snapshot.position
        self.onChange = onChange
        let changes = subscription.changes
        task = Task { [weak self] in
            for await changeSet in changes {
                guard let self else { return }
                self.apply(changeSet)
            }
        }
    }

    /// Applies a change set: the new rows, sections and position, then `onChange`.
    func apply(_ changeSet: ChangeSet) {
        rows = changeSet.rows
        sections = changeSet.sections
        position = changeSet.to
        onChange?(changeSet)
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
