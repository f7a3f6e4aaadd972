import SystemShim

/// Whole-file reads and atomic, durable whole-file writes (for checkpoints and side files).
package enum DurableFile {
    /// Writes `bytes` to `path` in one atomic step: a temporary file beside it, fsync,
    /// rename over `path`, fsync of the directory. Readers see the old file or the new one,
    /// never a mix, even after a crash.
    package static func write(_ bytes: [UInt8], to path: String) throws(EventLogError) {
        try SystemFile.writeAtomically(bytes, to: path)
    }

    /// Writes `bytes` to `path` as ``write(_:to:)`` does, with the permissions of the file
    /// at `original` (a log's side file gets the log's): who may read the log may read it.
    package static func write(_ bytes: [UInt8], to path: String, permissionsOf original: String) throws(EventLogError) {
        var info = stat()
        guard stat(original, &info) == 0 else { return try write(bytes, to: path) }
        try SystemFile.writeAtomically(bytes, to: path, mode: info.st_mode & 0o777)
    }

    /// Writes `bytes` to `path` as a command's output file: a regular file, or none, is
    /// replaced atomically (``write(_:to:)``); anything else there (a device, a FIFO, a
    /// symbolic link) is opened and written through, as a shell's `>` does, never replaced.
    package static func writeOutput(_ bytes: [UInt8], to path: String) throws(EventLogError) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return try write(bytes, to: path) }
        try SystemFile(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC).write(bytes, at: nil)
    }

    /// The whole content of `path`, or `nil` if there is no such file.
    package static func read(_ path: String) throws(EventLogError) -> [UInt8]? {
        guard SystemFile.exists(path) else { return nil }
        // A FIFO, a socket or a device in a file's place is not one of our files: opening
        // a FIFO would wait for a writer forever (and O_NONBLOCK keeps a race from it).
        var info = stat()
        if stat(path, &info) == 0, [S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK].contains(info.st_mode & S_IFMT) {
            throw .io(path: path, operation: "read (it is not a regular file)", code: EINVAL)
        }
        return try SystemFile(path: path, flags: O_RDONLY | O_NONBLOCK).readAll()
    }

    /// The file's identity (device and inode): it changes when the file is replaced.
    package static func identity(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt64(truncatingIfNeeded: info.st_dev) &* 1_000_003 &+ UInt64(truncatingIfNeeded: info.st_ino)
    }

    /// Removes the temporary files that ``write(_:to:)`` for `path` left behind when their
    /// process died between creating and renaming them (`PATH.tmp-PID-N`): only those of
    /// processes that no longer run, so that a write in progress elsewhere is left alone.
    package static func removeTemporaries(of path: String) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let prefix = (slash.map { String(path[path.index(after: $0)...]) } ?? path) + ".tmp-"
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        var stale: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(prefix), name.count > prefix.count else { continue }
            let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isWholeNumber) }),
                  let pid = pid_t(parts[0]) else { continue }
            // A process that still runs may be writing it (or a process that reused the pid
            // holds it until it exits: left for a later call).
            guard pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            stale.append(directory + "/" + name)
        }
        for file in stale { unlink(file) }
    }

    /// Removes `path` if it exists.
    package static func remove(_ path: String) {
        unlink(path)
    }
}
