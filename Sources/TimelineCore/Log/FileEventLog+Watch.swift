import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileEventLog {
    /// Calls `changed` whenever another process (or this one) may have appended to the log,
    /// or replaced it: the operating system's file notifications (inotify on Linux,
    /// a dispatch source on Apple platforms), never polling. A notification comes at
    /// `write()`, before the writer's fsync; ``records(after:)`` takes the shared lock, so it
    /// returns only what is committed.
    package func watch(_ changed: @escaping @Sendable () -> Void) throws(EventLogError) -> LogWatch {
        try FileWatch.start(path: path, changed)
    }
}

#if os(Linux)
/// A thread that waits on inotify for changes to one file, watched through its directory
/// so that a file renamed over the path (a repair) is seen too. A path that is a symbolic
/// link is followed first: writers and repairs change the file it points to, and inotify
/// names that file, in its own directory, never the link.
package enum FileWatch {
    package static func start(path: String, _ changed: @escaping @Sendable () -> Void) throws(EventLogError) -> LogWatch {
        let target = FileEventLog.resolvedPath(path)
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { $0 == target.startIndex ? "/" : String(target[..<$0]) } ?? "."
        let name = Array((slash.map { String(target[target.index(after: $0)...]) } ?? target).utf8)
        let inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw .io(path: path, operation: "inotify_init1", code: errno) }
        // The log renamed away or deleted is a change too: the next read says it is gone.
        let mask = UInt32(IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE)
        guard inotify_add_watch(inotify, directory, mask) >= 0 else {
            let code = errno
            close(inotify)
            throw .io(path: path, operation: "inotify_add_watch", code: code)
        }
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
                if Self.mentions(name, in: buffer[..<count]) { changed() }
            }
        }
        thread.name = "timeline log watch"
        thread.start()
        return LogWatch {
            var byte: UInt8 = 1
            _ = write(stop, &byte, 1)
            close(stop)
        }
    }

    /// Whether any inotify event in `events` names the file `name`.
    static func mentions(_ name: [UInt8], in events: ArraySlice<UInt8>) -> Bool {
        let header = MemoryLayout<inotify_event>.size
        var at = events.startIndex
        while at + header <= events.endIndex {
            let length = events.withUnsafeBytes { raw in
                Int(raw.loadUnaligned(fromByteOffset: at - events.startIndex + 12, as: UInt32.self))
            }
            let nameStart = at + header
            let nameBytes = events[nameStart..<min(nameStart + length, events.endIndex)].prefix { $0 != 0 }
            if nameBytes.elementsEqual(name) { return true }
            at = nameStart + length
        }
        return false
    }
}
#elseif canImport(Darwin)
/// A dispatch source on the log's file; when the file is renamed over or deleted, the
/// source is made again on the file the path names then.
package enum FileWatch {
    package static func start(path: String, _ changed: @escaping @Sendable () -> Void) throws(EventLogError) -> LogWatch {
        let queue = DispatchQueue(label: "timeline log watch")
        let current = Mutex<(any DispatchSourceFileSystemObject)?>(nil)
        let stopped = Atomic<Bool>(false)
        @Sendable func arm() {
            let fd = open(path, O_EVTONLY)
            guard fd >= 0 else { return }
            let source = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: fd, eventMask: [.write, .extend, .rename, .delete, .attrib], queue: queue)
            source.setEventHandler {
                guard !stopped.load(ordering: .acquiring) else { return }
                let events = source.data
                changed()
                if events.contains(.rename) || events.contains(.delete) {
                    source.cancel()
                    arm()
                    changed()
                }
            }
            source.setCancelHandler { close(fd) }
            current.withLock { $0 = source }
            source.resume()
        }
        queue.sync { arm() }
        return LogWatch {
            stopped.store(true, ordering: .releasing)
            queue.async { current.withLock { $0?.cancel() } }
        }
    }
}
#endif
