import Foundation
import SystemShim

/// A measurement that could not be made.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Child processes: this program run again for a measurement that must not share a process
/// with those before it (what they allocated, and the allocator kept, stays out of its
/// figures), and other programs timed as whole processes.
enum ChildProcess {
    /// This program's executable.
    static let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        ?? CommandLine.arguments[0]

    /// Starts this program with `arguments`, its standard output to a pipe.
    static func start(_ arguments: [String]) throws -> (process: Process, output: Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    /// Waits for a started child and returns what it printed; throws, naming `purpose`, when it failed.
    static func finish(_ child: (process: Process, output: Pipe), for purpose: String) throws -> String {
        let data = child.output.fileHandleForReading.readDataToEndOfFile()
        child.process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard child.process.terminationStatus == 0 else {
            throw BenchFailure("\(purpose) failed in a child process (status \(child.process.terminationStatus)): \(text)")
        }
        return text
    }

    /// Runs this program with `arguments` and returns what it printed.
    static func run(_ arguments: [String], for purpose: String) throws -> String {
        try finish(try start(arguments), for: purpose)
    }

    /// The `name=value` pairs with numbers of one line of a child's report.
    static func fields(of line: Substring) -> [String: Double] {
        var fields: [String: Double] = [:]
        for pair in line.split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
        }
        return fields
    }

    /// The fields of a report's last line.
    static func lastFields(of text: String) -> [String: Double] { fields(of: text.split(separator: "\n").last ?? "") }

    /// Runs `executable` with `arguments`, output to `/dev/null`, and waits for it with
    /// `wait4`: its wall time and peak resident bytes. Throws with its standard error when it fails.
    static func spawnMeasured(_ executable: String, _ arguments: [String]) throws -> (nanoseconds: UInt64, peakBytes: Int) {
        let command = ([executable] + arguments).joined(separator: " ")
        let errors = NSTemporaryDirectory() + "/timeline-bench-tool-\(getpid()).err"
        defer { try? FileManager.default.removeItem(atPath: errors) }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + environment { free(pointer) } }
        var pid: pid_t = 0
        let start = MonotonicClock.now()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        guard spawned == 0 else { throw BenchFailure("cannot start \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchFailure("wait4 failed: errno \(errno)") }
        }
        let elapsed = MonotonicClock.now() - start
        // Exited normally with status 0: the low 7 bits are the signal, the next 8 the status.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            let text = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw BenchFailure("\(command) failed (wait status \(status)): \(text)")
        }
        #if canImport(Darwin)
        return (elapsed, Int(usage.ru_maxrss))  // bytes
        #else
        return (elapsed, Int(usage.ru_maxrss) * 1024)  // kilobytes
        #endif
    }
}

/// A directory of its own under the system's temporary directory, removed at the end.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array((NSTemporaryDirectory() + "/timeline-bench-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "cannot create a temporary directory: errno \(errno)")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// The process's resident memory, from `/proc/self/status` (Linux).
enum ResidentMemory {
    /// Resident bytes now (`VmRSS`).
    static var current: Int? { field("VmRSS:") }

    /// The most resident bytes since the start or ``resetPeak()`` (`VmHWM`).
    static var peak: Int? { field("VmHWM:") }

    /// Starts the peak afresh at the current size, where the kernel allows it.
    static func resetPeak() {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return }
        try? handle.write(contentsOf: Array("5".utf8))
        try? handle.close()
    }

    /// Returns the allocator's free memory to the system (glibc's `malloc_trim`, looked up:
    /// the C library's headers as Swift imports them leave it out).
    static func returnFreeMemory() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

    private static func field(_ name: String) -> Int? {
        // Read to the end: a file of `/proc` has a size of 0.
        guard let data = try? FileHandle(forReadingAtPath: "/proc/self/status")?.readToEnd() else { return nil }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix(name) {
            let parts = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let value = parts.first.flatMap({ Int($0) }) else { return nil }
            return parts.count > 1 && parts[1] == "kB" ? value * 1024 : value
        }
        return nil
    }
}
