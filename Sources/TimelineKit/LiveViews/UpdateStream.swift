import TimelineProjections

/// A live view's change sets as an `AsyncSequence`: first the current rows (a reset),
/// then one change set per change, with no polling.
///
/// A subscriber that falls behind receives one reset instead of the change sets it
/// missed; cancelling the task that iterates (or dropping the stream) ends the subscription.
public typealias ChangeStream = UpdateStream<ChangeSet>

/// The timeline summaries as an `AsyncSequence`: the current list, then each change.
public typealias SummaryStream = UpdateStream<SummaryUpdate>

/// Updates pushed by the store to one subscriber, as an `AsyncSequence`.
public struct UpdateStream<Element: Sendable>: AsyncSequence, Sendable {
    let buffer: UpdateBuffer<Element>
    let token: SubscriptionToken

    /// Makes the iterator. A stream has one reader: two tasks that wait on it at once trap,
    /// as with `AsyncStream`.
    public func makeAsyncIterator() -> Iterator { Iterator(buffer: buffer, token: token) }

    /// Ends the subscription: the store stops delivering, and the stream finishes.
    public func cancel() { token.cancel() }

    /// Iterates over the updates.
    public struct Iterator: AsyncIteratorProtocol {
        let buffer: UpdateBuffer<Element>
        let token: SubscriptionToken

        /// The next update, or `nil` when the subscription has ended.
        public mutating func next() async -> Element? {
            await buffer.next()
        }
    }
}
