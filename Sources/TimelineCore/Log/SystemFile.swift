import Synchronization
import SystemShim

/// A file's device and inode: what stays the same while a file is appended to, and
/// changes when another file is renamed over its path.
package struct FileIdentity: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64

    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    init(_ info: stat) {
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
    }
}

/// A file descriptor with the few POSIX calls the log needs; every failure names the path.
final class SystemFile: Sendable {
    let path: String
    let descriptor: Int32
    /// Why the file could not be opened for writing (an `errno`), when it was opened for
    /// reading only by ``init(readingIfNotWritable:flags:)``; `nil` otherwise.
    let notWritable: Int32?

    /// Opens `path` with `flags` (and creates it with `mode`, less the umask, when `O_CREAT` is given).
    init(path: String, flags: Int32, mode: mode_t = 0o644) throws(EventLogError) {
        self.path = path
        let fd = open(path, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .io(path: path, operation: "open", code: errno) }
        descriptor = fd
        notWritable = nil
    }

    /// Opens `path` for reading and writing with `flags`; an existing file that this
    /// process may only read (its mode, a read-only file system) is opened for reading,
    /// so that it can be read and followed, and ``notWritable`` says why not written.
    init(readingIfNotWritable path: String, flags: Int32) throws(EventLogError) {
        self.path = path
        let fd = open(path, flags | O_RDWR | O_CLOEXEC, 0o644)
        if fd >= 0 {
            descriptor = fd
            notWritable = nil
            return
        }
        let code = errno
        guard code == EACCES || code == EROFS || code == EPERM else { throw .io(path: path, operation: "open", code: code) }
        let readOnly = open(path, O_RDONLY | O_CLOEXEC)
        guard readOnly >= 0 else { throw .io(path: path, operation: "open", code: code) }
        descriptor = readOnly
        notWritable = code
    }

    /// Throws, naming the path and the reason, when the file was opened for reading only.
    func requireWritable() throws(EventLogError) {
        if let code = notWritable { throw .io(path: path, operation: "open for writing", code: code) }
    }

    deinit { close(descriptor) }

