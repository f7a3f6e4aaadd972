import SystemShim

extension FileEventLog {
    /// How much of a log is read and decoded at a time when it is read whole: large enough
    /// to decode in pieces on every processor, small enough that the log's bytes and
    /// records are never all in memory at once.
    static let chunkBytes = 8 << 20

    /// Reads a log from a start to its end, a chunk at a time, in order: each chunk's
    /// contents with offsets, line numbers and positions in the whole log's terms.
    ///
    /// A chunk ends at a line end and outside any atomic batch: a batch that a chunk's
    /// end cuts is read again with the next chunk, and a chunk grows until it holds a
    /// whole line and a whole batch. The chunks together equal reading the bytes at once.
    /// - Complexity: O(*n*) for the *n* bytes after the start, with O(`chunkBytes`) memory
    ///   beyond what the caller keeps.
    struct ChunkReader {
        private let file: SystemFile
        private let path: String
        private let chunkBytes: Int
        private var base: LogReader.Start
        private var length: Int
        private var finished = false
        /// The file's size when reading started.
        let size: Int
        /// The byte offset reading has reached: the end of the last chunk returned.
        var offset: Int { finished ? size : base.offset }
        /// The file's last byte, if it is not empty.
        let lastByte: UInt8?
        /// The torn tail, once the last chunk is read, if the log ends in one.
        private(set) var tornTail: LogReader.TornTail?
        /// How many lines the log holds (a last line without its newline counted), once
        /// the last chunk is read.
        private(set) var lineCount = 0
        /// The bytes of the chunk being read, kept for the next: a new buffer of megabytes
        /// for each chunk made the allocator keep more memory than the largest chunk.
        private var bytes: [UInt8] = []

        /// A reader of `file` from `start` to byte `end` (by default, the end of the file).
        init(_ file: SystemFile, path: String, from start: LogReader.Start, to end: Int? = nil,
             chunkBytes: Int = FileEventLog.chunkBytes) throws(EventLogError) {
            self.file = file
            self.path = path
            self.chunkBytes = max(1, chunkBytes)
            base = start
            length = self.chunkBytes
            if let end { size = end } else { size = try file.size() }
            lastByte = size > 0 ? try file.read(at: size - 1, count: 1).first : nil
        }

        /// The next chunk's contents, or `nil` after the last one.
        mutating func next() throws(EventLogError) -> LogReader.Contents? {
            while !finished && base.offset < size {
                try file.read(at: base.offset, count: min(length, size - base.offset), into: &bytes)
                let atEnd = base.offset + bytes.count >= size
                if !atEnd {
                    guard let newline = bytes.lastIndex(of: 0x0A) else {
                        length *= 2  // a line longer than the chunk
                        continue
                    }
                    bytes.removeSubrange((newline + 1)...)
                }
                let start = base
                let contents: LogReader.Contents
                do {
                    contents = try bytes.withUnsafeBytes { raw in
                        Result { () throws(LogReader.Failure) in try LogReader().read(raw, after: start) }
                    }.get()
                } catch {
                    throw .invalidLine(path: path, line: error.line, reason: error.reason)
                }
                if atEnd {
                    finished = true
                    tornTail = contents.tornTail
                    lineCount = base.line + FileEventLog.newlines(in: bytes, before: bytes.count)
                        + (bytes.last.map { $0 == 0x0A ? 0 : 1 } ?? 0)
                    return contents
                }
                // Before the end, a chunk that ends at a newline can only be torn by a batch
                // that goes on in the next chunk: read from the batch's start again.
                let consumed = (contents.tornTail?.offset ?? base.offset + bytes.count) - base.offset
                guard consumed > 0 else {
                    // A batch longer than the chunk: read it whole at once.
                    length = max(length * 2, contents.tornTail?.estimatedWholeBatchLength ?? 0)
                    continue
                }
                base = LogReader.Start(position: base.position + Int64(contents.records.count),
                                       line: base.line + FileEventLog.newlines(in: bytes, before: consumed),
                                       offset: base.offset + consumed)
                length = chunkBytes
                return contents
            }
            if !finished { lineCount = base.line }
            finished = true
            return nil
        }
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
