import SystemShim

/// A replica's files (section 10): `LOCAL`, the mirror, a log any command reads; beside
/// it `LOCAL.replica` (the device id and the shared log's location, written once by
/// `clone`), `LOCAL.queue` (the pending submissions, the notices and whether it pushes,
/// replaced atomically when submissions are decided or notices dismissed) and
/// `LOCAL.pending` (the submissions sent since, one line appended and synced per send).
/// Both begin with a generation `G<n>`: a `LOCAL.pending` of another generation than the
/// queue's was already taken into it (a process stopped between the two writes) and is
/// ignored. `LOCAL.rejected` keeps its meaning.
package struct FileReplicaStorage: ReplicaStorage {
    /// The mirror's path.
    package let path: String

    /// The storage of the replica whose mirror is at `path`.
    package init(path: String) { self.path = path }

    /// The file that says a path is a replica's mirror.
    package static func identityPath(of path: String) -> String { path + ".replica" }
    var queuePath: String { path + ".queue" }
    var pendingPath: String { path + ".pending" }

    /// Whether `path` is a replica's mirror: its identity, its queue or its pending
    /// submissions are beside it (a replica whose identity was lost is one still, and
    /// says so, never a plain log that would drop what is pending).
    package static func isReplica(_ path: String) -> Bool {
        [identityPath(of: path), path + ".queue", path + ".pending"].contains(where: SystemFile.exists)
    }

    /// The device id, the shared log's location, and whether it is reached through a shared
    /// folder (folder mode), as `clone` wrote them.
    package static func identity(of path: String) throws(ReplicaError) -> (device: DeviceID, shared: String, folder: Bool) {
        let file = identityPath(of: path)
        let bytes: [UInt8]?
        bytes = try Self.readSideFile(file)
        guard let bytes else {
            guard isReplica(path) else { throw .notAReplica(path: path) }
            throw .damaged(path: file, reason: "it is missing, and the replica's other files beside \(path) say it is "
                + "a replica, which cannot sync without the device id it holds")
        }
        guard case .object(let members)? = try? JSONParser.parse(bytes),
              case .string(let deviceText)? = members.first(where: { $0.key == "device" })?.value,
              let device = DeviceID(deviceText),
              case .string(let shared)? = members.first(where: { $0.key == "shared" })?.value else {
            throw .damaged(path: file, reason: "it does not hold a device id and a shared log")
        }
        // Format 1: a shared log; format 2: a shared folder (an older Timeline refuses it clearly).
        let format = members.first(where: { $0.key == "format" })?.value
        guard format == .number(JSONNumber(text: "1")) || format == .number(JSONNumber(text: "2")) else {
            throw .damaged(path: file, reason: "it is of another format than 1 or 2: a newer version of Timeline made it")
        }
        return (device, shared, format == .number(JSONNumber(text: "2")))
    }

    /// Makes a new replica's files: an empty mirror, its identity, an empty queue.
    /// Refuses when anything is at `path` already.
    package static func create(path: String, device: DeviceID, shared: String,
                               folder: Bool = false) throws(ReplicaError) -> FileReplicaStorage {
        let storage = FileReplicaStorage(path: path)
        for leftover in [identityPath(of: path), storage.queuePath, storage.pendingPath] where SystemFile.exists(leftover) {
            throw .storage(path: leftover, reason: "it exists already (a replica's file): move it aside first, or "
                + "clone onto a new path")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            throw .storage(path: path, reason: errno == EEXIST ? "it exists already: a replica is made on a new path"
                : String(cString: strerror(errno)))
        }
        close(descriptor)
        let identity = "{\"device\":\(JSONStringWriter.quoted(device.rawValue)),\"shared\":"
            + JSONStringWriter.quoted(shared) + ",\"format\":\(folder ? 2 : 1)}\n"
        do throws(ReplicaError) {
            do {
                try DurableFile.write(Array(identity.utf8), to: identityPath(of: path), permissionsOf: path)
            } catch { throw ReplicaError.storage(path: identityPath(of: path), reason: error.description) }
            try storage.write(generation: 0, queue: ReplicaQueue(device: device))
        } catch {
            // Nothing half made is left (none of these files was there before): an empty
            // mirror left behind would refuse the next clone and read as an empty log.
            storage.remove()
            throw error
        }
        return storage
    }

    /// Removes the replica's files (a clone that could not mirror its shared log).
    package func remove() {
        for file in [path, Self.identityPath(of: path), queuePath, pendingPath] { DurableFile.remove(file) }
    }

    package func load() throws(ReplicaError) -> ReplicaContents {
        let device = try Self.identity(of: path).device
        var mirror: [Record] = []
        var problem: String?
        do {
            let contents = try FileEventLog.read(path: path)
            mirror = contents.records
            if let torn = contents.tornTail {
                // A mirror append cut short: its bytes were never counted; the next pull
                // writes them again.
                let file = try SystemFile(path: path, flags: O_WRONLY)
                try file.truncate(to: torn.offset)
                try file.sync()
            }
        } catch {
            problem = error.description
        }
        let queue = try readQueue(device: device)
        return ReplicaContents(device: device, mirror: mirror, mirrorProblem: problem, pending: queue.pending,
                               notices: queue.notices, state: queue.state, decidedLocalIDs: queue.decidedLocalIDs)
    }

    /// The replica's own files at `path` (its identity, queue and pending submissions)
    /// read and checked, changing nothing, not even the mirror: what `verify` reports.
    package static func inspect(path: String) throws(ReplicaError) -> (shared: String, queue: ReplicaQueue) {
        let identity = try identity(of: path)
        return (identity.shared, try FileReplicaStorage(path: path).readQueue(device: identity.device))
    }

    /// The queue's generation, pending submissions, notices and push state, with the
    /// submissions appended since (of the same generation).
    private func readQueue(device: DeviceID) throws(ReplicaError) -> ReplicaQueue {
        let (generation, queue) = try readSnapshot(device: device)
        var pending = queue.pending
        let fromQueue = pending.count
        let bytes: [UInt8]?
        bytes = try Self.readSideFile(pendingPath)
        // `G<n>`, then one `P` line per send. A file of an older generation is left over
        // from before the queue took its submissions in; anything else is damage, never
        // ignored (the next send would write over what it holds).
        if let bytes, !bytes.isEmpty {
            let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
            let header = String(decoding: lines[0], as: UTF8.self)
            guard header.first == "G", let written = Int64(header.dropFirst()) else {
                throw .damaged(path: pendingPath, reason: "it does not begin with its generation line G<n>")
            }
            guard written <= generation else {
                throw .damaged(path: pendingPath, reason: "its generation G\(written) is newer than the queue's, "
                    + "G\(generation), in \(queuePath)")
            }
            let sends = lines.dropFirst()
            for (index, line) in sends.enumerated() where written == generation && !line.isEmpty {
                let submission: Submission
                do throws(SyncCoding.Failure) {
                    guard line.first == 0x50 else { throw SyncCoding.Failure(description: "not a submission (P…)") }
                    submission = try SyncCoding.submission(String(decoding: line.dropFirst(), as: UTF8.self))
                } catch {
                    // The last line, cut short: a send that never returned. Anything else is damage.
                    guard index == sends.count - 1 else {
                        throw .damaged(path: pendingPath, reason: "line \(index + 2): \(error.description)")
                    }
                    continue
                }
                if let earlier = pending.first(where: { $0.id == submission.id }) {
                    // The same send twice is harmless; two sends of one number are not.
                    guard earlier.nonce == submission.nonce else {
                        throw .damaged(path: pendingPath, reason: "line \(index + 2): submission \(submission.id) "
                            + "appears twice, as two different sends")
                    }
                    continue
                }
                pending.append(submission)
            }
        }
        // This device's submissions, numbered on without a gap: each send takes the next
        // number, and only the oldest leave (decided). Another device's, or a gap, would
        // wait forever for a submission no one has.
        for (index, submission) in pending.enumerated() {
            let file = index < fromQueue ? queuePath : pendingPath
            guard submission.id.device == device else {
                throw .damaged(path: file, reason: "it holds submission \(submission.id), which is not this device's "
                    + "(\(device), in \(Self.identityPath(of: path)))")
            }
            if index > 0, submission.id.number != pending[index - 1].id.number + 1 {
                throw .damaged(path: file, reason: "submission \(submission.id) follows \(pending[index - 1].id): "
                    + "the submissions between them are missing")
            }
        }
        return ReplicaQueue(device: device, pending: pending, notices: queue.notices, state: queue.state,
                            decidedLocalIDs: queue.decidedLocalIDs)
    }

    /// The generation and contents of `LOCAL.queue`.
    private func readSnapshot(device: DeviceID) throws(ReplicaError) -> (generation: Int64, queue: ReplicaQueue) {
        let bytes: [UInt8]?
        bytes = try Self.readSideFile(queuePath)
        guard let bytes else {
            throw .damaged(path: queuePath, reason: "it is missing (it holds the pending submissions and the notices)")
        }
        guard bytes.starts(with: Array("G".utf8)) else {
            throw .damaged(path: queuePath, reason: "it does not begin with its generation line G<n>")
        }
        var generation: Int64 = 0
        var pending: [Submission] = []
        var notices: [Notice] = []
        var state = ReplicaQueue.State.pushing
        var decidedLocalIDs: [ReplicaQueue.LocalSend] = []
        for (number, line) in bytes.split(separator: 0x0A).enumerated() {
            let text = String(decoding: line, as: UTF8.self)
            do throws(SyncCoding.Failure) {
                if number == 0, text.hasPrefix("G"), let value = Int64(text.dropFirst()) {
                    generation = value
                } else if text.hasPrefix("P") {
                    pending.append(try SyncCoding.submission(String(text.dropFirst())))
                } else if text.hasPrefix("N") {
                    notices.append(try SyncCoding.notice(String(text.dropFirst())))
                } else if text.hasPrefix("L") {
                    decidedLocalIDs.append(try SyncCoding.localSend(String(text.dropFirst())))
                } else if text.hasPrefix("S"), let id = SubmissionID(commandID: String(text.dropFirst())) {
                    state = .stopped(conflict: id)
                } else {
                    throw SyncCoding.Failure(description: "unknown line")
                }
            } catch {
                throw .damaged(path: queuePath, reason: "line \(number + 1): \(error.description)")
            }
        }
        return (generation, ReplicaQueue(device: device, pending: pending, notices: notices, state: state,
                                         decidedLocalIDs: decidedLocalIDs))
    }

    /// Removes what writers killed between writing and renaming a file left behind
    /// (`PATH.tmp-PID-N` beside each of the replica's files; only of processes gone).
    package func removeTemporaries() {
        for file in [path, Self.identityPath(of: path), queuePath, pendingPath] { DurableFile.removeTemporaries(of: file) }
    }

    /// Holds the exclusive lock of `LOCAL.replica` (`flock`) while `body` runs: the kernel
    /// releases it when the process dies, so a killed sync never leaves it held.
    package func withExclusiveAccess<T>(_ body: () throws(ReplicaError) -> T) throws(ReplicaError) -> T {
        let lockPath = Self.identityPath(of: path)
        let file: SystemFile
        do {
            file = try SystemFile(path: lockPath, flags: O_RDONLY)
            try file.lock(exclusive: true)
        } catch { throw .storage(path: lockPath, reason: error.description) }
        defer { file.unlock() }
        return try body()
    }

    /// The mirror's size, the queue file's inode and modification time (an atomic
    /// replacement makes a new inode), and the pending file's size.
    package func version() -> [Int64] {
        var mirror = stat(), queue = stat(), appended = stat()
        guard stat(path, &mirror) == 0, stat(queuePath, &queue) == 0 else { return [-1] }
        let pendingSize = stat(pendingPath, &appended) == 0 ? Int64(appended.st_size) : -1
        return [Int64(mirror.st_size), Int64(bitPattern: UInt64(queue.st_ino)), Int64(queue.st_mtim.tv_sec),
                Int64(queue.st_mtim.tv_nsec), pendingSize]
    }

    package func appendToMirror(_ bytes: [UInt8]) throws(ReplicaError) {
        let file: SystemFile
        let size: Int
        do {
            file = try SystemFile(path: path, flags: O_WRONLY | O_APPEND)
            size = try file.size()
        } catch { throw .storage(path: path, reason: error.description) }
        do {
            try file.write(bytes, at: nil)
            try file.sync()
        } catch {
            // A write cut short (a full disk) is taken back, so the mirror never ends in part
            // of a line; the next sync reads the same records again.
            try? file.truncate(to: size)
            try? file.sync()
            throw .storage(path: path, reason: error.description)
        }
    }

    package func replaceMirror(_ bytes: [UInt8]) throws(ReplicaError) {
        do { try DurableFile.write(bytes, to: path, permissionsOf: path) } catch {
            throw .storage(path: path, reason: error.description)
        }
    }

    /// One line appended to `LOCAL.pending` and synced: O(1) whatever is pending. A file
    /// of another generation is replaced by a fresh one first.
    package func appendPending(_ submission: Submission) throws(ReplicaError) {
        let generation = try generation()
        let header = Array("G\(generation)\n".utf8)
        // Only the pending file's first line and last byte are read: a send costs the
        // same however many are pending.
        var current: [UInt8] = []
        do throws(EventLogError) {
            if SystemFile.exists(pendingPath) {
                current = try SystemFile(path: pendingPath, flags: O_RDONLY | O_NONBLOCK).read(at: 0, count: 24)
            }
        } catch { throw .storage(path: pendingPath, reason: error.description) }
        if !current.starts(with: header) {
            // Only an empty file or one of an older generation (its sends are in the queue)
            // is started again; a damaged one is never written over.
            let first = current.prefix { $0 != 0x0A }
            let older = first.first == 0x47
                && Int64(String(decoding: first.dropFirst(), as: UTF8.self)).map { $0 < generation } == true
            guard current.isEmpty || older else {
                throw .damaged(path: pendingPath, reason: "it does not begin with its generation line G\(generation)")
            }
        }
        do throws(EventLogError) {
            if !current.starts(with: header) { try DurableFile.write(header, to: pendingPath, permissionsOf: path) }
            let file = try SystemFile(path: pendingPath, flags: O_RDWR)
            var end = try file.size()
            if try file.read(at: end - 1, count: 1) != [0x0A] {
                let bytes = try file.read(at: 0, count: end)
                let lineStart = (bytes.lastIndex(of: 0x0A) ?? -1) + 1
                if Self.submission(inLine: bytes[lineStart...]) != nil {
                    // A whole submission without its newline is read as pending: it stays,
                    // its line finished, as reading counts it.
                    try file.write([0x0A], at: end)
                    end += 1
                } else {
                    // A send cut short (a crash, a full disk) never returned: its part of a line goes.
                    end = max(lineStart, header.count)
                    try file.truncate(to: end)
                }
            }
            do throws(EventLogError) {
                try file.write(Array(("P" + SyncCoding.json(submission) + "\n").utf8), at: end)
                try file.sync()
            } catch {
                // Nothing of a send that failed stays: the next one starts on a line of its own.
                try? file.truncate(to: end)
                throw error
            }
        } catch { throw .storage(path: pendingPath, reason: error.description) }
    }

    /// One of the replica's small files, read whole; `nil` when it is not there. Anything
    /// but a regular file in its place (a directory, a FIFO, a socket, a device) is damage,
    /// said so at once (a FIFO is never waited on).
    private static func readSideFile(_ path: String) throws(ReplicaError) -> [UInt8]? {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw .damaged(path: path, reason: "it is not a regular file (a directory, a FIFO, a socket or a device "
                + "is in its place)")
        }
        do { return try DurableFile.read(path) } catch { throw .storage(path: path, reason: error.description) }
    }

    /// The submission a `LOCAL.pending` line (`P{…}`) holds, if it is one.
    private static func submission(inLine line: ArraySlice<UInt8>) -> Submission? {
        guard line.first == 0x50 else { return nil }
        return try? SyncCoding.submission(String(decoding: line.dropFirst(), as: UTF8.self))
    }

    /// The generation of `LOCAL.queue`, read from its first line alone.
    private func generation() throws(ReplicaError) -> Int64 {
        let first: [UInt8]
        do { first = try SystemFile(path: queuePath, flags: O_RDONLY).read(at: 0, count: 24) } catch {
            throw .storage(path: queuePath, reason: error.description)
        }
        guard first.first == 0x47, let newline = first.firstIndex(of: 0x0A),
              let value = Int64(String(decoding: first[1..<newline], as: UTF8.self)) else {
            throw .damaged(path: queuePath, reason: "it does not begin with its generation line G<n>")
        }
        return value
    }

    /// A new generation of `LOCAL.queue`, then `LOCAL.pending` removed (it is in the queue).
    package func replaceQueue(_ queue: ReplicaQueue) throws(ReplicaError) {
        let generation = ((try? readSnapshot(device: queue.device).generation) ?? 0) + 1
        try write(generation: generation, queue: queue)
        DurableFile.remove(pendingPath)
        // The queue's temporary files a killed process left (`LOCAL.queue.tmp-PID-N`).
        DurableFile.removeTemporaries(of: queuePath)
    }

    /// One line a submission (`P`), a notice (`N`), a decided submission's local id (`L`),
    /// and `S` with the conflicting command id once the replica stopped pushing; replaced
    /// in one atomic, durable write.
    private func write(generation: Int64, queue: ReplicaQueue) throws(ReplicaError) {
        var text = "G\(generation)\n"
        if case .stopped(let id) = queue.state { text += "S\(id)\n" }
        for submission in queue.pending { text += "P" + SyncCoding.json(submission) + "\n" }
        for notice in queue.notices { text += "N" + SyncCoding.json(notice) + "\n" }
        for sent in queue.decidedLocalIDs { text += "L" + SyncCoding.json(sent) + "\n" }
        do { try DurableFile.write(Array(text.utf8), to: queuePath, permissionsOf: path) } catch {
            throw .storage(path: queuePath, reason: error.description)
        }
    }
}
