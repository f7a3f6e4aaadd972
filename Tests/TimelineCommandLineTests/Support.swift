import Foundation
import TimelineTestSupport
import Testing

/// The package's root directory, found from this file's path.
let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The bundled example logs and their expected outputs.
let exampleLogs = packageRoot.appendingPathComponent("Examples/logs")

/// The `timeline` executable that `swift test` built next to the tests.
let toolURL: URL? = builtExecutable(named: "timeline", packageRoot: packageRoot)

/// What a run of the tool left behind.
struct ToolRun: CustomStringConvertible {
    var status: Int32
    var output: String
    var errors: String

    var outputLines: [Substring] { output.split(separator: "\n", omittingEmptySubsequences: false).dropLast() }

    var description: String { "status \(status)\n--- stdout\n\(output)--- stderr\n\(errors)" }
}

struct ToolNotFound: Error, CustomStringConvertible {
    var name = "timeline"
    var description: String { "the \(name) executable was not found next to the tests or under .build" }
}

/// Runs the built `timeline` with `arguments` in `directory`, standard input empty,
/// `TIMELINE_LOG` unset unless `environment` sets it.
func timeline(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) async throws
    -> ToolRun {
    guard let toolURL else { throw ToolNotFound() }
    return try await run(toolURL, arguments, in: directory, environment: environment)
}

/// Runs the executable at `toolURL` with `arguments` in `directory` (a scratch directory
/// by default), standard input empty, `TIMELINE_LOG` unset unless `environment` sets it.
func run(_ toolURL: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:])
    async throws -> ToolRun {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outputURL = scratch.appendingPathComponent("stdout")
    let errorsURL = scratch.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
    let output = try FileHandle(forWritingTo: outputURL)
    let errors = try FileHandle(forWritingTo: errorsURL)
    defer {
        try? output.close()
        try? errors.close()
    }

    let process = Process()
    process.executableURL = toolURL
    process.arguments = arguments
    process.currentDirectoryURL = directory ?? scratch
    var variables = ProcessInfo.processInfo.environment
    variables["TIMELINE_LOG"] = nil
    variables.merge(environment) { $1 }
    process.environment = variables
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = errors
    let started: Bool = await withCheckedContinuation { continuation in
        process.terminationHandler = { _ in continuation.resume(returning: true) }
        do {
            try process.run()
        } catch {
            process.terminationHandler = nil
            continuation.resume(returning: false)
        }
    }
    guard started else { throw ToolNotFound(name: toolURL.lastPathComponent) }
    return ToolRun(
        status: process.terminationStatus,
        output: try String(contentsOf: outputURL, encoding: .utf8),
        errors: try String(contentsOf: errorsURL, encoding: .utf8))
}

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to the file `name` and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let path = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func read(_ name: String) throws -> String {
        try String(contentsOfFile: path(name), encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The top-level member names of a flat JSON object line, in the order they appear.
func memberNames(ofJSONObjectLine line: Substring) -> [String] {
    var names: [String] = []
    var depth = 0
    var inString = false
    var escaped = false
    var current = ""
    var lastString: String?
    for character in line {
        if inString {
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                inString = false
                lastString = current
            } else {
                current.append(character)
            }
            continue
        }
        switch character {
        case "\"":
            inString = true
            current = ""
        case "{", "[": depth += 1
        case "}", "]": depth -= 1
        case ":":
            if depth == 1, let name = lastString { names.append(name) }
            lastString = nil
        case ",": lastString = nil
        default: break
        }
    }
    return names
}

/// Runs `script` with bash, the built `timeline` in `$TIMELINE`, in `directory`: for
/// pipes, FIFOs, redirections and process substitution as a shell user writes them.
func shell(_ script: String, in directory: URL? = nil, environment: [String: String] = [:]) async throws -> ToolRun {
    guard let toolURL else { throw ToolNotFound() }
    return try await run(URL(fileURLWithPath: "/bin/bash"), ["-c", script], in: directory,
                         environment: environment.merging(["TIMELINE": toolURL.path]) { $1 })
}

/// A hand-written log of one timeline with `count` single-date events, `e1` to `eN`.
func generatedLog(events count: Int) -> String {
    var text = #"{"type":"timelineCreated","data":{"timeline":"life","name":"Life"}}"# + "\n"
    for number in 1...count {
        let day = String(1 + number % 28).leftPadded(to: 2)
        text += #"{"type":"eventAdded","data":{"event":"e\#(number)","timeline":"life","title":"Event number \#(number) of a long life","date":"2001-02-\#(day)"}}"# + "\n"
    }
    return text
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
