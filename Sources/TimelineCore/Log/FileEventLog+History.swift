internal import CStringSearch
import SystemShim

extension FileEventLog {
    /// What ``history(of:path:resumingAt:)`` found: the records that touched the event,
    /// oldest first, and the torn tail the log ends in, if any (not read, as any reader
    /// leaves it).
    package struct EventHistoryRead: Sendable, Equatable {
        /// The records that touched the event (``EventHistory``), oldest first.
        package var records: [Record]
        /// The unfinished write the log ends in, left as it is.
        package var tornTail: LogReader.TornTail?
    }

    /// The records of the log at `path` that touched `event` (``EventHistory``), oldest
    /// first, found by searching the log's bytes instead of reading every record, up to a
    /// checkpoint's resume point `point` that vouches for them (it verifies, as
    /// ``open(path:resumingAt:consume:)`` checks it): every record up to it was checked
    /// against the rules when the checkpoint was made. The records after the point (a few
    /// thousand at most, when the tool keeps the checkpoint) are read whole, each checked
    /// by its checksum, position and batch as any read is; their facts are not checked
    /// against the rules here (a store's opening and `timeline verify` do that). The file
    /// is only read, under the readers' shared lock.
    ///
    /// A line before the point can touch the event only if it names it or removes a
    /// timeline, so only the lines that hold the id as the string value of `"event"`, the word
    /// `timelineRemoved`, or an escape that could spell either (for an id without a quote
    /// or backslash, any escape but `\"` and `\\`) are decoded; each
    /// is checked by its checksum as any read is.
    ///
    /// Returns `nil` when this cannot answer and the log must be read whole: the point
    /// does not fit the log, the id is not ASCII (Unicode-equivalent spellings compare
    /// equal), a candidate line has no `seq` (a hand-written log), or a line after the
    /// point does not read (the whole read names it).
    ///
    /// - Complexity: O(*b*) for the *b* bytes of the log up to the point, searched a chunk
    ///   at a time in parts on every processor, plus the decoding of the candidate lines and of the records after it.
    ///
    /// `parts` sets how many parts the search is made in (tests); by default one per
    /// processor, each of at least 16 MB.
    package static func history(of event: EventID, path: String, resumingAt point: LogResumePoint, parts: Int? = nil)
        throws(EventLogError) -> EventHistoryRead? {
        guard event.rawValue.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        // Read-only: the readers' shared lock (no append is half written while it is held),
        // never the writer's open, which waits for writers and cuts a torn tail.
        let file = try SystemFile(path: path, flags: O_RDONLY)
        try file.lock(exclusive: false)
        defer { file.unlock() }
        guard case (let resume?, nil) = try usable(point, file: file) else { return nil }

        // Searched in parts at the same time, each from a line's start (a log of a million
        // records is 157 MB: the search, not the decoding, is what a history waits for).
        let parts = parts ?? max(1, min(ProcessInfoCount.active, resume.offset / partBytes))
        var bounds = [0]
        for part in 1..<max(parts, 1) where resume.offset > 0 {
            let guess = resume.offset * part / parts
            guard guess > bounds.last!, let next = try lineStart(atOrAfter: guess, in: file, before: resume.offset) else {
                continue
            }
            if next > bounds.last! { bounds.append(next) }
        }
        bounds.append(resume.offset)
        let ranges = zip(bounds, bounds.dropFirst()).map { $0..<$1 }
        let found = concurrentMap(ranges.count) { index in
            Result { () throws(EventLogError) in try searchPart(for: event, in: ranges[index], of: file) }
        }
        var candidates: [Record] = []
        for part in found {
            guard let records = try part.get() else { return nil }
            candidates += records
        }
        candidates.sort { $0.position < $1.position }
        // The records after the point, in order after the candidates before it.
        var tail = try LogChunkReader(file, from: LogReader.Start(position: resume.position, line: resume.lineCount,
                                                                  offset: resume.offset))
        do {
            while let contents = try tail.next() { candidates += contents.records }
        } catch {
            return nil
        }
        var history = EventHistory(event: event)
        history.add(contentsOf: candidates)
        return EventHistoryRead(records: history.records, tornTail: tail.tornTail)
    }

    /// The least a part of a history's search covers: below it, one part.
    private static let partBytes = 16 << 20

    /// The offset of the first line that starts at or after `offset` (`nil` when none does
    /// before `limit`): the byte after the first newline at or after `offset - 1`.
    private static func lineStart(atOrAfter offset: Int, in file: SystemFile, before limit: Int)
        throws(EventLogError) -> Int? {
        let window = try file.read(at: offset - 1, count: min(LogReader.maximumLineLength + 1, limit - offset + 1))
        guard let newline = window.firstIndex(of: 0x0A) else { return nil }
        let start = offset - 1 + newline + 1
        return start < limit ? start : nil
    }

