import TimelineCore
import TimelineProjections

extension TimelineStore {
    /// The current rows of a view. A view the store does not keep up to date is built for
    /// the call and dropped; take a ``snapshot(_:)`` for the rows and sections together.
    /// - Complexity: O(1) for a view someone subscribes to; O(*n* log *n*) for *n* rows otherwise.
    package func rows(_ view: ViewDefinition = ViewDefinition()) -> RowList {
        projection.snapshot(view).rows
    }

    /// The current rows and sections of a view, at one log position. A view the store
    /// does not keep up to date is built for the call and dropped.
    /// - Complexity: O(1) for a view someone subscribes to; O(*n* log *n*) for *n* rows otherwise.
    public func snapshot(_ view: ViewDefinition) -> ViewSnapshot {
        projection.snapshot(view)
    }

    /// Where the row `id` is in the current rows of a view: its index and, with sections,
    /// its (section, item); `nil` if the view does not show it. The location's
    /// `position` is the log position of those rows (the `to` of the view's latest change set).
    /// - Complexity: O(log *n* + log *s*) for *n* rows and *s* sections in a view someone
    ///   subscribes to; O(*n* log *n*) otherwise.
    public func location(of id: RowID, in view: ViewDefinition) -> RowLocation? {
        projection.location(of: id, in: view)
    }

    /// A live view: its current rows and sections, and the stream of the change sets that
    /// follow them (the first goes from the snapshot's position). The snapshot's position
    /// is the log's, unless others follow the view already: then it is that of the view's
    /// latest change set, from which all its followers go on.
    ///
    /// At most `bufferLimit` change sets wait for a slow subscriber; past that they collapse
    /// into one reset. The store keeps the view up to date until the last of its
    /// subscriptions ends: cancel the iterating task, call the stream's `cancel()`, or drop it.
    /// - Complexity: O(1) for a view already kept up to date; O(*n* log *n*) to start one.
    public func subscribe(_ view: ViewDefinition = ViewDefinition(), bufferLimit: Int = 256) -> ViewSubscription {
        // Other processes' appends are read first, then as they come.
        followLog()
        projection.addView(view)
        // A view nobody follows starts at the log's position; one already followed keeps
        // its place, so that its followers' change sets still go on from each other.
        if subscribers[view].map({ $0.allSatisfy(\.isFinished) }) ?? true { projection.bringViewPositionUp(view) }
        let snapshot = projection.snapshot(view)
        let buffer = UpdateBuffer<ChangeSet>(limit: bufferLimit) { $0.merged(with: $1) }
        buffer.onCancel = { [weak self] in
            Task { await self?.dropEndedSubscriptions(of: view) }
        }
        // A closed store publishes nothing more: its streams end after what they hold.
        if isReleased { buffer.finish() } else { subscribers[view, default: []].append(buffer) }
        return ViewSubscription(snapshot: snapshot, changes: ChangeStream(buffer: buffer, token: SubscriptionToken(buffer: buffer)))
    }

    /// A live view as one stream: first the current rows (a reset, whose `from` and `to`
    /// are the rows' position), then one change set per change; see ``subscribe(_:bufferLimit:)``.
    public func changes(_ view: ViewDefinition = ViewDefinition(), bufferLimit: Int = 256) -> ChangeStream {
        let subscription = subscribe(view, bufferLimit: bufferLimit)
        let snapshot = subscription.snapshot
        subscription.changes.buffer.pushFirst(.initial(view: view, position: snapshot.position, rows: snapshot.rows,
                                                       sections: snapshot.sections))
        return subscription.changes
    }

    /// Calls `handler` with the current rows (a reset) and then with every change set of
    /// `view`, in order, on a task of its own; returns the token that ends the observation.
    public func observe(
        _ view: ViewDefinition = ViewDefinition(), bufferLimit: Int = 256,
        _ handler: @escaping @Sendable (ChangeSet) async -> Void
    ) -> SubscriptionToken {
        let stream = changes(view, bufferLimit: bufferLimit)
        let buffer = stream.buffer
        Task {
            while let changeSet = await buffer.next() { await handler(changeSet) }
        }
        return stream.token
    }

    /// Keeps `view` up to date from now on, as if the store had been opened with it (so
    /// that the checkpoint holds its rows).
    /// - Complexity: O(1) for a view kept already; O(*n* log *n*) to start one.
    package func keep(_ view: ViewDefinition) {
        pinnedViews.insert(view)
        projection.addView(view)
    }

    /// The views the store keeps up to date: those it was opened with, and those someone
    /// subscribes to (for tests and diagnostics).
    package var liveViews: [ViewDefinition] {
        for view in subscribers.keys { dropEndedSubscriptions(of: view) }
        return projection.viewDefinitions
    }

    /// Forgets the ended subscriptions of `view`, and stops keeping the view up to date
    /// once none is left (unless the store was opened with it).
    func dropEndedSubscriptions(of view: ViewDefinition) {
        let live = subscribers[view]?.filter { !$0.isFinished } ?? []
        subscribers[view] = live.isEmpty ? nil : live
        if live.isEmpty && !pinnedViews.contains(view) { projection.removeView(view) }
    }
}

/// A live view: its rows and sections at one position, and the change sets that follow.
public struct ViewSubscription: Sendable {
    /// The rows and sections when the subscription started.
    public let snapshot: ViewSnapshot
    /// The change sets after the snapshot, in order: the first goes from the snapshot's
    /// position. Iterate it once; a reset (after falling behind) replaces the rows.
    public let changes: ChangeStream
}
