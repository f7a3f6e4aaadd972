import SystemShim

/// Writes a large file through a buffer of a few megabytes, so generating a log of a
/// million lines never holds it all in memory.
final class FileWriter {
    let path: String
    private let descriptor: Int32
    private(set) var buffer: [UInt8] = []
    private(set) var bytesWritten = 0
    private static let flushSize = 4 << 20

    init(path: String) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(descriptor >= 0, "cannot create \(path): errno \(errno)")
        buffer.reserveCapacity(Self.flushSize + 4096)
    }

    /// Gives `body` the buffer to append to; flushes when it is full.
    func append(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        if buffer.count >= Self.flushSize { flush() }
    }

    func flush() {
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            precondition(n > 0, "cannot write \(path): errno \(errno)")
            done += n
        }
        bytesWritten += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    func close() {
        flush()
        _ = Glibc.close(descriptor)
    }

    /// The whole content of the file at `path`.
    static func readAll(_ path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        precondition(descriptor >= 0, "cannot open \(path): errno \(errno)")
        defer { _ = Glibc.close(descriptor) }
        var info = stat()
        precondition(fstat(descriptor, &info) == 0, "cannot stat \(path)")
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0, errno == EINTR { continue }
            precondition(n > 0, "cannot read \(path): errno \(errno)")
            done += n
        }
        return bytes
    }
}
