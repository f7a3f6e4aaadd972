import Foundation

/// The process's resident memory, from `/proc/self/status` (Linux).
enum ResidentMemory {
    /// Resident bytes now (`VmRSS`).
    static var current: Int? { field("VmRSS:") }

    /// The most resident bytes so far (`VmHWM`), or since ``resetPeak()``.
    static var peak: Int? { field("VmHWM:") }

    /// Starts the peak afresh at the current size (writes 5 to `/proc/self/clear_refs`);
    /// returns false where the kernel does not allow it.
    @discardableResult
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do { try handle.write(contentsOf: Array("5".utf8)) } catch { return false }
        return true
    }

    /// Returns the allocator's free memory to the system (glibc's `malloc_trim`).
    /// (The C library's headers as Swift imports them leave it out, so it is looked up.)
    static func returnFreeMemory() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

    private static func field(_ name: String) -> Int? {
        guard let status = procText("/proc/self/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let parts = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let value = parts.first.flatMap({ Int($0) }) else { return nil }
            return parts.count > 1 && parts[1] == "kB" ? value * 1024 : value
        }
        return nil
    }

    /// A file of `/proc`, read to its end (its size, as `stat` says, is 0).
    private static func procText(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
