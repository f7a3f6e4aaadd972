extension TimelineStore {
    /// Where a store runs its work: validating, appending, projecting and publishing.
    public enum ExecutorChoice: Sendable, Hashable {
        /// An executor of the store's own: a send from the main actor switches to another
        /// thread and back, and the main actor never waits for the log. The choice for a
        /// store that sends from tasks, or whose appends are slow (a file log's `fsync`).
        case own
        /// The main actor's: a send from the main actor runs at once, with no thread
        /// switch, and a send from elsewhere switches to the main actor. The appends then
        /// happen on the main thread, so choose it for a log whose appends are fast (in
        /// memory) in an app that sends from the main actor.
        case mainActor

        /// The actor whose executor a store with this choice shares.
        var owner: any Actor {
            switch self {
            case .own: ExecutorOwner()
            case .mainActor: MainActor.shared
            }
        }
    }
}

/// An actor with nothing in it, whose default executor a store of its own runs on: a
/// default actor's executor lets a task switch to it on the same thread.
private actor ExecutorOwner {}
