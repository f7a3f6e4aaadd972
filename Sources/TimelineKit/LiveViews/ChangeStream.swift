import TimelineProjections

/// A live view's change sets as an `AsyncSequence`: first the current rows (a reset),
/// then one change set per change, with no polling.
///
/// A subscriber that falls behind receives one reset instead of the change sets it
/// missed; cancelling the task that iterates (or dropping the stream) ends the subscription.
public struct ChangeStream: AsyncSequence, Sendable {
    /// The elements: change sets.
    public typealias Element = ChangeSet

    let buffer: UpdateBuffer<ChangeSet>
    let token: SubscriptionToken

    /// Makes the iterator; a stream is meant to be iterated once.
    public func makeAsyncIterator() -> Iterator { Iterator(buffer: buffer, token: token) }

    /// Iterates over the change sets.
    public struct Iterator: AsyncIteratorProtocol {
        let buffer: UpdateBuffer<ChangeSet>
        let token: SubscriptionToken

        /// The next change set, or `nil` when the subscription has ended.
        public mutating func next() async -> ChangeSet? {
            await buffer.next()
        }
    }
}

/// Ends a subscription when cancelled or when the last reference to it goes away.
public final class SubscriptionToken: Sendable {
    private let cancelBuffer: @Sendable () -> Void

    init<Element>(buffer: UpdateBuffer<Element>) { cancelBuffer = { buffer.cancel() } }

    /// Ends the subscription: the store stops delivering and the stream finishes.
    public func cancel() { cancelBuffer() }

    deinit { cancelBuffer() }
}
