import Foundation
import Synchronization
import SystemShim

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
/// link is watched both as the link (re-pointed with `ln -sfn`) and as the file it names
/// (writers and repairs change that file, and inotify names it, in its own directory).
/// A directory that is not there (removed while watched) is waited for from the nearest
/// ancestor that is: when it is made again, the file is watched there. The watches are
/// set again whenever a name in the way changes, and each time `changed` is called, so a
/// reader learns what the path names now.
package enum FileWatch {
    package static func start(path: String, _ changed: @escaping @Sendable () -> Void) throws(EventLogError) -> LogWatch {
        let inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw .io(path: path, operation: "inotify_init1", code: errno) }
        var watches = Watches(inotify: inotify, path: path)
        guard watches.arm() else {
            let code = errno
            close(inotify)
            throw .io(path: path, operation: "inotify_add_watch", code: code)
        }
        let shared = Mutex(watches)
        return try readEvents(inotify: inotify, path: path, name: "timeline log watch") { events in
            let relevance = shared.withLock { $0.relevance(of: events) }
            switch relevance {
            case .none: break
            case .content: changed()
            case .names:
                _ = shared.withLock { $0.arm() }
                changed()
            }
        }
    }

    /// Reads the events of `inotify` on a thread of its own and hands each batch to
    /// `handle`, until the returned watch is cancelled (a byte on a pipe wakes the thread's
    /// `poll`); the thread closes `inotify`. On failure `inotify` is closed.
    package static func readEvents(inotify: Int32, path: String, name: String,
                                   _ handle: @escaping @Sendable (ArraySlice<UInt8>) -> Void) throws(EventLogError)
        -> LogWatch {
        let wake: WakePipe
        do { wake = try WakePipe() } catch {
            close(inotify)
            throw .io(path: path, operation: "pipe", code: error.code)
        }
        let thread = Thread {
            defer { close(inotify) }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            while true {
                fds[0].revents = 0
                fds[1].revents = 0
                let ready = poll(&fds, 2, -1)
                if ready < 0 && errno == EINTR { continue }
                if ready < 0 || fds[1].revents != 0 { return }
                let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                if count <= 0 { continue }
                handle(buffer[..<count])
            }
        }
        thread.name = name
        thread.start()
        return LogWatch { wake.wake() }
    }

    /// The directories watched for one path, and the names in each that matter.
    struct Watches: Sendable {
        let inotify: Int32
        let path: String
        /// Each watch descriptor with the names in its directory that matter, and whether
        /// the directory is the file's own (not an ancestor waited on).
        private(set) var names: [Int32: (names: Set<[UInt8]>, own: Bool)] = [:]

        init(inotify: Int32, path: String) {
            self.inotify = inotify
            self.path = path
        }

        /// What a batch of events means for the watched path.
        enum Relevance { case none, content, names }

        /// Watches the path's directory and, for a symbolic link, its target's; a directory
        /// that is not there, through its nearest ancestor that is. Returns `false` when
        /// not even that could be watched (`errno` says why).
        mutating func arm() -> Bool {
            var wanted: [Int32: (names: Set<[UInt8]>, own: Bool)] = [:]
            for file in Set([path, Self.target(of: path)]) {
                var (directory, name) = Self.split(file)
                var own = true
                var attempts = 0
                while true {
                    let mask = own ? Self.ownMask : Self.ancestorMask | UInt32(IN_MASK_ADD)
                    let descriptor = inotify_add_watch(inotify, directory, mask)
                    if descriptor >= 0 {
                        // A directory made between the failed watch below and this one
                        // sends its ancestor no event: look again from the file's own.
                        let child = (directory == "/" ? "" : directory) + "/" + String(decoding: name, as: UTF8.self)
                        if !own, attempts < 8, access(child, F_OK) == 0 {
                            attempts += 1
                            (directory, name) = Self.split(file)
                            own = true
                            continue
                        }
                        wanted[descriptor, default: ([], own)].names.insert(name)
                        if own { wanted[descriptor]?.own = true }
                        // The directory's own removal is not always told to its watch (not
                        // while the directory is still referenced): its parent tells it.
                        if own, directory != "/", directory != "." {
                            let (parent, directoryName) = Self.split(directory)
                            let above = inotify_add_watch(inotify, parent, Self.ancestorMask | UInt32(IN_MASK_ADD))
                            if above >= 0 { wanted[above, default: ([], false)].names.insert(directoryName) }
                        }
                        break
                    }
                    guard errno == ENOENT || errno == ENOTDIR, directory != "/", directory != "." else {
                        return !wanted.isEmpty
                    }
                    (directory, name) = Self.split(directory)
                    own = false
                }
            }
            for descriptor in names.keys where wanted[descriptor] == nil {
                inotify_rm_watch(inotify, descriptor)
            }
            names = wanted
            return true
        }

        /// The file `path` names: through its symbolic links, or, while a link's target is
        /// not there (its directory removed), the path the link holds.
        private static func target(of path: String) -> String {
            let resolved = FileEventLog.resolvedPath(path)
            guard resolved == path else { return resolved }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(path, &buffer, buffer.count - 1)
            guard count > 0 else { return path }
            let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if link.hasPrefix("/") { return link }
            let (directory, _) = split(path)
            return directory + "/" + link
        }

        /// The directory of `file` and its name in it.
        private static func split(_ file: String) -> (directory: String, name: [UInt8]) {
            let slash = file.lastIndex(of: "/")
            let directory = slash.map { $0 == file.startIndex ? "/" : String(file[..<$0]) } ?? "."
            return (directory, Array((slash.map { String(file[file.index(after: $0)...]) } ?? file).utf8))
        }

        /// Changes to the file's directory: its content (writes) and its names (a rename
        /// over it, a removal, a link re-pointed), and the directory itself going away.
        private static let ownMask = UInt32(IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_CLOSE_WRITE
            | IN_ATTRIB | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)
        /// Changes to an ancestor's names only: the missing directory made again.
        private static let ancestorMask = UInt32(IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE
            | IN_DELETE_SELF | IN_MOVE_SELF)
        /// Events that change what a name in the way names.
        private static let namingEvents = UInt32(IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)
        /// Events that end a watch: its directory went away.
        private static let endingEvents = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)

        /// Whether the events in `events` may change the file's content (`content`) or what
        /// a name in the way names (`names`: set the watches again).
        func relevance(of events: ArraySlice<UInt8>) -> Relevance {
            var relevance = Relevance.none
            let header = MemoryLayout<inotify_event>.size
            var at = events.startIndex
            while at + header <= events.endIndex {
                let (descriptor, mask, length) = events.withUnsafeBytes { raw in
                    let base = at - events.startIndex
                    return (raw.loadUnaligned(fromByteOffset: base, as: Int32.self),
                            raw.loadUnaligned(fromByteOffset: base + 4, as: UInt32.self),
                            Int(raw.loadUnaligned(fromByteOffset: base + 12, as: UInt32.self)))
                }
                let nameStart = at + header
                let name = Array(events[nameStart..<min(nameStart + length, events.endIndex)].prefix { $0 != 0 })
                at = nameStart + length
                guard let watched = names[descriptor] else { continue }
                if mask & Self.endingEvents != 0 { return .names }
                guard watched.names.contains(name) else { continue }
                if mask & Self.namingEvents != 0 || !watched.own { return .names }
                relevance = .content
            }
            return relevance
        }
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
