import SystemShim

/// Nanoseconds from `clock_gettime(CLOCK_MONOTONIC)`: immune to wall-clock changes, and
/// cheap enough (tens of nanoseconds) to read around every single command.
enum MonotonicClock {
    /// The current reading, in nanoseconds.
    @inline(__always)
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Runs `body` and returns how long it took, in nanoseconds, and its result.
    @inline(__always)
    /// How long `body` took, in nanoseconds.
    static func measureAsync(_ body: () async throws -> Void) async rethrows -> UInt64 {
        let start = now()
        try await body()
        return now() - start
    }

    static func measure<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> (nanoseconds: UInt64, value: T) {
        let start = now()
        let value = try body()
        return (now() - start, value)
    }
}
