/// Writes records as lines of the log, byte for byte in the store's layout.
///
/// The store's layout (``Layout/store``), members always in this order, no whitespace:
///
///     {"seq":N,"type":"T","data":{…},"at":"…","v":1,"cmd":"…","more":K,"crc":"xxxxxxxx"}
///
/// followed by `\n`. `data` holds the fact's fields in the order of the contract's table
/// (an open range's `end` is written as `null`); `at` and `cmd` are left out when `nil`,
/// `more` when 0. `crc` is the lowercase hexadecimal ``CRC32C`` of every byte of the line
/// before `,"crc"`. Strings are escaped as ``JSONStringWriter`` does.
///
/// The plain layout (``Layout/plain``), for export, leaves out `cmd`, `more` and `crc`.
public struct RecordEncoder: Sendable {
    /// Which members a line carries.
    public enum Layout: Hashable, Sendable {
        /// Everything the store keeps: `seq`, `type`, `data`, `at`, `v`, `cmd`, `more`, `crc`.
        case store
        /// For export: `seq`, `type`, `data`, `at`, `v`; no `cmd`, `more` or `crc`.
        case plain
    }

    /// Which members a line carries.
    public var layout: Layout

    /// Creates an encoder for `layout`.
    public init(layout: Layout = .store) {
        self.layout = layout
    }

    /// Appends `record` as one line, `\n` included, to `buffer`.
    ///
    /// - Precondition: the record holds exactly one fact (the store writes one fact per
    ///   record; a record upcast from an old schema may hold several, and must be split
    ///   into one record per fact, and renumbered, before it is written again), its
    ///   position and batch remainder are not negative.
    public func encode(_ record: Record, into buffer: inout [UInt8]) {
        precondition(record.facts.count == 1,
                     "a record the store writes holds exactly one fact, not \(record.facts.count)")
        encode(record.facts[0], position: record.position, recordedAt: record.recordedAt,
               commandID: record.commandID, batchRemainder: record.batchRemainder, into: &buffer)
    }

    /// `record` as one line, `\n` included.
    public func encode(_ record: Record) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(160)
        encode(record, into: &buffer)
        return buffer
    }

    /// Appends a record of one fact as one line, `\n` included, to `buffer`.
    ///
    /// - Precondition: `position` and `batchRemainder` are not negative.
    public func encode(
        _ fact: Fact,
        position: Int64,
        recordedAt: DateValue? = nil,
        commandID: String? = nil,
        batchRemainder: Int = 0,
        into buffer: inout [UInt8]
    ) {
        precondition(position >= 0, "a record's position is not negative")
        precondition(batchRemainder >= 0, "a record's batch remainder is not negative")
        let lineStart = buffer.count
        buffer.appendLiteral("{\"seq\":")
        buffer.appendDecimal(UInt64(position))
        buffer.appendLiteral(",\"type\":\"")
        buffer.appendLiteral(RecordEncoder.typeName(fact.type))
        buffer.appendLiteral("\",\"data\":{")
        RecordEncoder.appendData(of: fact, to: &buffer)
        buffer.append(0x7D)
        if let recordedAt {
            buffer.appendLiteral(",\"at\":")
            JSONStringWriter.append(recordedAt.text, to: &buffer)
        }
        buffer.appendLiteral(",\"v\":")
        buffer.appendDecimal(UInt64(Record.currentVersion))
        if layout == .store {
            if let commandID {
                buffer.appendLiteral(",\"cmd\":")
                JSONStringWriter.append(commandID, to: &buffer)
            }
            if batchRemainder != 0 {
                buffer.appendLiteral(",\"more\":")
                buffer.appendDecimal(UInt64(batchRemainder))
            }
            let crc = buffer.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[lineStart...])) }
            buffer.appendLiteral(",\"crc\":\"")
            buffer.appendHex8(crc)
            buffer.append(0x22)
        }
        buffer.appendLiteral("}\n")
    }

    /// The fact's fields, in the contract's order, without the braces.
    private static func appendData(of fact: Fact, to buffer: inout [UInt8]) {
        switch fact {
        case .timelineCreated(let timeline, let name), .timelineRenamed(let timeline, let name):
            buffer.appendLiteral("\"timeline\":")
            JSONStringWriter.append(timeline.rawValue, to: &buffer)
            buffer.appendLiteral(",\"name\":")
            JSONStringWriter.append(name, to: &buffer)
        case .timelineRemoved(let timeline):
            buffer.appendLiteral("\"timeline\":")
            JSONStringWriter.append(timeline.rawValue, to: &buffer)
        case .eventAdded(let event, let timeline, let title, let date):
            appendEvent(event, to: &buffer)
            buffer.appendLiteral(",\"timeline\":")
            JSONStringWriter.append(timeline.rawValue, to: &buffer)
            buffer.appendLiteral(",\"title\":")
            JSONStringWriter.append(title, to: &buffer)
            buffer.appendLiteral(",\"date\":")
            JSONStringWriter.append(date.text, to: &buffer)
        case .eventRetitled(let event, let title):
            appendEvent(event, to: &buffer)
            buffer.appendLiteral(",\"title\":")
            JSONStringWriter.append(title, to: &buffer)
        case .dateSet(let event, let date):
            appendEvent(event, to: &buffer)
            buffer.appendLiteral(",\"date\":")
            JSONStringWriter.append(date.text, to: &buffer)
        case .rangeSet(let event, let start, let end):
            appendEvent(event, to: &buffer)
            buffer.appendLiteral(",\"start\":")
            JSONStringWriter.append(start.text, to: &buffer)
            buffer.appendLiteral(",\"end\":")
            if let end {
                JSONStringWriter.append(end.text, to: &buffer)
            } else {
                buffer.appendLiteral("null")
            }
        case .rangeClosed(let event, let end):
            appendEvent(event, to: &buffer)
            buffer.appendLiteral(",\"end\":")
            JSONStringWriter.append(end.text, to: &buffer)
        case .rangeReopened(let event), .eventRemoved(let event):
            appendEvent(event, to: &buffer)
        case .eventMoved(let event, let timeline):
            appendEvent(event, to: &buffer)
            buffer.appendLiteral(",\"timeline\":")
            JSONStringWriter.append(timeline.rawValue, to: &buffer)
        }
    }

    @inline(__always)
    private static func appendEvent(_ event: EventID, to buffer: inout [UInt8]) {
        buffer.appendLiteral("\"event\":")
        JSONStringWriter.append(event.rawValue, to: &buffer)
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
        }
    }
}

fileprivate extension [UInt8] {
    /// Appends the UTF-8 of a static string.
    @inline(__always)
    mutating func appendLiteral(_ literal: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends the decimal digits of `value`.
    @inline(__always)
    mutating func appendDecimal(_ value: UInt64) {
        if value < 10 {
            append(UInt8(truncatingIfNeeded: value) + 0x30)
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // room for 24 digits, UInt64 needs 20
        Swift.withUnsafeMutableBytes(of: &digits) { raw in
            var v = value
            var i = raw.count
            while v > 0 {
                i -= 1
                raw[i] = UInt8(truncatingIfNeeded: v % 10) + 0x30
                v /= 10
            }
            append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[i...]))
        }
    }

    /// Appends `value` as 8 lowercase hexadecimal digits.
    @inline(__always)
    mutating func appendHex8(_ value: UInt32) {
        let hex: StaticString = "0123456789abcdef"
        let digits = hex.utf8Start
        for shift in stride(from: 28, through: 0, by: -4) {
            append(digits[Int(value >> UInt32(shift) & 0xF)])
        }
    }
}
