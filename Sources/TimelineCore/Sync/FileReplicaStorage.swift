#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A replica's files (section 10): `LOCAL`, the mirror, a log any command reads; beside
/// it `LOCAL.replica` (the device id and the shared log's location, written once by
/// `clone`) and `LOCAL.queue` (the pending submissions, the notices and whether it
/// pushes, replaced atomically on every change). `LOCAL.rejected` keeps its meaning.
package struct FileReplicaStorage: ReplicaStorage {
    /// The mirror's path.
    package let path: String

    /// The storage of the replica whose mirror is at `path`.
    package init(path: String) { self.path = path }

    /// The file that says a path is a replica's mirror.
    package static func identityPath(of path: String) -> String { path + ".replica" }
    var queuePath: String { path + ".queue" }

    /// Whether `path` is a replica's mirror.
    package static func isReplica(_ path: String) -> Bool { SystemFile.exists(identityPath(of: path)) }

    /// The device id and the shared log's location, as `clone` wrote them.
    package static func identity(of path: String) throws(ReplicaError) -> (device: DeviceID, shared: String) {
        let file = identityPath(of: path)
        let bytes: [UInt8]?
        do { bytes = try DurableFile.read(file) } catch { throw .storage(path: file, reason: error.description) }
        guard let bytes, case .object(let members)? = try? JSONParser.parse(bytes),
              case .string(let deviceText)? = members.first(where: { $0.key == "device" })?.value,
              let device = DeviceID(deviceText),
              case .string(let shared)? = members.first(where: { $0.key == "shared" })?.value else {
            throw .damaged(path: file, reason: "it does not hold a device id and a shared log")
        }
        return (device, shared)
    }

    /// Makes a new replica's files: an empty mirror, its identity, an empty queue.
    /// Refuses when anything is at `path` already.
    package static func create(path: String, device: DeviceID, shared: String) throws(ReplicaError) -> FileReplicaStorage {
        let storage = FileReplicaStorage(path: path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            throw .storage(path: path, reason: errno == EEXIST ? "it exists already: a replica is made on a new path"
                : String(cString: strerror(errno)))
        }
        close(descriptor)
        let identity = "{\"device\":\(JSONStringWriter.quoted(device.rawValue)),\"shared\":"
            + JSONStringWriter.quoted(shared) + ",\"format\":1}\n"
        do {
            try DurableFile.write(Array(identity.utf8), to: identityPath(of: path), permissionsOf: path)
        } catch { throw .storage(path: identityPath(of: path), reason: error.description) }
        try storage.replaceQueue(ReplicaQueue(device: device))
        return storage
    }

    /// Removes the replica's files (a clone that could not mirror its shared log).
    package func remove() {
        for file in [path, Self.identityPath(of: path), queuePath] { DurableFile.remove(file) }
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
                               notices: queue.notices, state: queue.state)
    }

    private func readQueue(device: DeviceID) throws(ReplicaError) -> ReplicaQueue {
        let bytes: [UInt8]?
        do { bytes = try DurableFile.read(queuePath) } catch { throw .storage(path: queuePath, reason: error.description) }
        guard let bytes else { throw .damaged(path: queuePath, reason: "it is missing") }
        var pending: [Submission] = []
        var notices: [Notice] = []
        var state = ReplicaQueue.State.pushing
        for (number, line) in bytes.split(separator: 0x0A).enumerated() {
            let text = String(decoding: line, as: UTF8.self)
            do throws(SyncCoding.Failure) {
                if text.hasPrefix("P") {
                    pending.append(try SyncCoding.submission(String(text.dropFirst())))
                } else if text.hasPrefix("N") {
                    notices.append(try SyncCoding.notice(String(text.dropFirst())))
                } else if text.hasPrefix("S"), let id = SubmissionID(commandID: String(text.dropFirst())) {
                    state = .stopped(conflict: id)
                } else {
                    throw SyncCoding.Failure(description: "unknown line")
                }
            } catch {
                throw .damaged(path: queuePath, reason: "line \(number + 1): \(error.description)")
            }
        }
        return ReplicaQueue(device: device, pending: pending, notices: notices, state: state)
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

    /// The mirror's size and the queue file's inode and modification time (an atomic
    /// replacement makes a new inode).
    package func version() -> [Int64] {
        var mirror = stat(), queue = stat()
        guard stat(path, &mirror) == 0, stat(queuePath, &queue) == 0 else { return [-1] }
        return [Int64(mirror.st_size), Int64(bitPattern: UInt64(queue.st_ino)), Int64(queue.st_mtim.tv_sec),
                Int64(queue.st_mtim.tv_nsec)]
    }

    package func appendToMirror(_ bytes: [UInt8]) throws(ReplicaError) {
        do {
            let file = try SystemFile(path: path, flags: O_WRONLY | O_APPEND)
            try file.write(bytes, at: nil)
            try file.sync()
        } catch { throw .storage(path: path, reason: error.description) }
    }

    package func replaceMirror(_ bytes: [UInt8]) throws(ReplicaError) {
        do { try DurableFile.write(bytes, to: path, permissionsOf: path) } catch {
            throw .storage(path: path, reason: error.description)
        }
    }

    package func appendPending(_ submission: Submission) throws(ReplicaError) {
        var queue = try readQueue(device: try Self.identity(of: path).device)
        _ = queue.submit(submission.commands, basePosition: submission.basePosition, nonce: submission.nonce,
                         madeAt: submission.madeAt)
        try write(pending: queue.pending.dropLast() + [submission], notices: queue.notices, state: queue.state)
    }

    package func replaceQueue(_ queue: ReplicaQueue) throws(ReplicaError) {
        try write(pending: queue.pending, notices: queue.notices, state: queue.state)
    }

    /// One line a submission (`P`), a notice (`N`), and `S` with the conflicting command id
    /// once the replica stopped pushing; replaced in one atomic, durable write.
    private func write(pending: [Submission], notices: [Notice], state: ReplicaQueue.State) throws(ReplicaError) {
        var text = ""
        if case .stopped(let id) = state { text += "S\(id)\n" }
        for submission in pending { text += "P" + SyncCoding.json(submission) + "\n" }
        for notice in notices { text += "N" + SyncCoding.json(notice) + "\n" }
        do { try DurableFile.write(Array(text.utf8), to: queuePath, permissionsOf: path) } catch {
            throw .storage(path: queuePath, reason: error.description)
        }
    }
}
