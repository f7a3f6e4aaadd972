import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process whose standard output and error go to files, started with
/// `posix_spawn` and reaped with `waitpid` (Foundation's `Process.waitUntilExit` can hang
/// off the main thread), so that a test can stop, kill or interrupt it at any moment.
final class SpawnedProcess: @unchecked Sendable {
    let pid: pid_t
    let outputPath: String
    let errorPath: String
    /// The raw `waitpid` status once reaped.
    private(set) var waitStatus: Int32?

    /// Starts `executable` with `arguments`; its output goes to `scratch/NAME.out` and `.err`.
    init(_ executable: URL, _ arguments: [String], name: String, scratch: String) throws {
        outputPath = scratch + "/\(name).out"
        errorPath = scratch + "/\(name).err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let all = [executable.path] + arguments
        var argv: [UnsafeMutablePointer<CChar>?] = all.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var environment = ProcessInfo.processInfo.environment
        environment["TIMELINE_LOG"] = nil
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in envp { free(variable) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable.path, &actions, nil, &argv, &envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        self.pid = pid
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// The complete lines written to standard output so far.
    var outputLines: [Substring] { output.split(separator: "\n", omittingEmptySubsequences: false).dropLast() }

    /// Whether the process is still running (reaps it if it has ended).
    var isRunning: Bool {
        guard waitStatus == nil else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        waitStatus = status
        return false
    }

    /// The exit status when it exited, nil while running or when a signal ended it.
    var exitStatus: Int32? {
        guard !isRunning, let status = waitStatus, status & 0x7F == 0 else { return nil }
        return (status >> 8) & 0xFF
    }

    /// The signal that ended it, if one did.
    var terminatingSignal: Int32? {
        guard !isRunning, let status = waitStatus, status & 0x7F != 0, status & 0x7F != 0x7F else { return nil }
        return status & 0x7F
    }

    func send(_ signal: Int32) {
        guard isRunning else { return }
        _ = kill(pid, signal)
    }

    /// Kills it with SIGKILL unless it has ended, and reaps it.
    func killNow() {
        guard isRunning else { return }
        _ = kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        waitStatus = status
    }

    /// Waits until it has ended or `deadline` has passed; true if it has ended.
    func waitForExit(until deadline: ContinuousClock.Instant) async -> Bool {
        while isRunning {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    deinit { killNow() }
}

/// Waits until `condition` holds or `deadline` has passed; returns whether it holds.
func eventually(until deadline: ContinuousClock.Instant, _ condition: () -> Bool) async -> Bool {
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}
