/// Writes records as lines of the log, byte for byte in the store's layout.
///
/// The store's layout (``Layout/store``), members always in this order, no whitespace:
///
///     {"seq":N,"type":"T","data":{…},"at":"…","v":1,"cmd":"…","more":K,"sub":"…","undo":U,"crc":"xxxxxxxx"}
///
/// followed by `\n`. `data` holds the fact's fields in the order of the contract's table
/// (an open range's `end` is written as `null`); `at`, `cmd`, `sub` and `undo` are left out
/// when `nil`, `more` when 0. `crc` is the lowercase hexadecimal ``CRC32C`` of every byte of the line
/// before `,"crc"`. In strings, `"`, `\` and control characters (below U+0020) are
/// escaped (`\n` `\t` `\r` `\b` `\f`, else `\u00XX`); everything else, non-ASCII
/// included, is written as raw UTF-8.
///
/// The plain layout (``Layout/plain``), for export, leaves out `crc` only: `cmd` and `more`
/// are part of the record format, so an export replays with the same batches and command
/// ids, and `sub` and `undo` keep a shared log's outcomes and undos what they are.
package struct RecordEncoder: Sendable {
    /// Which members a line carries.
    package enum Layout: Hashable, Sendable {
        /// Everything the store keeps: `seq`, `type`, `data`, `at`, `v`, `cmd`, `more`, `sub`, `undo`, `crc`.
        case store
        /// For export: `seq`, `type`, `data`, `at`, `v`, `cmd`, `more`, `sub`, `undo`; no `crc`.
        case plain
    }

    /// Which members a line carries.
    package var layout: Layout

    /// Creates an encoder for `layout`.
    package init(layout: Layout = .store) {
        self.layout = layout
    }

    /// Appends `record` as one line, `\n` included, to `buffer`.
    ///
    /// - Precondition: the record holds exactly one fact (the store writes one fact per
    ///   record; a record upcast from an old schema may hold several, and must be split
    ///   into one record per fact, and renumbered, before it is written again), its
    ///   position and batch remainder are not negative.
    package func encode(_ record: Record, into buffer: inout [UInt8]) {
        precondition(record.facts.count == 1,
                     "a record the store writes holds exactly one fact, not \(record.facts.count)")
        encode(record.facts[0], position: record.position, recordedAt: record.recordedAt,
               commandID: record.commandID, batchRemainder: record.batchRemainder, submission: record.submission,
               undoes: record.undoes, into: &buffer)
    }

    /// `record` as one line, `\n` included.
    package func encode(_ record: Record) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(160)
        encode(record, into: &buffer)
        return buffer
    }

    /// Appends a record of one fact as one line, `\n` included, to `buffer`.
    ///
    /// - Precondition: `position` and `batchRemainder` are not negative.
    package func encode(
        _ fact: Fact,
        position: Int64,
        recordedAt: DateValue? = nil,
        commandID: String? = nil,
        batchRemainder: Int = 0,
        submission: String? = nil,
        undoes: Int64? = nil,
        into buffer: inout [UInt8]
    ) {
        precondition(position >= 0, "a record's position is not negative")
        precondition(batchRemainder >= 0, "a record's batch remainder is not negative")
        // The line is written into scratch memory (on the stack when it is small) and
        // appended in one copy: far cheaper than many small appends to the array.
        // A store's own stamp is written from its instant, without making its text.
        let utcInstant = recordedAt?.utcInstant
        let writtenAt = utcInstant == nil ? recordedAt?.text : nil
        let capacity = RecordEncoder.capacity(of: fact, writtenAt: writtenAt, hasStamp: utcInstant != nil,
                                              commandID: commandID, submission: submission)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            var line = LineWriter(scratch.baseAddress!)
            line.literal("{\"seq\":")
            line.decimal(UInt64(position))
            line.literal(",\"type\":\"")
            line.literal(RecordEncoder.typeName(fact.type))
            line.literal("\",\"data\":{")
            RecordEncoder.writeData(of: fact, to: &line)
            line.byte(0x7D)
            if let utcInstant {
                line.literal(",\"at\":\"")
                line.utcText(of: utcInstant)
                line.byte(0x22)
            } else if let writtenAt {
                line.literal(",\"at\":")
                line.string(writtenAt)
            }
            line.literal(",\"v\":")
            line.decimal(UInt64(Record.currentVersion))
            if let commandID {
                line.literal(",\"cmd\":")
                line.string(commandID)
            }
            if batchRemainder != 0 {
                line.literal(",\"more\":")
                line.decimal(UInt64(batchRemainder))
            }
            if let submission {
                line.literal(",\"sub\":")
                line.string(submission)
            }
            if let undoes {
                precondition(undoes >= 1, "an undone batch's position is 1 or more")
                line.literal(",\"undo\":")
                line.decimal(UInt64(undoes))
            }
            if layout == .store {
                let crc = CRC32C.checksum(UnsafeRawBufferPointer(start: line.start, count: line.count))
                line.literal(",\"crc\":\"")
                line.hex8(crc)
                line.byte(0x22)
            }
            line.literal("}\n")
            assert(line.count <= capacity)
            buffer.append(contentsOf: UnsafeBufferPointer(start: line.start, count: line.count))
        }
    }

    /// Appends `records` as lines renumbered from `position + 1`, one line per fact, and
    /// advances `position` past them.
    ///
    /// A record upcast from an old schema that stands for several facts becomes several
    /// lines of one batch, so each line's `more` counts the lines left in its batch, not
    /// the records. Batches are expected whole in `records`; one that goes on past its last
    /// record (`more` > 0 there) is taken to go on by that many lines of one fact each.
    /// - Complexity: O(*n*) for *n* facts.
    package func encodeRenumbered(_ records: some BidirectionalCollection<Record>, after position: inout Int64,
                                  into buffer: inout [UInt8]) {
        // The lines left in each record's batch after its last fact, found backwards.
        var linesAfter = [Int](repeating: 0, count: records.count)
        var following = 0
        var slot = records.count
        var next: Record?
        for record in records.reversed() {
            slot -= 1
            following = next.map { $0.facts.count + following } ?? record.batchRemainder
            if record.batchRemainder == 0 { following = 0 }
            linesAfter[slot] = following
            next = record
        }
        for (slot, record) in records.enumerated() {
            for (offset, fact) in record.facts.enumerated() {
                position += 1
                encode(fact, position: position, recordedAt: record.recordedAt, commandID: record.commandID,
                       batchRemainder: record.facts.count - 1 - offset + linesAfter[slot],
                       submission: record.submission, undoes: record.undoes, into: &buffer)
            }
        }
    }

    /// An upper bound of the length of the line of a record of `fact` with this time and
    /// command id, `\n` included, whatever its position: no such line is longer, whatever
    /// its strings hold (every byte of them may need escaping).
    /// - Complexity: O(1) for native strings.
    package static func lineLengthBound(of fact: Fact, recordedAt: DateValue?, commandID: String?,
                                        submission: String? = nil) -> Int {
        let utcInstant = recordedAt?.utcInstant
        return capacity(of: fact, writtenAt: utcInstant == nil ? recordedAt?.text : nil,
                        hasStamp: utcInstant != nil, commandID: commandID, submission: submission)
    }

    /// The room a line of `fact` needs at most: its strings, each byte escaped in the worst
    /// case, and everything else. The stamp's digits need no escaping: its room is added as it is.
    private static func capacity(of fact: Fact, writtenAt: String?, hasStamp: Bool, commandID: String?,
                                 submission: String?) -> Int {
        var textLength = textLength(of: fact)
        if let submission { textLength += submission.utf8.count }
        if let writtenAt { textLength += writtenAt.utf8.count }
        if let commandID { textLength += commandID.utf8.count }
        return fixedLengthBound + JSONStringWriter.maximumLength(utf8Count: textLength) + 2 * maximumStringCount
            + (hasStamp ? InstantFormatter.maximumLength : 0)
    }

    /// Room for everything but the strings: the longest member names, `seq`, `more` and
    /// `undo` of 20 digits, the checksum.
    private static let fixedLengthBound = 256
    /// The most strings a line holds (four in `data`, `at`, `cmd`, `sub`), for their quotes.
    private static let maximumStringCount = 7

    /// The UTF-8 length of all the strings of a fact's data.
    private static func textLength(of fact: Fact) -> Int {
        switch fact {
        case .timelineCreated(let timeline, let name), .timelineRenamed(let timeline, let name):
            timeline.rawValue.utf8.count + name.utf8.count
        case .timelineRemoved(let timeline):
            timeline.rawValue.utf8.count
        case .eventAdded(let event, let timeline, let title, let date):
            event.rawValue.utf8.count + timeline.rawValue.utf8.count + title.utf8.count + date.text.utf8.count
        case .eventRetitled(let event, let title):
            event.rawValue.utf8.count + title.utf8.count
        case .dateSet(let event, let date), .rangeClosed(let event, let date):
            event.rawValue.utf8.count + date.text.utf8.count
        case .rangeSet(let event, let start, let end):
            event.rawValue.utf8.count + start.text.utf8.count + (end?.text.utf8.count ?? 0)
        case .rangeReopened(let event), .eventRemoved(let event):
            event.rawValue.utf8.count
        case .eventMoved(let event, let timeline):
            event.rawValue.utf8.count + timeline.rawValue.utf8.count
        case .commandRejected(let command, let rule, let message):
            command.utf8.count + rule.utf8.count + message.utf8.count
        }
    }

    /// The fact's fields, in the contract's order, without the braces.
    private static func writeData(of fact: Fact, to line: inout LineWriter) {
        switch fact {
        case .timelineCreated(let timeline, let name), .timelineRenamed(let timeline, let name):
            line.literal("\"timeline\":")
            line.string(timeline.rawValue)
            line.literal(",\"name\":")
            line.string(name)
        case .timelineRemoved(let timeline):
            line.literal("\"timeline\":")
            line.string(timeline.rawValue)
        case .eventAdded(let event, let timeline, let title, let date):
            writeEvent(event, to: &line)
            line.literal(",\"timeline\":")
            line.string(timeline.rawValue)
            line.literal(",\"title\":")
            line.string(title)
            line.literal(",\"date\":")
            line.string(date.text)
        case .eventRetitled(let event, let title):
            writeEvent(event, to: &line)
            line.literal(",\"title\":")
            line.string(title)
        case .dateSet(let event, let date):
            writeEvent(event, to: &line)
            line.literal(",\"date\":")
            line.string(date.text)
        case .rangeSet(let event, let start, let end):
            writeEvent(event, to: &line)
            line.literal(",\"start\":")
            line.string(start.text)
            line.literal(",\"end\":")
            if let end {
                line.string(end.text)
            } else {
                line.literal("null")
            }
        case .rangeClosed(let event, let end):
            writeEvent(event, to: &line)
            line.literal(",\"end\":")
            line.string(end.text)
        case .rangeReopened(let event), .eventRemoved(let event):
            writeEvent(event, to: &line)
        case .eventMoved(let event, let timeline):
            writeEvent(event, to: &line)
            line.literal(",\"timeline\":")
            line.string(timeline.rawValue)
        case .commandRejected(let command, let rule, let message):
            line.literal("\"command\":")
            line.string(command)
            line.literal(",\"rule\":")
            line.string(rule)
            line.literal(",\"message\":")
            line.string(message)
        }
    }

    @inline(__always)
    private static func writeEvent(_ event: EventID, to line: inout LineWriter) {
        line.literal("\"event\":")
        line.string(event.rawValue)
    }

    /// The record `type` of a fact type, as a static string (no allocation).
    static func typeName(_ type: FactType) -> StaticString {
        switch type {
        case .timelineCreated: "timelineCreated"
        case .timelineRenamed: "timelineRenamed"
        case .timelineRemoved: "timelineRemoved"
        case .eventAdded: "eventAdded"
        case .eventRetitled: "eventRetitled"
        case .dateSet: "dateSet"
        case .rangeSet: "rangeSet"
        case .rangeClosed: "rangeClosed"
        case .rangeReopened: "rangeReopened"
        case .eventMoved: "eventMoved"
        case .eventRemoved: "eventRemoved"
        case .commandRejected: "commandRejected"
        }
    }
}

