import SystemShim

/// A pipe that wakes a thread blocked in `poll` on ``readEnd``: ``wake()`` writes one byte.
///
/// Both ends close when the last holder lets go, never before. A thread that returns on
/// its own (it saw a cancel flag before the byte came) therefore never leaves a wake
/// writing into a pipe without a reader: that write would fail with `EPIPE` and raise
/// `SIGPIPE`, whose default action ends the whole process (the app, or a test run).
package final class WakePipe: Sendable {
    /// The end to `poll` for `POLLIN`: readable once ``wake()`` was called.
    package let readEnd: Int32
    private let writeEnd: Int32

    /// Why the pipe could not be made: `pipe`'s `errno`.
    package struct Failure: Error {
        package let code: Int32
    }

    /// Opens the pipe, both ends close-on-exec, the writing end non-blocking (a wake
    /// into a full pipe is a wake already given).
    package init() throws(Failure) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Failure(code: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        (readEnd, writeEnd) = (ends[0], ends[1])
    }

    /// Makes ``readEnd`` readable; returns whether the byte was written (false only when
    /// the pipe is full of earlier wakes).
    @discardableResult
    package func wake() -> Bool {
        var byte: UInt8 = 1
        return write(writeEnd, &byte, 1) == 1
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }
}
