import Foundation
import Synchronization
import SystemShim

#if os(Linux)
/// Calls `changed` whenever a name in a directory changes (a file made, renamed in,
/// written and closed, removed), and when the directory itself is made: what a shared
/// folder's reader waits for. One inotify descriptor watches the directory and its parent;
/// the directory's watch is set again after every event, so a directory made later (a
/// device's first segment) is followed from then on. Nothing polls.
package enum DirectoryWatch {
    package static func start(path: String, _ changed: @escaping @Sendable () -> Void) throws(EventLogError) -> LogWatch {
        let inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw .io(path: path, operation: "inotify_init1", code: errno) }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_DELETE_SELF
            | IN_MOVE_SELF)
        let parent = (path as NSString).deletingLastPathComponent
        @Sendable func arm() {
            _ = inotify_add_watch(inotify, path, mask)
            _ = inotify_add_watch(inotify, parent.isEmpty ? "." : parent, UInt32(IN_CREATE | IN_MOVED_TO))
        }
        arm()
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            close(inotify)
            throw .io(path: path, operation: "pipe", code: code)
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (wake, stop) = (pipeEnds[0], pipeEnds[1])
        let thread = Thread {
            defer {
                close(inotify)
                close(wake)
            }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            while true {
                fds[0].revents = 0
                fds[1].revents = 0
                let ready = poll(&fds, 2, -1)
                if ready < 0 && errno == EINTR { continue }
                if ready < 0 || fds[1].revents != 0 { return }
                let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                if count <= 0 { continue }
                arm()
                changed()
            }
        }
        thread.name = "timeline folder watch"
        thread.start()
        return LogWatch {
            var byte: UInt8 = 1
            _ = write(stop, &byte, 1)
            close(stop)
        }
    }
}
#elseif canImport(Darwin)
/// Calls `changed` whenever a name in a directory changes: a dispatch source on the
/// directory (its `write` event), made again when the directory is replaced.
package enum DirectoryWatch {
    package static func start(path: String, _ changed: @escaping @Sendable () -> Void) throws(EventLogError) -> LogWatch {
        try FileWatch.start(path: path, changed)
    }
}
#endif
