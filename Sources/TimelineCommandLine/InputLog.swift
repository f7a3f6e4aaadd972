import Dispatch
import Synchronization
import TimelineCore
import SystemShim

/// A log the tool reads from start to end: a file argument (`replay FILE`, `import FILE`:
/// a file, a pipe, a FIFO, `/dev/stdin`, `<(…)`, or `-` for standard input) or the
/// store's log file, for the commands that read it whole without its lock.
///
/// The bytes are read with `read(2)` a chunk at a time until the end of the stream, never
/// by the file's size: a pipe or a FIFO has none (it reports 0), and a file that grows
/// while it is read is read to where it ends then. Only a chunk or two is in memory at
/// once, whatever the log's length.
struct InputLog {
    /// The name messages use: the path, or `standard input` for `-`.
    let name: String
    /// Whether the input is a regular file named by its path, which `timeline repair`
    /// can fix (not standard input, a pipe or a FIFO).
    let isRepairable: Bool
    /// The file's size when it was opened, for a regular file (a guide for progress only).
    let size: Int?
    private let descriptor: Int32
    private let ownsDescriptor: Bool

    /// How much is read and decoded at a time: large enough to decode in pieces on every
    /// processor, small enough that the log is never in memory whole.
    static let chunkBytes = 8 << 20

