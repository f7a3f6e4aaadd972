import Foundation
import Synchronization
import TimelineCore
import SystemShim

/// Somewhere the tool writes text: standard output, standard error, or memory in tests.
public protocol TextOutput: Sendable {
    /// Writes `text` as UTF-8, all of it, or throws why it could not.
    func write(_ text: String) throws(OutputError)
}

/// Why text could not be written.
public enum OutputError: Error, Equatable, Sendable {
    /// The reader went away (`EPIPE`: `| head` has read what it wanted).
    case closed
    /// The write failed with the C library's error `code` (`ENOSPC`, `EIO`, …).
    case failed(code: Int32)
}

/// Writes to an open file descriptor, unbuffered: each call is one or more `write(2)`s,
/// and a call returns only when every byte is written or a write has failed.
public struct FileDescriptorOutput: TextOutput {
    /// The descriptor written to.
    public let descriptor: Int32

    /// Writes to `descriptor`.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Standard output.
    public static let standardOutput = FileDescriptorOutput(descriptor: 1)
    /// Standard error.
    public static let standardError = FileDescriptorOutput(descriptor: 2)

    public func write(_ text: String) throws(OutputError) {
        var text = text
        let failure: OutputError? = text.withUTF8 { bytes in
            guard var pointer = bytes.baseAddress else { return nil }
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
                    let code = errno
                    if code == EINTR { continue }
                    // A descriptor left non-blocking by whoever opened it: wait until it takes more.
                    if code == EAGAIN || code == EWOULDBLOCK, waitUntilReady(descriptor, for: Int16(POLLOUT)) { continue }
                    return code == EPIPE ? .closed : .failed(code: code)
                }
                // A write that takes nothing and reports no error would loop for ever.
                if written == 0 { return .failed(code: EIO) }
                pointer += written
                remaining -= written
            }
            return nil
        }
        if let failure { throw failure }
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
    /// Whether standard output is a terminal: tables then fit its width and show colour.
    public var outputIsTerminal: Bool
    /// The terminal's width in columns as the terminal reports it, when standard output
    /// is one and says; `$COLUMNS` takes precedence (see ``tableWidth``).
    public var terminalColumns: Int?
    /// "Now" when `--now` is not given.
    public var clock: @Sendable () -> Instant
    /// Whether the process ends with the command. A store it opened is then left to the
    /// system at exit, not freed event by event (a million events take tens of
    /// milliseconds to free, for nobody).
    public var endsWithProcess = false

    /// Creates a context.
    public init(
        output: any TextOutput,
        errors: any TextOutput,
        environment: [String: String] = [:],
        errorsIsTerminal: Bool = false,
        outputIsTerminal: Bool = false,
        terminalColumns: Int? = nil,
        clock: @escaping @Sendable () -> Instant = { .now }
    ) {
        self.output = output
        self.errors = errors
        self.environment = environment
        self.errorsIsTerminal = errorsIsTerminal
        self.outputIsTerminal = outputIsTerminal
        self.terminalColumns = terminalColumns
        self.clock = clock
    }

    /// The process's standard output and error, environment and system clock.
    public static var process: ToolContext {
        let outputIsTerminal = isatty(1) == 1
        var context = ToolContext(
            output: FileDescriptorOutput.standardOutput, errors: FileDescriptorOutput.standardError,
            environment: ProcessInfo.processInfo.environment, errorsIsTerminal: isatty(2) == 1,
            outputIsTerminal: outputIsTerminal, terminalColumns: outputIsTerminal ? windowColumns(of: 1) : nil)
        context.endsWithProcess = true
        return context
    }

    /// Keeps `value` (a store, an import's facts) until the process exits when it ends
    /// with the command (``endsWithProcess``); otherwise does nothing.
    func leaveToExit(_ value: any Sendable) {
        guard endsWithProcess else { return }
        leftToExit.withLock { $0.append(value) }
    }

    /// The width tables fit, or `nil` for no limit: only when standard output is a
    /// terminal, `$COLUMNS` when it is a positive number, else what the terminal reports.
    var tableWidth: Int? {
        guard outputIsTerminal else { return nil }
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        return terminalColumns
    }

    /// Whether tables show colour: on a terminal, unless `$NO_COLOR` is set (to anything
    /// but the empty string, as no-color.org asks) or `$TERM` is `dumb`.
    var usesColour: Bool {
        guard outputIsTerminal else { return false }
        if let value = environment["NO_COLOR"], !value.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }

    /// Writes a diagnostic line to standard error, prefixed `timeline: `, with control
    /// characters escaped (a message may quote a title or a line of a log). Nothing is
    /// left to tell when standard error itself fails, so a failure is ignored.
    /// Every password of a database URL this run was given is scrubbed first.
    func diagnose(_ message: String) {
        try? errors.write(DatabaseLogs.scrubbed(message).split(separator: "\n", omittingEmptySubsequences: false)
            .map { "timeline: \(displayText(String($0)))\n" }.joined())
    }

    /// Writes a warning line to standard error.
    func warn(_ message: String) { diagnose("warning: \(message)") }
}

/// What ``ToolContext/leaveToExit(_:)`` keeps: never freed, the process ends first.
private let leftToExit = Mutex<[any Sendable]>([])

/// The width in columns that the terminal at `descriptor` reports, if it does.
private func windowColumns(of descriptor: Int32) -> Int? {
    var size = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
}
