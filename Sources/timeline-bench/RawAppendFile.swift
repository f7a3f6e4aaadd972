import SystemShim

/// The durable-append baseline: the same bytes written with one `write` and made
/// durable with `fsync`, straight through the C library — the floor for any log.
final class RawAppendFile {
    private let descriptor: Int32

    init(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        precondition(descriptor >= 0, "cannot create \(path): errno \(errno)")
    }

    deinit { close(descriptor) }

    func appendDurably(_ bytes: [UInt8]) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            precondition(n > 0, "raw append failed: errno \(errno)")
            done += n
        }
        precondition(fsync(descriptor) == 0, "fsync failed: errno \(errno)")
    }
}
