/// Ends a subscription when cancelled or when the last reference to it goes away.
public final class SubscriptionToken: Sendable {
    private let cancelBuffer: @Sendable () -> Void

    init<Element>(buffer: UpdateBuffer<Element>) { cancelBuffer = { buffer.cancel() } }

    /// Ends the subscription: the store stops delivering and the stream finishes.
    public func cancel() { cancelBuffer() }

    deinit { cancelBuffer() }
}
