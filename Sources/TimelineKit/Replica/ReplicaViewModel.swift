import Observation
import TimelineCore
import TimelineProjections

/// An `@Observable` copy of what a replica shows, for SwiftUI and UIKit: a view's rows
/// (the mirror with the pending submissions on top), which of them are pending, the
/// notices, and how much waits to be synced.
///
/// It follows the replica's files, so a send or a sync by any process on this device
/// shows at once. Each change replaces the rows whole (``TimelineReplica/shownChanges(_:now:)``):
/// SwiftUI's `ForEach` animates by row id; a UIKit list reloads, or diffs by id.
@MainActor
@Observable
public final class ReplicaViewModel {
    /// The view's rows in list order.
    public private(set) var rows: RowList = RowList()
    /// The view's sections (empty without sectioning).
    public private(set) var sections: SectionList = SectionList()
    /// The events whose rows rest on a submission not yet decided by the shared log.
    public private(set) var pending: Set<EventID> = []
    /// How many submissions wait to be synced.
    public private(set) var pendingCount = 0
    /// This device's submissions the shared log rejected, not yet dismissed.
    public private(set) var notices: [Notice] = []
    /// The shared log's position the mirror has reached.
    public private(set) var position: Int64 = 0
    /// Why the replica could not be read the last time, when it could not (the rows are
    /// the last read's): a damaged mirror, which a sync fetches again.
    public private(set) var problem: ReplicaError?

    /// The view this model shows.
    public let view: ViewDefinition
    @ObservationIgnored private var task: Task<Void, Never>?

    /// Starts following `view` of `replica`; "now" is `clock`'s.
    public init(replica: TimelineReplica, view: ViewDefinition = ViewDefinition(),
                clock: any TimelineClock = SystemClock()) {
        self.view = view
        task = Task { [weak self] in
            for await shown in await replica.shownChanges(view, now: { clock.now() }) {
                guard let self else { return }
                self.rows = shown.rows
                self.sections = shown.sections
                self.pending = shown.pending
                self.position = shown.position
                self.notices = shown.notices
                self.pendingCount = shown.pendingCount
                self.problem = shown.problem
            }
        }
    }

    /// Whether `row` rests on a submission not yet decided by the shared log.
    public func isPending(_ row: Row) -> Bool { pending.contains(row.id.event) }

    /// Stops following the replica.
    public func stop() {
        task?.cancel()
        task = nil
    }

    isolated deinit { task?.cancel() }
}