    /// Takes the file's lock, waiting for it: exclusive for a writer (an append, a
    /// repair), shared for a reader that must see only committed records. Any number of
    /// processes and descriptors take it in turn; the kernel releases it when the
    /// descriptor closes, also when a process is killed.
    func lock(exclusive: Bool) throws(EventLogError) {
        while flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            let code = errno
            guard code == EINTR else { throw .io(path: path, operation: "lock", code: code) }
        }
    }

    /// Releases the file's lock.
    func unlock() {
        _ = flock(descriptor, LOCK_UN)
    }

    /// The device and inode of the open file.
    func identity() throws(EventLogError) -> FileIdentity {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .io(path: path, operation: "stat", code: errno) }
        return FileIdentity(info)
    }

    /// The device and inode of the file at `path` now, following symbolic links; `nil` when there is none.
    static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(info)
    }

    func size() throws(EventLogError) -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .io(path: path, operation: "stat", code: errno) }
        return Int(info.st_size)
    }

    /// Reads `count` bytes at `offset` (fewer at the end of the file).
    func read(at offset: Int, count: Int) throws(EventLogError) -> [UInt8] {
        var bytes: [UInt8] = []
        try read(at: offset, count: count, into: &bytes)
        return bytes
    }

    /// Reads up to `count` bytes at `offset` into `bytes`, replacing what it held and
    /// keeping its storage when it is large enough (fewer at the end of the file).
    func read(at offset: Int, count: Int, into bytes: inout [UInt8]) throws(EventLogError) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: repeatElement(0, count: count))
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
    }

    /// Reads the whole file, into memory not cleared first (a checkpoint is tens of
    /// megabytes at a million records).
    func readAll() throws(EventLogError) -> [UInt8] {
        let count = try size()
        guard count > 0 else { return [] }
        var failure: Int32?
        let descriptor = self.descriptor
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            // In parts at the same time from 16 MiB, one per processor and 8 MiB at least:
            // the kernel's copy, and the pages it faults in, are most of reading a file
            // already in the page cache.
            let parts = max(1, min(ProcessInfoCount.active, count >> 23))
            let size = (count + parts - 1) / parts
            let base = UInt(bitPattern: buffer.baseAddress!)
            if count >= 4 << 20 { Self.adviseHugePages(base: base, count: count) }
            let outcomes = concurrentMap(parts) { part -> (read: Int, failure: Int32?) in
                let start = part * size, end = min(count, start + size)
                var done = start
                while done < end {
                    let n = pread(descriptor, UnsafeMutableRawPointer(bitPattern: base + UInt(done)), end - done, off_t(done))
                    if n < 0 {
                        if errno == EINTR { continue }
                        return (done - start, errno)
                    }
                    if n == 0 { break }
                    done += n
                }
                return (done - start, nil)
            }
            failure = outcomes.lazy.compactMap(\.failure).first
            // A file cut short meanwhile: only the first part's bytes up to the cut.
            var read = 0
            for (part, outcome) in outcomes.enumerated() {
                read = part * size + outcome.read
                if outcome.read < min(size, count - part * size) { break }
            }
            initialized = read
        }
        if let failure { throw .io(path: path, operation: "read", code: failure) }
        return bytes
    }

    /// Asks the kernel for transparent huge pages for the 2 MiB-aligned interior of a large
    /// buffer about to be filled: faulting it in 2 MiB at a time instead of 4 KiB (where the
    /// kernel gives huge pages only to memory that asks, the usual `madvise` mode) spares
    /// thousands of page faults, each charged to the process's memory group.
    private static func adviseHugePages(base: UInt, count: Int) {
        #if os(Linux)
        let huge: UInt = 2 << 20
        let start = (base + huge - 1) & ~(huge - 1), end = (base + UInt(count)) & ~(huge - 1)
        guard end > start else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_HUGEPAGE)
        #endif
    }

    /// Writes all of `bytes` at `offset`; with `nil`, where the descriptor stands (a FIFO or
    /// a device, which have no offsets to write at).
    func write(_ bytes: [UInt8], at offset: Int?) throws(EventLogError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                let start = buffer.baseAddress! + done, count = bytes.count - done
                guard let offset else { return Self.systemWrite(descriptor, start, count) }
                return pwrite(descriptor, start, count, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "write", code: errno)
            }
            done += n
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.write(descriptor, bytes, count)
        #elseif canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #else
        Musl.write(descriptor, bytes, count)
        #endif
    }

    /// Asks the kernel to start writing the `count` bytes at `offset` to the disk, without
    /// waiting: a later ``sync()`` then has less left to wait for. Advice only; where the
    /// system has no such call (`sync_file_range(2)` is Linux's), it does nothing.
    func startWriting(at offset: Int, count: Int) {
        #if os(Linux)
        _ = syncFileRange?(descriptor, off_t(offset), off_t(count), 2 /* SYNC_FILE_RANGE_WRITE */)
        #endif
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
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t? = nil) throws(EventLogError) {
        let temporary = temporaryPath(for: path)
        do throws(EventLogError) {
            let file = try SystemFile(path: temporary, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: mode ?? 0o644)
            if let mode { _ = fchmod(file.descriptor, mode) }
            do throws(EventLogError) {
                try file.write(bytes, at: 0)
                try file.sync()
            } catch {
                // A full disk must not be kept full by what was written of the file.
                unlink(temporary)
                throw error
            }
        } catch {
            // Named by the file the caller knows: the temporary one is gone.
            throw error.naming(path, insteadOf: temporary)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .io(path: path, operation: "rename", code: code)
        }
        syncDirectory(of: path)
    }

    /// Writes `bytes` to `path` atomically with the mode and owner of the file `like`
    /// (which a repair replaces): the temporary file is given them before the rename, and
    /// when that is not allowed nothing is renamed and the error says so.
    static func writeAtomically(_ bytes: [UInt8], to path: String, like original: SystemFile) throws(EventLogError) {
        var info = stat()
        guard fstat(original.descriptor, &info) == 0 else { throw .io(path: path, operation: "stat", code: errno) }
        let temporary = temporaryPath(for: path)
        do throws(EventLogError) {
            let file = try SystemFile(path: temporary, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
            do throws(EventLogError) {
                guard fchown(file.descriptor, info.st_uid, info.st_gid) == 0 else {
                    throw EventLogError.io(path: path, operation: "keep the owner (chown)", code: errno)
                }
                guard fchmod(file.descriptor, info.st_mode & 0o7777) == 0 else {
                    throw EventLogError.io(path: path, operation: "keep the mode (chmod)", code: errno)
                }
                try file.write(bytes, at: 0)
                try file.sync()
            } catch {
                unlink(temporary)
                throw error
            }
        } catch {
            throw error.naming(path, insteadOf: temporary)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .io(path: path, operation: "rename", code: code)
        }
        syncDirectory(of: path)
    }

    private static let temporaries = Atomic<Int>(0)

    /// A temporary file's path beside `path`, `PATH.tmp-PID-N`: unique among the processes
    /// and the threads that write `path` at once.
    static func temporaryPath(for path: String) -> String {
        path + ".tmp-\(getpid())-\(temporaries.add(1, ordering: .relaxed).newValue)"
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}

#if os(Linux)
/// `sync_file_range(2)`, which the C library declares only for `_GNU_SOURCE` and Swift's
/// import of it leaves out; looked up once among the process's symbols, `nil` without it.
private let syncFileRange: (@convention(c) (Int32, off_t, off_t, UInt32) -> Int32)? = {
    guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "sync_file_range") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32, off_t, off_t, UInt32) -> Int32).self)
}()
#endif
