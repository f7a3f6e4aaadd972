import SystemShim

/// A file's bytes mapped into memory, read-only, until the last reference goes: read on
/// demand from the page cache, never copied into memory of the process's own.
///
/// Only for files that are replaced by renaming a new one into place (``DurableFile/write(_:to:)``),
/// never shortened in place: the mapping keeps the replaced file, while a file cut shorter
/// under it would fault on a read past its new end. A checkpoint is such a file.
///
/// It is `Sendable` because the bytes are mapped `PROT_READ` and private before the
/// reference is returned, never written, and unmapped only when no reference is left.
package final class MappedFile: Sendable {
    /// The mapped bytes; valid while the object lives (read them in ``withUnsafeBytes(_:)``).
    nonisolated(unsafe) private let bytes: UnsafeRawBufferPointer

    /// How many bytes the file has.
    package var count: Int { bytes.count }

    /// Calls `body` with the bytes, which stay mapped until it returns: the pointer must
    /// not escape it.
    package func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withExtendedLifetime(self) { () throws(E) -> R in try body(bytes) }
    }

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    deinit {
        if let base = bytes.baseAddress, !bytes.isEmpty { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }

    /// The bytes of the regular file at `path`, or `nil` when there is no file there.
    /// - Complexity: O(1) but for the kernel's mapping; pages are read when first touched.
    package static func map(_ path: String) throws(EventLogError) -> MappedFile? {
        guard SystemFile.exists(path) else { return nil }
        // As for a read: a FIFO or a device in a file's place is not one of our files.
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            throw .io(path: path, operation: "read (it is not a regular file)", code: EINVAL)
        }
        let file = try SystemFile(path: path, flags: O_RDONLY | O_NONBLOCK)
        let size = try file.size()
        guard size > 0 else { return MappedFile(bytes: UnsafeRawBufferPointer(start: nil, count: 0)) }
        #if os(Linux)
        // Every page is read by the checks that follow: mapped at once, not one fault each.
        let flags = MAP_PRIVATE | MAP_POPULATE
        #else
        let flags = MAP_PRIVATE
        #endif
        guard let base = mmap(nil, size, PROT_READ, flags, file.descriptor, 0), base != MAP_FAILED else {
            throw .io(path: path, operation: "map", code: errno)
        }
        return MappedFile(bytes: UnsafeRawBufferPointer(start: base, count: size))
    }
}
