import Foundation

/// This program run again with other arguments, for a measurement that must not share a
/// process with the measurements before it: what they allocated, and what the allocator
/// kept of it, stays out of its figures.
enum ChildProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs this program with `arguments`, waits for it, and returns what it printed;
    /// throws, naming `purpose`, when it exits with a failure.
    static func run(_ arguments: [String], for purpose: String) throws -> String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(purpose) failed in a child process (status \(process.terminationStatus)): \(text)")
        }
        return text
    }

    /// The `name=value` pairs of one line of a child's report, for the names that have
    /// numbers.
    static func fields(of line: Substring) -> [String: Double] {
        var fields: [String: Double] = [:]
        for pair in line.split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
        }
        return fields
    }
}
