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

    /// Sets the clock.
    package func set(_ newValue: Instant) { instant.withLock { $0 = newValue } }
}
