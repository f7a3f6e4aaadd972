import Synchronization
import TimelineCore

/// Where a store gets "now": the system clock, or a clock a test or front end sets.
public protocol TimelineClock: Sendable {
    /// The current instant.
    func now() -> Instant
}

/// The system's clock.
public struct SystemClock: TimelineClock {
    /// Creates the system clock.
    public init() {}

    /// The current instant, from the system.
    public func now() -> Instant { .now }
}

/// A clock that says what it is told: for tests, previews and `--now`.
public final class ManualClock: TimelineClock {
    private let instant: Mutex<Instant>

    /// Creates a clock that reads `instant` until it is set.
    public init(_ instant: Instant) { self.instant = Mutex(instant) }

    /// The instant last set.
    public func now() -> Instant { instant.withLock { $0 } }

    /// Moves the clock to `newValue` (forward or back): ``now()`` says it from then on,
    /// for the store's record stamps and for `startClock(every:)`'s ticks.
    ///
    /// A store's views are not told by the clock itself: they move to it at the store's
    /// next tick, or at once with `advanceClock(to:)`.
    public func set(_ newValue: Instant) { instant.withLock { $0 = newValue } }
}
