import Foundation
import Synchronization
import SystemShim

/// A child process whose standard input is empty and whose standard output and error go
/// to files, so that a test can read what it printed so far, signal it, kill it or wait
/// for it at any moment.
///
/// Started with `posix_spawn` and reaped with `waitpid` (Foundation's `Process.waitUntilExit`
/// can hang off the main thread). Dropping the last reference kills a child still running.
public final class SpawnedProcess: Sendable {
    /// The child's process identifier.
    public let pid: pid_t
    /// The file that receives the child's standard output.
    public let outputPath: String
    /// The file that receives the child's standard error.
    public let errorPath: String
    /// The raw `waitpid` status once reaped, nil while running. Behind a lock because any
    /// thread may ask whether the child runs, and a child is reaped exactly once: the
    /// thread that reaps it records its status for all the others.
    private let reaped = Mutex<Int32?>(nil)

    /// Why a child could not be started.
    public struct StartFailure: Error, CustomStringConvertible {
        /// The program that was to run.
        public var executable: String
        /// The `errno` value `posix_spawn` returned.
        public var code: Int32
        /// What failed and the system's reason.
        public var description: String {
            "could not start \(executable): \(String(cString: strerror(code))) (errno \(code)); "
                + "check that it exists and is executable"
        }
    }

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - environment: The child's whole environment; nil passes this process's own through.
    ///   - currentDirectory: The child's working directory; nil keeps this process's.
    ///   - outputPath: The file (created or truncated) for its standard output.
    ///   - errorPath: The file (created or truncated) for its standard error.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                currentDirectory: URL? = nil, outputPath: String, errorPath: String) throws {
        self.outputPath = outputPath
        self.errorPath = errorPath
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?, attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t(), attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let currentDirectory {
            let result = Self.addChangeOfDirectory(&actions, currentDirectory.path)
            guard result == 0 else { throw StartFailure(executable: executable.path, code: result) }
        }
        // The child starts with no signal blocked and every signal at its default action,
        // as from a shell: a thread of this process (Dispatch's workers) may block signals,
        // and a mask inherited from it would hold back SIGTERM or SIGINT sent to the child.
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let result: Int32
        if let environment {
            var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for variable in envp { free(variable) } }
            result = posix_spawn(&pid, executable.path, &actions, &attributes, &argv, &envp)
        } else {
            #if canImport(Darwin)
            result = posix_spawn(&pid, executable.path, &actions, &attributes, &argv, _NSGetEnviron().pointee)
            #else
            result = posix_spawn(&pid, executable.path, &actions, &attributes, &argv, environ)
            #endif
        }
        guard result == 0 else { throw StartFailure(executable: executable.path, code: result) }
        self.pid = pid
    }

    #if canImport(Darwin)
    private static func addChangeOfDirectory(_ actions: inout posix_spawn_file_actions_t?, _ path: String) -> Int32 {
        posix_spawn_file_actions_addchdir_np(&actions, path)
    }
    #else
    /// Adds a change of working directory to `actions`. glibc (2.29 and later) exports
    /// `posix_spawn_file_actions_addchdir_np` but declares it only under `_GNU_SOURCE`,
    /// which the C library module does not define, so it is looked up by name.
    private static func addChangeOfDirectory(_ actions: inout posix_spawn_file_actions_t, _ path: String) -> Int32 {
        typealias AddChangeOfDirectory = @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        guard let library = dlopen(nil, RTLD_NOW),
              let symbol = dlsym(library, "posix_spawn_file_actions_addchdir_np") else { return ENOSYS }
        defer { dlclose(library) }
        return unsafeBitCast(symbol, to: AddChangeOfDirectory.self)(&actions, path)
    }
    #endif

    /// Everything written to standard output so far (bytes that are not UTF-8, such as a
    /// character half written, read as U+FFFD).
    public var output: String { Self.contents(of: outputPath) }
    /// Everything written to standard error so far.
    public var errors: String { Self.contents(of: errorPath) }

    private static func contents(of path: String) -> String {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The complete lines written to standard output so far (a last line without its
    /// newline is still being written and left out).
    public var outputLines: [Substring] {
        output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    }

    /// The raw `waitpid` status, nil while the child runs (reaps it if it has ended).
    public var waitStatus: Int32? {
        reaped.withLock { status in
            if status == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            }
            return status
        }
    }

    /// Whether the child is still running (reaps it if it has ended).
    public var isRunning: Bool { waitStatus == nil }

    /// The exit status when it exited, nil while running or when a signal ended it.
    public var exitStatus: Int32? {
        guard let status = waitStatus, status & 0x7F == 0 else { return nil }
        return (status >> 8) & 0xFF
    }

    /// The signal that ended it, if one did.
    public var terminatingSignal: Int32? {
        guard let status = waitStatus, status & 0x7F != 0, status & 0x7F != 0x7F else { return nil }
        return status & 0x7F
    }

    /// Sends `signal` to the child unless it has ended.
    public func send(_ signal: Int32) {
        reaped.withLock { status in
            // Under the lock: a reaped pid may already belong to another process.
            if status == nil { _ = kill(pid, signal) }
        }
    }

    /// Kills the child with SIGKILL unless it has ended, and reaps it.
    public func killNow() {
        reaped.withLock { status in
            guard status == nil else { return }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid {
                status = raw
                return
            }
            _ = kill(pid, SIGKILL)
            while waitpid(pid, &raw, 0) == -1, errno == EINTR {}
            status = raw
        }
    }

    /// Waits until the child has ended or `deadline` has passed; true if it has ended.
    public func waitForExit(until deadline: ContinuousClock.Instant) async -> Bool {
        while isRunning {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    /// Blocks until the child has ended; after `timeout`, if given, kills it first (a hung
    /// child then fails its test instead of stopping the suite).
    public func waitUntilExit(timeout: Duration? = nil) {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while isRunning {
            if let deadline, ContinuousClock.now >= deadline {
                killNow()
                return
            }
            usleep(1_000)
        }
    }

    deinit { killNow() }

    /// How a child run to completion ended and what it printed.
    public struct Completion: Sendable {
        /// The exit status, or the number of the signal that ended it (as Foundation's
        /// `Process.terminationStatus` reports).
        public var status: Int32
        /// Its standard output.
        public var output: String
        /// Its standard error.
        public var errors: String
    }

    /// Runs `executable` with `arguments` to completion, its output collected through
    /// files in a temporary directory of its own.
    /// - Parameters:
    ///   - environment: The child's whole environment; nil passes this process's own through.
    ///   - currentDirectory: The child's working directory; nil keeps this process's.
    ///   - timeout: After this long the child is killed (its status is then SIGKILL's number).
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                           currentDirectory: URL? = nil, timeout: Duration? = nil) throws -> Completion {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let child = try SpawnedProcess(executable, arguments, environment: environment,
                                     currentDirectory: currentDirectory,
                                     outputPath: scratch.appendingPathComponent("stdout").path,
                                     errorPath: scratch.appendingPathComponent("stderr").path)
        child.waitUntilExit(timeout: timeout)
        let status = child.exitStatus ?? child.terminatingSignal ?? -1
        return Completion(status: status, output: child.output, errors: child.errors)
    }
}