    /// Opens `path` (`-`: standard input) for reading.
    static func open(_ path: String) throws(CommandFailure) -> InputLog {
        let isStandardInput = path == "-"
        let name = isStandardInput ? "standard input" : path
        let descriptor = isStandardInput ? 0 : Self.systemOpen(path)
        guard descriptor >= 0 else { throw failure(name, "open", errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            if !isStandardInput { systemClose(descriptor) }
            throw failure(name, "stat", code)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            if !isStandardInput { systemClose(descriptor) }
            throw CommandFailure("\(name): is a directory, not a log file")
        }
        let isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
        return InputLog(name: name, isRepairable: isRegularFile && !isStandardInput,
                        size: isRegularFile ? Int(info.st_size) : nil, descriptor: descriptor,
                        ownsDescriptor: !isStandardInput)
    }

    /// Closes the descriptor (standard input stays open).
    func close() {
        if ownsDescriptor { Self.systemClose(descriptor) }
    }

    /// What reading the whole input found besides its records.
    struct Ending {
        /// The torn tail, if the input ends in one.
        var tornTail: LogReader.TornTail?
        /// How many bytes were read.
        var bytes: Int
    }

    /// Reads the input to its end and hands `body` the records a chunk at a time, in
    /// order, each chunk's offsets, line numbers and positions in the whole log's terms.
    /// While `body` works on a chunk, the next ones (up to ``readAhead``) are read and
    /// decoded on other threads.
    ///
    /// A chunk ends at a line end and outside any atomic batch (a batch is never split
    /// between two calls); a bad line is a failure naming the input and the line, and
    /// ending with `consequence` (the import's "; nothing imported").
    /// - Complexity: O(*n*) for *n* bytes, with O(``chunkBytes`` · ``readAhead``) memory
    ///   beyond what `body` keeps (more only for a line or a batch longer than a chunk).
    func forEachChunk(consequence: String = "", _ body: (LogReader.Contents) throws -> Void) throws -> Ending {
        let source = ChunkSource(descriptor: descriptor, size: size)
        let reader = ChunkReader(source: source, ahead: Self.readAhead)
        // The reading never outlives the call: the descriptor may be closed after it.
        defer { reader.stop() }
        while true {
            let result = reader.next()
            if case .success(let contents?) = result {
                try body(contents)
                continue
            }
            reader.stop()
            switch result {
            case .failure(.read(let code)):
                throw CommandFailure(Self.failure(name, "read", code).message + consequence)
            case .failure(.line(let failure)):
                throw CommandFailure("\(name): \(failure)" + consequence
                                     + (isRepairable ? "\n" + RepairHint.line(for: name) : ""))
            default:
                return Ending(tornTail: source.tornTail, bytes: source.bytesRead)
            }
        }
    }

    /// How many decoded chunks may wait for the caller: more than one, so that decoding
    /// goes on while the caller takes longer over a chunk than decoding it took.
    static let readAhead = 3

    private static func systemClose(_ descriptor: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #elseif canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Musl.close(descriptor)
        #endif
    }

    private static func systemOpen(_ path: String) -> Int32 {
        #if canImport(Darwin)
        Darwin.open(path, O_RDONLY | O_CLOEXEC)
        #elseif canImport(Glibc)
        Glibc.open(path, O_RDONLY | O_CLOEXEC)
        #else
        Musl.open(path, O_RDONLY | O_CLOEXEC)
        #endif
    }

    static func failure(_ name: String, _ operation: String, _ code: Int32) -> CommandFailure {
        if code == ENOENT, operation == "open" { return CommandFailure("\(name): no such file") }
        return CommandFailure("\(name): \(operation) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}

/// Decodes chunks on a thread of its own, ahead of the caller, a few at most.
private final class ChunkReader: Sendable {
    private let results = Mutex<[Result<LogReader.Contents?, ChunkSource.Failure>]>([])
    private let stopped = Atomic<Bool>(false)
    /// Signalled for each result ready, and for each free place among the `ahead`.
    private let ready = DispatchSemaphore(value: 0)
    private let room: DispatchSemaphore
    private let done = DispatchGroup()

    /// Starts reading `source`, at most `ahead` chunks before the caller.
    init(source: ChunkSource, ahead: Int) {
        // Made at 0 and raised to `ahead`: a semaphore freed below the value it was made
        // with traps, and a caller that stops early (a refused fact) leaves places taken.
        room = DispatchSemaphore(value: 0)
        for _ in 0..<ahead { room.signal() }
        DispatchQueue.global().async(group: done) { [self] in
            while true {
                room.wait()
                if stopped.load(ordering: .acquiring) { return }
                let result = source.readNext()
                results.withLock { $0.append(result) }
                ready.signal()
                guard case .success(.some) = result else { return }
            }
        }
    }

    /// The next chunk (`nil` after the last), or the failure that ended reading.
    func next() -> Result<LogReader.Contents?, ChunkSource.Failure> {
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
}

/// Reads and decodes a descriptor's log one chunk at a time.
///
/// Used from one thread at a time: ``ChunkReader`` calls ``readNext()`` on its thread
/// only, one call after another, and ``InputLog/forEachChunk(consequence:_:)`` reads
/// ``tornTail`` and ``bytesRead`` only once that thread has stopped, so the state is never
/// touched by two threads at once.
private final class ChunkSource: @unchecked Sendable {
    enum Failure: Error {
        case read(Int32)
        case line(LogReader.Failure)
    }

    let descriptor: Int32
    /// The bytes read and not yet handed out: they start at ``base``'s offset.
    private var buffer: [UInt8] = []
    /// How many bytes of ``buffer`` hold data.
    private var used = 0
    private var atEnd = false
    private var finished = false
    private var base = LogReader.Start()
    /// How many bytes the next chunk reads up to (more for a line or batch longer than a chunk).
    private var target = InputLog.chunkBytes
    private(set) var tornTail: LogReader.TornTail?
    private(set) var bytesRead = 0

    /// The input's size when it was opened, for a regular file.
    private let size: Int?

    init(descriptor: Int32, size: Int?) {
        self.descriptor = descriptor
        self.size = size
    }

    /// The next chunk (`nil` after the last), or the failure that ends reading.
    func readNext() -> Result<LogReader.Contents?, Failure> {
        Result { () throws(Failure) in try next() }
    }

    private func next() throws(Failure) -> LogReader.Contents? {
        while !finished {
            try fill()
            if used == 0 {
                finished = true
                return nil
            }
            var end = used
            if !atEnd {
                // Before the end, a chunk stops after its last whole line.
                guard let newline = buffer.withUnsafeBytes({ Self.lastNewline(in: $0, before: used) }) else {
                    target *= 2  // a line longer than the chunk
                    continue
                }
                end = newline + 1
            }
            let start = base
            let contents: LogReader.Contents
            do {
                contents = try buffer.withUnsafeBytes { raw in
                    Result { () throws(LogReader.Failure) in
                        try LogReader().read(UnsafeRawBufferPointer(rebasing: raw[..<end]), after: start)
                    }
                }.get()
            } catch { throw .line(error) }
            if atEnd && end == used {
                finished = true
                tornTail = contents.tornTail
                return contents
            }
            // A chunk that ends at a newline can only be torn by a batch that goes on in
            // the next one: that batch is read again with the next chunk.
            let consumed = (contents.tornTail?.offset ?? base.offset + end) - base.offset
            guard consumed > 0 else {
                // A batch longer than the chunk: read it whole at once, as far as the
                // input's size; from a pipe, twice as much again (a first record may
                // announce any number of records to follow, and the buffer is all used).
                let whole = contents.tornTail?.estimatedWholeBatchLength ?? 0
                target = max(target * 2, min(whole, size.map { $0 - base.offset + 1 } ?? 0))
                continue
            }
            let lines = buffer.withUnsafeBytes { FileEventLog.newlines(in: $0, before: consumed) }
            base = LogReader.Start(position: base.position + Int64(contents.records.count),
                                   line: base.line + lines, offset: base.offset + consumed)
            buffer.withUnsafeMutableBytes { raw in
                guard let pointer = raw.baseAddress else { return }
                memmove(pointer, pointer + consumed, used - consumed)
            }
            used -= consumed
            target = InputLog.chunkBytes
            return contents
        }
        return nil
    }

    /// Reads until the buffer holds ``target`` bytes or the input ends.
    private func fill() throws(Failure) {
        if buffer.count < target {
            // One zeroed allocation, then the bytes kept: appending element by element
            // costs seconds for a chunk in a build without optimisation.
            var grown = [UInt8](repeating: 0, count: target)
            grown.withUnsafeMutableBytes { raw in
                buffer.withUnsafeBytes { old in
                    if let to = raw.baseAddress, let from = old.baseAddress { memcpy(to, from, used) }
                }
            }
            buffer = grown
        }
        while !atEnd && used < target {
            let count = buffer.withUnsafeMutableBytes { raw in
                Self.systemRead(descriptor, raw.baseAddress! + used, target - used)
            }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK, waitUntilReady(descriptor, for: Int16(POLLIN)) { continue }
                throw .read(code)
            }
            if count == 0 { atEnd = true }
            used += count
            bytesRead += count
        }
    }

    private static func lastNewline(in bytes: UnsafeRawBufferPointer, before end: Int) -> Int? {
        var index = end - 1
        while index >= 0 {
            if bytes[index] == 0x0A { return index }
            index -= 1
        }
        return nil
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
        #elseif canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #else
        Musl.read(descriptor, buffer, count)
        #endif
    }
}
