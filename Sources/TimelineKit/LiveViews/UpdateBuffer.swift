import Synchronization

/// One subscriber's bounded queue of updates, between the store and the subscriber.
///
/// The store never waits on it: when the subscriber falls more than `limit` updates
/// behind, the queued updates collapse into one (for change sets: a reset from the first
/// one's `from` to the latest rows), so the subscriber sees no gap and the writer never
/// blocks.
final class UpdateBuffer<Element: Sendable>: Sendable {
    private struct State {
        var pending: [Element] = []
        var head = 0
        var waiter: CheckedContinuation<Element?, Never>?
        var finished = false
        var onCancel: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let limit: Int
    /// Collapses the oldest queued update and the newest into one.
    private let collapse: @Sendable (Element, Element) -> Element

    init(limit: Int, collapse: @escaping @Sendable (Element, Element) -> Element) {
        self.limit = max(1, limit)
        self.collapse = collapse
    }

    var isFinished: Bool { state.withLock { $0.finished } }

    /// Called once, when the subscriber cancels (not when the store finishes the stream).
    var onCancel: (@Sendable () -> Void)? {
        get { state.withLock { $0.onCancel } }
        set { state.withLock { $0.onCancel = newValue } }
    }

    /// Queues `update` before everything queued (the first element of a stream).
    func pushFirst(_ update: Element) {
        state.withLock { state in
            state.pending.insert(update, at: state.head)
        }
    }

    /// Queues an update, or hands it to a waiting subscriber.
    func push(_ update: Element) {
        let waiter: CheckedContinuation<Element?, Never>? = state.withLock { state in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending.append(update)
            if state.pending.count - state.head > limit {
                state.pending = [collapse(state.pending[state.head], update)]
                state.head = 0
            }
            return nil
        }
        waiter?.resume(returning: update)
    }

    /// Ends the stream: the subscriber receives what is queued, then `nil`.
    func finish() { end(dropping: false) }

    /// Ends the stream at once, dropping what is queued.
    func cancel() { end(dropping: true) }

    private func end(dropping: Bool) {
        let (waiter, onCancel) = state.withLock { state -> (CheckedContinuation<Element?, Never>?, (@Sendable () -> Void)?) in
            let wasFinished = state.finished
            state.finished = true
            var onCancel: (@Sendable () -> Void)?
            if dropping {
                state.pending = []
                state.head = 0
                if !wasFinished { onCancel = state.onCancel }
            }
            state.onCancel = nil
            defer { state.waiter = nil }
            return (state.waiter, onCancel)
        }
        waiter?.resume(returning: nil)
        onCancel?()
    }

    /// The next update, waiting for one if none is queued; `nil` once finished.
    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let ready: Element?? = state.withLock { state in
                    if state.head < state.pending.count {
                        let next = state.pending[state.head]
                        state.head += 1
                        if state.head == state.pending.count {
                            state.pending.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        return .some(next)
                    }
                    if state.finished { return .some(nil) }
                    // Two readers would take each other's updates, and the first would wait for good.
                    precondition(state.waiter == nil, "two tasks wait on one live view's stream at once: a stream "
                        + "has one reader. Subscribe again for a second reader.")
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            cancel()
        }
    }
}
