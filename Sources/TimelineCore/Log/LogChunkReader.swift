import SystemShim

/// The one reader of a log's bytes from a start to an end, a chunk at a time: the store's
/// opening and replay (a file's bytes up to a size, read at offsets) and the commands
/// that read a log once (a file, a pipe, a FIFO, standard input, read to where it ends).
///
/// Each chunk's contents come with offsets, line numbers and positions in the whole log's
/// terms. A chunk ends at a line end and outside any atomic batch: the part of a batch
/// that a chunk's end cuts is kept and read again with the next bytes, and a chunk grows
/// until it holds a whole line and a whole batch. The chunks together equal reading the
/// bytes at once (``LogReader/read(_:after:)``), whatever the chunk size.
///
/// A stream is read with `read(2)` until it ends, never by its size: a pipe or a FIFO
/// has none, and a file that grows while it is read is read to where it ends then.
/// - Complexity: O(*n*) for *n* bytes, with O(`chunkBytes`) memory beyond what the caller
///   keeps (more only for a line or a batch longer than a chunk).
package struct LogChunkReader: Sendable {
    /// How much is read and decoded at a time: large enough to decode in pieces on every
    /// processor, small enough that the log's bytes and records are never all in memory.
    package static let chunkBytes = 8 << 20

    enum Source: Sendable {
        /// A file's bytes up to `end`, read at offsets (`pread`): the descriptor may be
        /// shared with other readers.
        case file(SystemFile, end: Int)
        /// A descriptor read to its end (`read`); `file`, when given, keeps it open.
        case stream(Int32, file: SystemFile?)
    }

    private let source: Source
    private let path: String
    private let chunkBytes: Int
    /// The bytes read and not yet handed out, from ``base``'s offset; `used` of them hold data.
    private var buffer: [UInt8] = []
    private var used = 0
    /// Where the bytes of ``buffer`` start in the log's terms.
    private var base: LogReader.Start
    /// How many bytes the next chunk reads up to (more for a line or batch longer than a chunk).
    private var target: Int
    private var atEnd = false
    private var finished = false
    /// A size the source is known to have, to read a long batch whole at once.
    private let knownEnd: Int?
    /// The byte offset reading has reached: the end of the last chunk handed out.
    package var offset: Int { finished ? base.offset + used : base.offset }
    /// Where a file's reading ends (its size when reading started); for a stream, where
    /// reading has reached.
    var end: Int {
        if case .file(_, let end) = source { return end }
        return offset
    }
    /// The torn tail, once the last chunk is read, if the log ends in one.
    package private(set) var tornTail: LogReader.TornTail?
    /// How many lines the log holds (a last line without its newline counted), once the
    /// last chunk is read.
    package private(set) var lineCount = 0
    /// The last byte read, once the log is read to its end; `nil` if there was none.
    package private(set) var lastByte: UInt8?
    /// How many bytes were read from the source.
    package private(set) var bytesRead = 0
    /// How many bytes the reader holds to read from: the memory it needs.
    package var bufferBytes: Int { buffer.count }

    /// A reader of `file` from `start` to byte `end` (by default, the file's size now).
    init(_ file: SystemFile, from start: LogReader.Start, to end: Int? = nil,
         chunkBytes: Int = LogChunkReader.chunkBytes) throws(EventLogError) {
        let last: Int
        if let end { last = end } else { last = try file.size() }
        self.init(source: .file(file, end: last), path: file.path, from: start, knownEnd: last, chunkBytes: chunkBytes)
    }

    /// A reader of the stream `descriptor` from its current place to its end; `path` names
    /// it in errors, `sizeHint` is its size if known (a regular file), `file` keeps it open.
    init(stream descriptor: Int32, path: String, file: SystemFile?, sizeHint: Int?,
         chunkBytes: Int = LogChunkReader.chunkBytes) {
        self.init(source: .stream(descriptor, file: file), path: path, from: LogReader.Start(), knownEnd: sizeHint,
                  chunkBytes: chunkBytes)
    }

    private init(source: Source, path: String, from start: LogReader.Start, knownEnd: Int?, chunkBytes: Int) {
        self.source = source
        self.path = path
        self.chunkBytes = max(1, chunkBytes)
        self.knownEnd = knownEnd
        base = start
        target = self.chunkBytes
    }

    /// The next chunk's contents, or `nil` after the last one. A line that is not a valid
    /// record is an ``EventLogError/invalidLine(path:line:reason:)``.
    package mutating func next() throws(EventLogError) -> LogReader.Contents? {
        while !finished {
            try fill()
            if used == 0 {
                finished = true
                lineCount = base.line
                return nil
            }
            var end = used
            if !atEnd {
                // Before the end, a chunk stops after its last whole line.
                guard let newline = buffer.withUnsafeBytes({ Self.lastNewline(in: $0, before: used) }) else {
                    // One line, from `base`, longer than the chunk. Beyond the longest a line
                    // may be it is no record: read on without keeping it (memory stays
                    // bounded, even for a stream with no newline, such as /dev/zero).
                    if used > LogReader.maximumLineLength + 1 {
                        try skipLongLine()
                        return nil
                    }
                    target = min(target * 2, LogReader.maximumLineLength + 2)
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
            } catch {
                throw .invalidLine(path: path, line: error.line, reason: error.reason)
            }
            if atEnd && end == used {
                finished = true
                tornTail = contents.tornTail
                lastByte = buffer[used - 1]
                lineCount = base.line + buffer.withUnsafeBytes { Self.newlines(in: $0, before: used) }
                    + (lastByte == 0x0A ? 0 : 1)
                return contents
            }
            // A chunk that ends at a newline can only be torn by a batch that goes on in the
            // next one: that batch is read again with the next bytes.
            let consumed = (contents.tornTail?.offset ?? base.offset + end) - base.offset
            guard consumed > 0 else {
                // A batch longer than the chunk: read it whole at once, as far as the known
                // end; from a pipe, twice as much again (a first record may announce any
                // number of records to follow).
                let whole = contents.tornTail?.estimatedWholeBatchLength ?? 0
                target = max(target * 2, min(whole, knownEnd.map { $0 - base.offset + 1 } ?? 0))
                continue
            }
            let lines = buffer.withUnsafeBytes { Self.newlines(in: $0, before: consumed) }
            base = LogReader.Start(position: base.position + Int64(contents.records.count),
                                   line: base.line + lines, offset: base.offset + consumed)
            buffer.withUnsafeMutableBytes { raw in
                guard let pointer = raw.baseAddress else { return }
                memmove(pointer, pointer + consumed, used - consumed)
            }
            used -= consumed
            target = chunkBytes
            return contents
        }
        return nil
    }

    /// Reads the rest of the line at ``base``, longer than any record, without keeping its
    /// bytes: up to its newline, a bad line (``EventLogError/invalidLine(path:line:reason:)``);
    /// up to the end, the log's torn tail, as ``LogReader`` says of such a last line.
    /// - Complexity: O(*b*) for the line's *b* bytes, in O(``chunkBytes``) memory.
    private mutating func skipLongLine() throws(EventLogError) {
        let limit = LogReader.maximumLineLength
        var length = used
        lastByte = buffer[used - 1]
        // A whole record at the line's start (it fits in the first `limit` bytes) makes the
        // line damaged rather than torn, should the log end before a newline.
        let record = buffer.withUnsafeBytes { LogReader.checksummedRecordLength(UnsafeRawBufferPointer(rebasing: $0[..<limit])) }
        used = 0
        let source = source
        while true {
            let offset = base.offset + length
            let count = buffer.withUnsafeMutableBytes { Self.readSome(source, into: $0.baseAddress!, count: $0.count, at: offset) }
            if count < 0 {
                try readAgainAfterFailure()
                continue
            }
            bytesRead += count
            if count == 0 {
                if let record {
                    throw .invalidLine(path: path, line: base.line + 1,
                                       reason: LogReader.damagedNewline(followedBy: length - record))
                }
                (atEnd, finished) = (true, true)
                tornTail = LogReader.TornTail(line: base.line + 1, offset: base.offset, length: length,
                                              reason: "longer than \(limit) bytes")
                lineCount = base.line + 1
                return
            }
            if let newline = buffer.withUnsafeBytes({ memchr($0.baseAddress!, 0x0A, count) }) {
                let at = buffer.withUnsafeBytes { UnsafeRawPointer(newline) - $0.baseAddress! }
                throw .invalidLine(path: path, line: base.line + 1,
                                   reason: "line is \(length + at) bytes long; at most \(limit) are allowed")
            }
            length += count
            lastByte = buffer[count - 1]
        }
    }

    /// After a read that failed: returns when it is to be tried again (interrupted, or a
    /// stream opened non-blocking by someone else, ready now); else throws its error.
    private func readAgainAfterFailure() throws(EventLogError) {
        let code = errno
        if code == EINTR { return }
        if case .stream(let descriptor, _) = source, code == EAGAIN || code == EWOULDBLOCK,
           waitUntilReady(descriptor, for: Int16(POLLIN)) { return }
        throw .io(path: path, operation: "read", code: code)
    }

    /// Reads until the buffer holds ``target`` bytes or the source ends.
    private mutating func fill() throws(EventLogError) {
        // A file is read up to its end: the buffer holds what is left, not a whole chunk
        // (a follower reading one new record must not clear megabytes for it).
        var capacity = target
        if case .file(_, let end) = source { capacity = max(used, min(target, end - base.offset)) }
        if buffer.count < capacity {
            // One zeroed allocation, then the bytes kept: appending element by element
            // costs seconds for a chunk in a build without optimisation.
            var grown = [UInt8](repeating: 0, count: capacity)
            grown.withUnsafeMutableBytes { raw in
                buffer.withUnsafeBytes { old in
                    if let to = raw.baseAddress, let from = old.baseAddress { memcpy(to, from, used) }
                }
            }
            buffer = grown
        }
        let source = source
        while !atEnd && used < target {
            let (start, wanted, offset) = (used, target - used, base.offset + used)
            let count = buffer.withUnsafeMutableBytes { Self.readSome(source, into: $0.baseAddress! + start, count: wanted, at: offset) }
            if count < 0 {
                try readAgainAfterFailure()
                continue
            }
            if count == 0 { atEnd = true }
            used += count
            bytesRead += count
        }
    }

    /// One read of up to `count` bytes: a file's at byte `offset` (0 at its end), a
    /// stream's where it is. The bytes read, 0 at the end, -1 on a failure (`errno`).
    private static func readSome(_ source: Source, into pointer: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Int {
        switch source {
        case .file(let file, let end):
            let wanted = min(count, end - offset)
            return wanted <= 0 ? 0 : pread(file.descriptor, pointer, wanted, off_t(offset))
        case .stream(let descriptor, _):
            return read(descriptor, pointer, count)
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

    /// How many newlines the first `count` bytes hold.
    static func newlines(in bytes: [UInt8], before count: Int) -> Int {
        bytes.withUnsafeBytes { newlines(in: $0, before: count) }
    }

    /// How many newlines the first `count` bytes hold.
    /// - Complexity: O(*count*), a `memchr` per line.
    package static func newlines(in bytes: UnsafeRawBufferPointer, before count: Int) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var found = 0, at = 0
        while at < count, let hit = memchr(base + at, 0x0A, count - at) {
            found += 1
            at = UnsafeRawPointer(hit) - base + 1
        }
        return found
    }
}

/// Waits until `descriptor` is ready for `events` (`POLLIN`, `POLLOUT`); `false` when
/// polling itself fails. For a descriptor opened non-blocking by someone else (a pipe
/// shared with another program).
package func waitUntilReady(_ descriptor: Int32, for events: Int16) -> Bool {
    var entry = pollfd(fd: descriptor, events: events, revents: 0)
    while true {
        let result = poll(&entry, 1, -1)
        if result >= 0 { return true }
        if errno != EINTR { return false }
    }
}