    /// The records of the lines in `range` of `file` (whole lines, from a line's start to
    /// one's end) that may touch `event`, decoded; `nil` when one cannot be (see
    /// ``history(of:path:resumingAt:)``).
    private static func searchPart(for event: EventID, in range: Range<Int>, of file: SystemFile)
        throws(EventLogError) -> [Record]? {
        let backslash = [UInt8(ascii: "\\")]
        var needles = [Array("timelineRemoved".utf8), backslash]
        // An id without a quote or backslash is found as itself; one with them only spelt
        // with escapes.
        let plainID = !event.rawValue.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
        let idString = Array("\"\(event.rawValue)\"".utf8)
        if plainID { needles.append(idString) }
        var candidates: [Record] = []
        var chunk: [UInt8] = []
        var start = range.lowerBound  // the file offset of `chunk[0]`, always a line's start
        // Small enough that the three searches of a chunk find it in the cache, and longer
        // than any line a log may hold (so every chunk holds a whole line).
        let chunkBytes = 2 * LogReader.maximumLineLength
        while start < range.upperBound {
            try file.read(at: start, count: min(chunkBytes, range.upperBound - start), into: &chunk)
            guard !chunk.isEmpty else { return nil }
            // Whole lines only: up to the chunk's last newline (the range ends with one).
            guard let end = chunk.lastIndex(of: 0x0A).map({ $0 + 1 }) else { return nil }
            var lines: [Range<Int>] = []
            chunk.withUnsafeBytes { bytes in
                for needle in needles {
                    var from = 0
                    while from < end {
                        guard let at = Self.find(needle, in: bytes, from: from, to: end) else { break }
                        // The id elsewhere (a title, a key, a date) names no event: only as
                        // the value of `"event"`, unless an escape spells it (found above).
                        if needle == idString, !Self.isEventValue(bytes, at: at) {
                            from = at + 1
                            continue
                        }
                        var lineStart = at
                        while lineStart > 0, bytes[lineStart - 1] != 0x0A { lineStart -= 1 }
                        var lineEnd = at
                        while lineEnd < end, bytes[lineEnd] != 0x0A { lineEnd += 1 }
                        if needle != backslash || !plainID || Self.escapesMaySpellText(bytes, from: at, to: lineEnd) {
                            lines.append(lineStart..<lineEnd)
                        }
                        from = lineEnd + 1
                    }
                }
            }
            for line in Set(lines) {
                let decoded: DecodedLine
                do {
                    decoded = try chunk[line].withUnsafeBytes { bytes in
                        Result { () throws(RecordError) in try RecordDecoder().decodeLine(bytes, lineNumber: 0) }
                    }.get()
                } catch {
                    return nil
                }
                guard let seq = decoded.seq,
                      let record = try? decoded.record(expectedPosition: seq, lineNumber: 0) else { return nil }
                candidates.append(record)
            }
            start += end
        }
        return candidates
    }

    /// Whether the JSON string at `at` is the value of an `"event"` member: the key, then a
    /// colon, with whitespace allowed around it. Every fact that names an event (in every
    /// schema version) names it so.
    private static func isEventValue(_ bytes: UnsafeRawBufferPointer, at: Int) -> Bool {
        var index = at - 1
        func skipSpace() {
            while index >= 0, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D { index -= 1 }
        }
        skipSpace()
        guard index >= 0, bytes[index] == UInt8(ascii: ":") else { return false }
        index -= 1
        skipSpace()
        let key = #""event""#.utf8
        guard index + 1 >= key.count else { return false }
        return bytes[(index + 1 - key.count)...index].elementsEqual(key)
    }

    /// Whether the escapes of a line, from its first backslash at `start` to `end`, may
    /// spell an id or a type: any but `\"` and `\\`, which spell only a quote or a
    /// backslash (a title with quotes in it), and no id searched for holds either.
    private static func escapesMaySpellText(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Bool {
        var index = start
        while index < end {
            if bytes[index] == UInt8(ascii: "\\") {
                guard index + 1 < end else { return true }
                let escaped = bytes[index + 1]
                if escaped != UInt8(ascii: "\"") && escaped != UInt8(ascii: "\\") { return true }
                index += 2
            } else {
                index += 1
            }
        }
        return false
    }

    /// Where `needle` first occurs in `bytes[from..<end]` (the C library's `memmem`).
    private static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from: Int, to end: Int) -> Int? {
        guard let base = bytes.baseAddress, from < end else { return nil }
        let hit = needle.withUnsafeBytes { timeline_memmem(base + from, end - from, $0.baseAddress!, $0.count) }
        return hit.map { base.distance(to: $0) }
    }
}
