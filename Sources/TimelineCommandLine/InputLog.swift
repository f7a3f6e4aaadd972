import TimelineCore
import SystemShim

/// The tool's words for reading a log whole (``LogInput``): a file argument (`replay FILE`,
/// `import FILE`; `-` is standard input) or the store's log, read without its lock.
extension Runner {
    /// Opens `path` (`-`: standard input) for reading.
    func openInput(_ path: String) throws(CommandFailure) -> LogInput {
        do {
            return path == "-" ? try LogInput.standardInput() : try LogInput.open(path: path)
        } catch .io(let name, "open", ENOENT) {
            throw CommandFailure("\(name): no such file")
        } catch .io(let name, _, EISDIR) {
            throw CommandFailure("\(name): is a directory, not a log file")
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Reads `input` to its end, handing `body` the records a chunk at a time (a chunk never
    /// splits an atomic batch). A bad line or a failed read is a failure naming the input,
    /// ending with `consequence` (the import's "; nothing imported"), and with the repair
    /// hint for a bad line of a regular file.
    func readWhole(_ input: LogInput, consequence: String = "",
                   _ body: (LogReader.Contents) throws -> Void) throws -> LogInput.Ending {
        do {
            return try input.forEachChunk(body)
        } catch let error as EventLogError {
            throw CommandFailure(error.description + consequence
                                 + (error.isCorruption && input.isRegularFile ? "\n" + RepairHint.line(for: input.name) : ""))
        }
    }
}
