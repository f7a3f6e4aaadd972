import Foundation
import Synchronization
import TimelineCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Somewhere the tool writes text: standard output, standard error, or memory in tests.
public protocol TextOutput: Sendable {
    /// Writes `text` as UTF-8, all of it.
    func write(_ text: String)
}

/// Writes to an open file descriptor, unbuffered: each call is one or more `write(2)`s.
public struct FileDescriptorOutput: TextOutput {
    /// The descriptor written to.
    public let descriptor: Int32

    /// Writes to `descriptor`.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Standard output.
    public static let standardOutput = FileDescriptorOutput(descriptor: 1)
    /// Standard error.
    public static let standardError = FileDescriptorOutput(descriptor: 2)

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard var pointer = bytes.baseAddress else { return }
            var remaining = bytes.count
            while remaining > 0 {
                #if canImport(Darwin)
                let written = Darwin.write(descriptor, pointer, remaining)
                #elseif canImport(Glibc)
                let written = Glibc.write(descriptor, pointer, remaining)
                #else
                let written = Musl.write(descriptor, pointer, remaining)
                #endif
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                pointer += written
                remaining -= written
            }
        }
    }
}

/// Keeps what is written, for tests that run the tool in-process.
public final class CapturedOutput: TextOutput {
    private let storage = Mutex("")

    /// Creates an empty capture.
    public init() {}

    public func write(_ text: String) { storage.withLock { $0 += text } }

    /// Everything written so far.
    public var text: String { storage.withLock { $0 } }
}

/// Where the tool runs: its output streams, its environment and its clock.
public struct ToolContext: Sendable {
    /// Standard output: results only.
    public var output: any TextOutput
    /// Standard error: diagnostics, warnings and progress.
    public var errors: any TextOutput
    /// The environment variables (`TIMELINE_LOG`).
    public var environment: [String: String]
    /// Whether standard error is a terminal, so progress is worth showing.
    public var errorsIsTerminal: Bool
    /// "Now" when `--now` is not given.
    public var clock: @Sendable () -> Instant

    /// Creates a context.
    public init(
        output: any TextOutput,
        errors: any TextOutput,
        environment: [String: String] = [:],
        errorsIsTerminal: Bool = false,
        clock: @escaping @Sendable () -> Instant = { .now }
    ) {
        self.output = output
        self.errors = errors
        self.environment = environment
        self.errorsIsTerminal = errorsIsTerminal
        self.clock = clock
    }

    /// The process's standard output and error, environment and system clock.
    public static var process: ToolContext {
        ToolContext(output: FileDescriptorOutput.standardOutput, errors: FileDescriptorOutput.standardError,
                    environment: ProcessInfo.processInfo.environment, errorsIsTerminal: isatty(2) == 1)
    }

    /// Writes a diagnostic line to standard error, prefixed `timeline: `.
    func diagnose(_ message: String) {
        errors.write(message.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "timeline: \($0)\n" }.joined())
    }

    /// Writes a warning line to standard error.
    func warn(_ message: String) { diagnose("warning: \(message)") }
}
