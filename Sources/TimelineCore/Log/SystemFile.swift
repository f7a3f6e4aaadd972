#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file descriptor with the few POSIX calls the log needs; every failure names the path.
final class SystemFile {
    let path: String
    let descriptor: Int32

    /// Opens `path` with `flags` (and creates it with mode 0644 when `O_CREAT` is given).
    init(path: String, flags: Int32) throws(EventLogError) {
        self.path = path
        let fd = open(path, flags | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: path, operation: "open", code: errno) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Takes the exclusive writer's lock without waiting; `inUse` if another process has it.
    ///
    /// A lock that is busy is tried again for about a tenth of a second before giving up:
    /// a child process this process has just forked holds a copy of the descriptor (and so
    /// of the lock) for the moment until it executes its program and the descriptor closes.
    func lockExclusively() throws(EventLogError) {
        var attempts = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EAGAIN else { throw .io(path: path, operation: "lock", code: code) }
            attempts += 1
            if attempts > 10 { throw .inUse(path: path) }
            usleep(10_000)
        }
    }

    func size() throws(EventLogError) -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .io(path: path, operation: "stat", code: errno) }
        return Int(info.st_size)
    }

    /// Reads `count` bytes at `offset` (fewer at the end of the file).
    func read(at offset: Int, count: Int) throws(EventLogError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "read", code: errno)
            }
            if n == 0 { break }
            done += n
        }
        if done < count { bytes.removeSubrange(done...) }
        return bytes
    }

    /// Reads the whole file.
    func readAll() throws(EventLogError) -> [UInt8] {
        try read(at: 0, count: size())
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: [UInt8], at offset: Int) throws(EventLogError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                pwrite(descriptor, buffer.baseAddress! + done, bytes.count - done, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "write", code: errno)
            }
            done += n
        }
    }

    /// Flushes the file's data to the disk.
    func sync() throws(EventLogError) {
        guard fsync(descriptor) == 0 else { throw .io(path: path, operation: "fsync", code: errno) }
    }

    func truncate(to length: Int) throws(EventLogError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw .io(path: path, operation: "truncate", code: errno) }
    }

    /// Flushes the directory holding `path`, so that a created or renamed file survives a crash.
    static func syncDirectory(of path: String) {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Writes `bytes` to `path` atomically: a temporary file, fsync, rename, fsync of the directory.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(EventLogError) {
        let temporary = path + ".tmp-\(getpid())"
        do {
            let file = try SystemFile(path: temporary, flags: O_WRONLY | O_CREAT | O_TRUNC)
            try file.write(bytes, at: 0)
            try file.sync()
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .io(path: path, operation: "rename", code: code)
        }
        syncDirectory(of: path)
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}
