#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and atomic, durable whole-file writes (for checkpoints and side files).
public enum DurableFile {
    /// Writes `bytes` to `path` in one atomic step: a temporary file beside it, fsync,
    /// rename over `path`, fsync of the directory. Readers see the old file or the new one,
    /// never a mix, even after a crash.
    public static func write(_ bytes: [UInt8], to path: String) throws(EventLogError) {
        try SystemFile.writeAtomically(bytes, to: path)
    }

    /// The whole content of `path`, or `nil` if there is no such file.
    public static func read(_ path: String) throws(EventLogError) -> [UInt8]? {
        guard SystemFile.exists(path) else { return nil }
        return try SystemFile(path: path, flags: O_RDONLY).readAll()
    }

    /// The file's identity (device and inode): it changes when the file is replaced.
    public static func identity(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt64(truncatingIfNeeded: info.st_dev) &* 1_000_003 &+ UInt64(truncatingIfNeeded: info.st_ino)
    }

    /// Removes `path` if it exists.
    public static func remove(_ path: String) {
        unlink(path)
    }
}
