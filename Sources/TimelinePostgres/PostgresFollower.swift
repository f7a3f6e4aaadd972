#if PostgreSQL
import CLibPQ
import Dispatch
import Synchronization
import SystemShim
import TimelineCore

/// A follower of one PostgreSQL log: a thread of its own with a connection of its own that
/// `LISTEN`s to the log's channel and waits on the connection's socket with `poll()`.
///
/// It calls `changed` for each wake-up that brought notifications, once when it loses its
/// connection (so that its store reads, and a front end hears that the server cannot be
/// reached while it is down, rather than nothing), and after it has connected again (with
/// backoff: 50 ms doubling to 5 s), so that its store catches up from its position.
/// Cancelling wakes the thread through a pipe.
enum PostgresFollower {
    /// What the thread and ``LogWatch/cancel()`` share.
    private struct Gate {
        var cancelled = false
        /// The thread is calling `changed` (cancel waits for the call to end).
        var calling = false
        /// The follower's thread, so that a cancel from inside `changed` does not wait for itself.
        var thread: pthread_t?
    }

    /// What the follower's thread and its ``LogWatch`` share.
    private final class Shared: Sendable {
        let gate = Mutex(Gate())
        let callEnded = DispatchSemaphore(value: 0)
    }

    /// Starts following; returns once the first connection listens. `beforeWake` runs in
    /// a cancel between setting the flag and waking the thread (tests widen that gap).
    static func start(location: PostgresLocation, changed: @escaping @Sendable () -> Void,
                      beforeWake: (@Sendable () -> Void)? = nil) throws(EventLogError) -> LogWatch {
        // Listening before returning: whatever commits after this is notified.
        let first = try listen(location)
        // The thread may return on its own, having seen the cancel flag, before the wake
        // is written: the pipe then stays open until both sides let go (no SIGPIPE).
        let wake: WakePipe
        do { wake = try WakePipe() } catch { throw .io(path: location.displayName, operation: "pipe", code: error.code) }
        let shared = Shared()
        spawnThread {
            shared.gate.withLock { $0.thread = pthread_self() }
            follow(location, first: first, wake: wake.readEnd, shared: shared, changed: changed)
        }
        return LogWatch {
            let wait = shared.gate.withLock { gate in
                gate.cancelled = true
                return gate.calling && gate.thread.map { pthread_equal($0, pthread_self()) == 0 } ?? false
            }
            beforeWake?()
            wake.wake()
            if wait { shared.callEnded.wait() }
        }
    }

    /// The follower's loop, on its thread, until cancelled.
    private static func follow(_ location: PostgresLocation, first: PostgresConnection, wake: Int32, shared: Shared,
                               changed: @Sendable () -> Void) {
        /// Calls `changed` unless cancelled; false once cancelled.
        func notify() -> Bool {
            let go = shared.gate.withLock { gate in
                if !gate.cancelled { gate.calling = true }
                return !gate.cancelled
            }
            guard go else { return false }
            changed()
            let cancelled = shared.gate.withLock { gate in
                gate.calling = false
                return gate.cancelled
            }
            if cancelled { shared.callEnded.signal() }
            return !cancelled
        }

        var connection: PostgresConnection? = first
        var backoff: Int32 = 50
        while true {
            if let current = connection {
                switch wait(current, wake: wake) {
                case .cancelled: return
                case .notified: if !notify() { return }
                case .nothing: break
                case .lost:
                    connection = nil
                    if !notify() { return }
                }
                continue
            }
            // Lost: wait (a cancel cuts the wait short), connect, listen, then have the
            // store catch up from its position.
            if waitForWake(wake, milliseconds: backoff) { return }
            do throws(EventLogError) {
                connection = try listen(location)
                backoff = 50
                if !notify() { return }
            } catch {
                backoff = min(backoff * 2, 5_000)
            }
        }
    }

    /// A new connection that listens to the log's channel.
    private static func listen(_ location: PostgresLocation) throws(EventLogError) -> PostgresConnection {
        let connection = try PostgresConnection(location)
        _ = try connection.run("LISTEN \"\(PostgresEventLog.channel(of: location.log))\"")
        return connection
    }

    private enum Wake { case cancelled, notified, nothing, lost }

    /// Waits until the server sends something or the pipe is written to.
    private static func wait(_ connection: PostgresConnection, wake: Int32) -> Wake {
        // Notifications read along with an earlier result are queued already.
        if connection.drainNotifications() > 0 { return .notified }
        var fds = [pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 2, -1)
        if ready < 0 { return errno == EINTR ? .nothing : .lost }
        if fds[1].revents != 0 { return .cancelled }
        guard fds[0].revents != 0 else { return .nothing }
        if PQconsumeInput(connection.handle) == 0 || connection.isBroken { return .lost }
        return connection.drainNotifications() > 0 ? .notified : .nothing
    }

    /// Waits `milliseconds` or until the pipe is written to (true).
    private static func waitForWake(_ wake: Int32, milliseconds: Int32) -> Bool {
        var fd = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        return poll(&fd, 1, milliseconds) > 0
    }
}
/// Runs `body` on a new, detached thread (not the concurrency pool: it blocks in `poll`).
private func spawnThread(_ body: sending @escaping () -> Void) {
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    #if canImport(Darwin)
    var thread: pthread_t?
    let created = pthread_create(&thread, nil, { raw in
        Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().run()
        return nil
    }, box)
    precondition(created == 0, "cannot start a thread: errno \(created)")
    if let thread { pthread_detach(thread) }
    #else
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { raw in
        Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
        return nil
    }, box)
    precondition(created == 0, "cannot start a thread: errno \(created)")
    pthread_detach(thread)
    #endif
}

/// A closure handed to a new thread. `@unchecked Sendable` is safe: the closure was
/// `sending` (no other reference to what it captures remains), and only the new thread
/// runs it, once.
private final class ThreadBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: sending @escaping () -> Void) { self.run = run }
}
#endif
