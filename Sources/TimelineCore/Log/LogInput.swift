import Dispatch
import Synchronization
import SystemShim

/// A log read once from its start to its end, without its lock: a file, a pipe, a FIFO
/// or standard input (`replay FILE`, `import FILE`), or a store's log read whole.
///
/// The bytes are read by one ``LogChunkReader`` on a thread of its own, a few chunks
/// ahead of the caller, so that decoding goes on while the caller folds a chunk.
package struct LogInput: Sendable {
    /// The name errors use: the path, or `standard input`.
    package let name: String
    /// Whether the input is a regular file named by its path (not standard input, a pipe
    /// or a FIFO): one that can be repaired.
    package let isRegularFile: Bool
    /// The file's size when it was opened, for a regular file (a guide for progress only).
    package let size: Int?
    private let descriptor: Int32
    /// Keeps the descriptor open while the input is used; `nil` for standard input.
    private let file: SystemFile?

    /// How many decoded chunks may wait for the caller: more than one, so that decoding
    /// goes on while the caller takes longer over a chunk than decoding it took.
    package static let readAhead = 3

    /// Opens the file at `path` for reading. A directory is refused
    /// (``EventLogError/io(path:operation:code:)`` with `EISDIR`).
    package static func open(path: String) throws(EventLogError) -> LogInput {
        let file = try SystemFile(path: path, flags: O_RDONLY)
        return try LogInput(name: path, descriptor: file.descriptor, file: file)
    }

    /// Standard input, left open after reading.
    package static func standardInput() throws(EventLogError) -> LogInput {
        try LogInput(name: "standard input", descriptor: 0, file: nil)
    }

    private init(name: String, descriptor: Int32, file: SystemFile?) throws(EventLogError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .io(path: name, operation: "stat", code: errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .io(path: name, operation: "read", code: EISDIR) }
        let isRegular = (info.st_mode & S_IFMT) == S_IFREG
        self.name = name
        self.descriptor = descriptor
        self.file = file
        isRegularFile = isRegular && file != nil
        size = isRegular ? Int(info.st_size) : nil
    }

    /// What reading the whole input found besides its records.
    package struct Ending: Sendable {
        /// The torn tail, if the input ends in one.
        package var tornTail: LogReader.TornTail?
        /// How many bytes were read.
        package var bytes: Int
    }

    /// Reads the input to its end and hands `body` the records a chunk at a time, in
    /// order (see ``LogChunkReader``); a chunk never splits an atomic batch. A line that
    /// is not a record throws ``EventLogError/invalidLine(path:line:reason:)``, a failed
    /// read ``EventLogError/io(path:operation:code:)``; `body`'s errors are rethrown.
    /// - Complexity: O(*n*) for *n* bytes, with O(``LogChunkReader/chunkBytes`` ·
    ///   ``readAhead``) memory beyond what `body` keeps.
    package func forEachChunk(chunkBytes: Int = LogChunkReader.chunkBytes,
                              _ body: (LogReader.Contents) throws -> Void) throws -> Ending {
        let reader = ReadingAhead(LogChunkReader(stream: descriptor, path: name, file: file, sizeHint: size,
                                                 chunkBytes: chunkBytes), ahead: Self.readAhead)
        // The reading never outlives the call: the descriptor may be closed after it.
        defer { reader.stop() }
        while let contents = try reader.next().get() {
            try body(contents)
        }
        reader.stop()
        return reader.ending
    }
}

/// A ``LogChunkReader`` run on a thread of its own, at most `ahead` chunks before the caller.
private final class ReadingAhead: Sendable {
    /// Touched by the reading thread only until it stops (``stop()`` waits for that).
    private let reader: Mutex<LogChunkReader>
    private let results = Mutex<[Result<LogReader.Contents?, EventLogError>]>([])
    private let stopped = Atomic<Bool>(false)
    /// Signalled for each result ready, and for each free place among the `ahead`.
    private let ready = DispatchSemaphore(value: 0)
    private let room: DispatchSemaphore
    private let done = DispatchGroup()

    init(_ reader: consuming LogChunkReader, ahead: Int) {
        self.reader = Mutex(reader)
        // Made at 0 and raised to `ahead`: a semaphore freed below the value it was made
        // with traps, and a caller that stops early (a refused fact) leaves places taken.
        room = DispatchSemaphore(value: 0)
        for _ in 0..<ahead { room.signal() }
        DispatchQueue.global().async(group: done) { [self] in
            while true {
                room.wait()
                if stopped.load(ordering: .acquiring) { return }
                let result = self.reader.withLock { reader in Result { () throws(EventLogError) in try reader.next() } }
                results.withLock { $0.append(result) }
                ready.signal()
                guard case .success(.some) = result else { return }
            }
        }
    }

    /// The next chunk (`nil` after the last), or the failure that ended reading.
    func next() -> Result<LogReader.Contents?, EventLogError> {
        ready.wait()
        let result = results.withLock { $0.removeFirst() }
        room.signal()
        return result
    }

    /// Stops reading, and waits until the source is no longer touched.
    func stop() {
        stopped.store(true, ordering: .releasing)
        room.signal()
        done.wait()
    }

    /// What the reading found besides the records, once it has stopped.
    var ending: LogInput.Ending {
        reader.withLock { LogInput.Ending(tornTail: $0.tornTail, bytes: $0.bytesRead) }
    }
}
