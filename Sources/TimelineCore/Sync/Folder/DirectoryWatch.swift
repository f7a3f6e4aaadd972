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
        return try FileWatch.readEvents(inotify: inotify, path: path, name: "timeline folder watch") { _ in
            arm()
            changed()
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
