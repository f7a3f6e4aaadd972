/// Why a batch cannot be undone, reverted or redone.
public enum UndoRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// What an undo would bring back: an event or a timeline.
    public enum Subject: Hashable, Sendable, CustomStringConvertible {
        /// An event, by id.
        case event(EventID)
        /// A timeline, by id.
        case timeline(TimelineID)

        /// `event e1`, `timeline work`.
        public var description: String {
            switch self {
            case .event(let id): "event \(id.rawValue)"
            case .timeline(let id): "timeline \(id.rawValue)"
            }
        }
    }

    /// The record at `position`, after the batch, touched `subject`, which the batch touched
    /// too: undoing the batch would overwrite that later change.
    case changedLater(position: Int64, subject: Subject)
    /// The batch was undone already, by the batch starting at `position`.
    case alreadyUndone(by: Int64)
    /// The batch was undone by the batch starting at `undo`, and that undo was undone (a
    /// redo) by the batch starting at `redo`: undoing the redo undoes the batch again.
    case redone(undo: Int64, redo: Int64)
    /// No record of the log has this position.
    case noSuchRecord(position: Int64, last: Int64)
    /// There is nothing to undo (no send of this store left to undo).
    case nothingToUndo
    /// There is nothing to redo (nothing undone since the last send).
    case nothingToRedo
    /// The undo would put events back in a timeline that the record at `position`, after
    /// the batch, removed: reverting that removal first brings the timeline back.
    case timelineRemoved(TimelineID, position: Int64)
    /// A replica's send to undo (or undo to redo) has no outcome in its mirror yet: only
    /// once the shared log has decided it is there a batch to undo.
    case notDecidedYet(SubmissionID)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .changedLater(let position, let subject):
            "record \(position) changed \(subject) after this batch; revert that change first (an undo never overwrites a later change)"
        case .alreadyUndone(let position):
            "this batch was undone already, by record \(position); to bring it back, revert record \(position)"
        case .redone(let undo, let redo):
            "this batch was undone by record \(undo) and redone by record \(redo); to undo it again, revert record \(redo)"
        case .noSuchRecord(let position, let last):
            last == 0 ? "no record \(position): the log is empty"
                : "no record \(position): the log's records are 1-\(last)"
        case .nothingToUndo: "nothing to undo"
        case .nothingToRedo: "nothing to redo"
        case .timelineRemoved(let timeline, let position):
            "the undo would put events back in timeline \(timeline.rawValue), which record \(position) removed after this "
                + "batch; revert record \(position) first (it brings the timeline back), then this batch"
        case .notDecidedYet(let id):
            "the change to undo (sent as \(id)) is not decided by the shared log yet: sync, then undo it"
        }
    }
}