/// Writes the bytes of one line into memory that the caller has sized for it.
private struct LineWriter {
    let start: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(_ start: UnsafeMutablePointer<UInt8>) { self.start = start }

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        start[count] = value
        count += 1
    }

    @inline(__always)
    mutating func literal(_ text: StaticString) {
        let length = text.utf8CodeUnitCount
        UnsafeMutableRawPointer(start + count).copyMemory(from: text.utf8Start, byteCount: length)
        count += length
    }

    @inline(__always)
    mutating func string(_ text: String) {
        count += JSONStringWriter.write(text, to: start + count)
    }

    /// The UTC text of an instant (which needs no escaping), without its quotes.
    @inline(__always)
    mutating func utcText(of instant: Instant) {
        count += InstantFormatter.write(instant, to: start + count)
    }

    @inline(__always)
    mutating func decimal(_ value: UInt64) {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var v = value
        for k in stride(from: digits - 1, through: 0, by: -1) {
            start[count + k] = UInt8(truncatingIfNeeded: v % 10) + 0x30
            v /= 10
        }
        count += digits
    }

    @inline(__always)
    mutating func hex8(_ value: UInt32) {
        for k in 0..<8 {
            let nibble = UInt8(truncatingIfNeeded: value >> UInt32(28 - 4 * k)) & 0xF
            start[count + k] = nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10
        }
        count += 8
    }
}
