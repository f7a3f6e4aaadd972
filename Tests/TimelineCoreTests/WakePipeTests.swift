import Foundation
import SystemShim
import Testing
@testable import TimelineCore

/// The pipe that wakes a log watch's thread outlives the thread: a cancel that comes after
/// the thread returned on its own writes into a pipe that still has a reader, never into a
/// broken one (`SIGPIPE` would end the process).
@Suite struct WakePipeTests {
    @Test func aWakeAfterTheWaitingThreadReturnedIsStillReadable() throws {
        let wake = try WakePipe()
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // Waits a moment for a wake that does not come, and returns, letting go.
            var fd = pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&fd, 1, 10)
            returned.signal()
        }
        returned.wait()
        usleep(10_000)
        #expect(wake.wake())
        var fd = pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&fd, 1, 0) == 1 && fd.revents & Int16(POLLIN) != 0)
    }
}
