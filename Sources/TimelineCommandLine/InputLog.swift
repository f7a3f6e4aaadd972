import TimelineCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A log the tool reads from a path it was given (`replay FILE`, `import FILE`): a file,
/// a pipe, a FIFO, `/dev/stdin`, `<(…)`, or `-` for standard input.
///
/// The bytes are read with `read(2)` until the end of the stream, never by the file's
/// size: a pipe or a FIFO has none (it reports 0), and a file that grows while it is read
/// is read to where it ends then.
struct InputLog {
    /// The name messages use: the path, or `standard input` for `-`.
    let name: String
    /// Whether the input is a regular file named by its path, which `timeline repair`
    /// can fix (not standard input, a pipe or a FIFO).
    let isRepairable: Bool
    /// Every byte read.
    let bytes: [UInt8]

    /// How much is asked of each `read(2)`.
    static let readSize = 1 << 20

    /// Reads all of `path` (`-`: standard input).
    static func read(_ path: String) throws(CommandFailure) -> InputLog {
        let isStandardInput = path == "-"
        let name = isStandardInput ? "standard input" : path
        let descriptor = isStandardInput ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(name, "open", errno) }
        defer { if !isStandardInput { close(descriptor) } }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(name, "stat", errno) }
        let isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw CommandFailure("\(name): is a directory, not a log file")
        }
        // The bytes are read in place; the size of a regular file is only a hint for the
        // first allocation (one byte more, so that the read that meets the end has room).
        var bytes = [UInt8](repeating: 0, count: isRegularFile && info.st_size > 0 ? Int(info.st_size) + 1 : readSize)
        var used = 0
        while true {
            if used == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(readSize, bytes.count))) }
            let count = bytes.withUnsafeMutableBytes { buffer in
                Self.systemRead(descriptor, buffer.baseAddress! + used, buffer.count - used)
            }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK, waitUntilReady(descriptor, for: Int16(POLLIN)) { continue }
                throw failure(name, "read", code)
            }
            if count == 0 { break }
            used += count
        }
        bytes.removeSubrange(used...)
        return InputLog(name: name, isRepairable: isRegularFile && !isStandardInput, bytes: bytes)
    }

    /// The records, as the log reader reads them; a bad line is a failure naming the input.
    func contents() throws(CommandFailure) -> LogReader.Contents {
        do {
            return try LogReader().read(bytes)
        } catch {
            throw CommandFailure("\(name): \(error)" + (isRepairable ? "\n" + RepairHint.line(for: name) : ""))
        }
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
        #elseif canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #else
        Musl.read(descriptor, buffer, count)
        #endif
    }

    private static func failure(_ name: String, _ operation: String, _ code: Int32) -> CommandFailure {
        if code == ENOENT, operation == "open" { return CommandFailure("\(name): no such file") }
        return CommandFailure("\(name): \(operation) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
