/// The record reader's fast paths: a byte scanner for exactly the layout that
/// ``RecordEncoder`` writes, and (``scanAnyOrder(_:)``) for the plainest hand-written
/// lines: the known members only, in any order, with any whitespace.
///
/// It reads `{"seq":N,"type":"T","data":{…},` then optionally, in this order, `"at"`,
/// `"v"` (only `1`), `"cmd"`, `"more"`, `"sub"`, `"undo"` and `"crc"`, with no whitespace, the data's fields
/// in the contract's order, and an optional `\n` or `\r\n` at the end. At the first
/// surprise — another order, whitespace, an unknown member, another version, an escape
/// in a date, a bad date, a checksum that does not match — it gives up and returns
/// `nil`, and the caller takes the general path, which accepts or explains the line.
/// So the fast path never reports an error of its own, and never accepts a line the
/// general path would refuse.
///
/// It allocates nothing but the strings, dates and facts array of its result.
struct FastRecordScanner {
    let p: UnsafePointer<UInt8>
    let n: Int
    var i = 0

    init(_ p: UnsafePointer<UInt8>, _ n: Int) {
        self.p = p
        self.n = n
    }

    /// Reads a line in the store's layout, or returns `nil` at the first surprise.
    static func scan(_ line: UnsafeRawBufferPointer) -> DecodedLine? {
        guard let base = line.baseAddress else { return nil }
        let p = base.assumingMemoryBound(to: UInt8.self)
        var n = line.count
        if n > 0, p[n - 1] == 0x0A {
            n -= 1
            if n > 0, p[n - 1] == 0x0D { n -= 1 }
        }
        guard UTF8Validation.firstInvalidOffset(p, count: n) == nil else { return nil }
        var scanner = FastRecordScanner(p, n)
        return scanner.scanRecord()
    }

    private mutating func scanRecord() -> DecodedLine? {
        guard literal("{\"seq\":"), let seq = unsignedInteger(),
              literal(",\"type\":\""), let type = factType(),
              literal(",\"data\":{"), let fact = data(of: type), literal("}") else { return nil }
        var recordedAt: DateValue?
        if literal(",\"at\":") {
            guard let date = date() else { return nil }
            recordedAt = date
        }
        if literal(",\"v\":") {
            guard let version = unsignedInteger(), version == Record.currentVersion else { return nil }
        }
        var commandID: String?
        if literal(",\"cmd\":") {
            guard let text = string() else { return nil }
            commandID = text
        }
        var batchRemainder = 0
        if literal(",\"more\":") {
            guard let more = unsignedInteger() else { return nil }
            batchRemainder = Int(more)
        }
        var submission: String?
        if literal(",\"sub\":") {
            guard let text = string() else { return nil }
            submission = text
        }
        var undoes: Int64?
        if literal(",\"undo\":") {
            guard let value = unsignedInteger(), value >= 1 else { return nil }
            undoes = value
        }
        if i < n, p[i] == 0x2C {
            let covered = i
            guard literal(",\"crc\":\""), i + 9 <= n, p[i + 8] == 0x22,
                  let stored = lowercaseHex8(at: i),
                  CRC32C.checksum(UnsafeRawBufferPointer(start: p, count: covered)) == stored else { return nil }
            i += 9
        }
        guard literal("}"), i == n else { return nil }
        return DecodedLine(seq: seq, facts: [fact], recordedAt: recordedAt, commandID: commandID,
                           batchRemainder: batchRemainder, submission: submission, undoes: undoes)
    }

    private mutating func data(of type: FactType) -> Fact? {
        switch type {
        case .timelineCreated, .timelineRenamed:
            guard literal("\"timeline\":"), let timeline = string(), literal(",\"name\":"), let name = string() else {
                return nil
            }
            return type == .timelineCreated
                ? .timelineCreated(timeline: TimelineID(timeline), name: name)
                : .timelineRenamed(timeline: TimelineID(timeline), name: name)
        case .timelineRemoved:
            guard literal("\"timeline\":"), let timeline = string() else { return nil }
            return .timelineRemoved(timeline: TimelineID(timeline))
        case .eventAdded:
            guard let event = event(), literal(",\"timeline\":"), let timeline = string(),
                  literal(",\"title\":"), let title = string(), literal(",\"date\":"), let date = date() else {
                return nil
            }
            return .eventAdded(event: event, timeline: TimelineID(timeline), title: title, date: date)
        case .eventRetitled:
            guard let event = event(), literal(",\"title\":"), let title = string() else { return nil }
            return .eventRetitled(event: event, title: title)
        case .dateSet:
            guard let event = event(), literal(",\"date\":"), let date = date() else { return nil }
            return .dateSet(event: event, date: date)
        case .rangeSet:
            guard let event = event(), literal(",\"start\":"), let start = date(), literal(",\"end\":") else {
                return nil
            }
            if literal("null") { return .rangeSet(event: event, start: start, end: nil) }
            guard let end = date() else { return nil }
            return .rangeSet(event: event, start: start, end: end)
        case .rangeClosed:
            guard let event = event(), literal(",\"end\":"), let end = date() else { return nil }
            return .rangeClosed(event: event, end: end)
        case .rangeReopened:
            guard let event = event() else { return nil }
            return .rangeReopened(event: event)
        case .eventMoved:
            guard let event = event(), literal(",\"timeline\":"), let timeline = string() else { return nil }
            return .eventMoved(event: event, timeline: TimelineID(timeline))
        case .eventRemoved:
            guard let event = event() else { return nil }
            return .eventRemoved(event: event)
        case .commandRejected:
            guard literal("\"command\":"), let command = string(), literal(",\"rule\":"), let rule = string(),
                  literal(",\"message\":"), let message = string() else { return nil }
            return .commandRejected(command: command, rule: rule, message: message)
        }
    }

    // MARK: - Pieces

    /// Consumes `text` if the bytes at the cursor are exactly it.
    @inline(__always)
    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard n - i >= count else { return false }
        let expected = text.utf8Start
        for k in 0..<count where p[i + k] != expected[k] { return false }
        i += count
        return true
    }

    /// `"event":"…"`, the first field of every event fact.
    @inline(__always)
    private mutating func event() -> EventID? {
        guard literal("\"event\":"), let text = string() else { return nil }
        return EventID(text)
    }

    /// Digits of a non-negative integer that fits in an `Int64`, without leading zeros.
    @inline(__always)
    mutating func unsignedInteger() -> Int64? {
        let start = i
        var value: UInt64 = 0
        while i < n, p[i] >= 0x30, p[i] <= 0x39 {
            value = value &* 10 &+ UInt64(p[i] - 0x30) // 19 digits cannot overflow a UInt64
            i += 1
        }
        let digits = i - start
        guard digits > 0, digits <= 19, digits == 1 || p[start] != 0x30, value <= UInt64(Int64.max) else {
            return nil
        }
        return Int64(value)
    }

    /// A string, escapes and all, by the same rules as the general path.
    @inline(__always)
    mutating func string() -> String? {
        guard i < n, p[i] == 0x22 else { return nil }
        let start = i + 1
        guard case .success(let span) = JSONStringScanner.scan(p, count: n, from: start) else { return nil }
        i = span.end + 1
        return JSONStringScanner.makeString(p, from: start, to: span.end, hasEscapes: span.hasEscapes)
    }

    /// A date value in a string without escapes, parsed straight from the bytes.
    @inline(__always)
    mutating func date() -> DateValue? {
        guard i < n, p[i] == 0x22 else { return nil }
        let start = i + 1
        var end = start
        while end < n, p[end] != 0x22 {
            // Dates are ASCII; anything else (an escape, a control character, a letter
            // beyond ASCII) is a surprise for the general path to explain.
            guard p[end] >= 0x20, p[end] < 0x80, p[end] != 0x5C else { return nil }
            end += 1
        }
        guard end < n else { return nil }
        let bytes = UnsafeBufferPointer(start: p + start, count: end - start)
        guard case .success(let parsed) = DateValueParser.parse(bytes) else { return nil }
        i = end + 1
        return DateValue(parsed: bytes, instant: parsed.instant, precision: parsed.precision)
    }

    /// The value of the 8 lowercase hexadecimal digits at `offset`.
    @inline(__always)
    private func lowercaseHex8(at offset: Int) -> UInt32? {
        var value: UInt32 = 0
        for k in 0..<8 {
            let c = p[offset + k]
            switch c {
            case 0x30...0x39: value = value << 4 | UInt32(c - 0x30)
            case 0x61...0x66: value = value << 4 | UInt32(c - 0x61 + 10)
            default: return nil
            }
        }
        return value
    }

    /// A record type name and its closing quote.
    @inline(__always)
    mutating func factType() -> FactType? {
        let start = i
        var end = start
        while end < n, p[end] != 0x22 { end += 1 }
        guard end < n else { return nil }
        let candidate: FactType
        switch end - start {
        case 7: candidate = .dateSet
        case 8: candidate = .rangeSet
        case 10: candidate = p[start + 5] == 0x41 ? .eventAdded : .eventMoved
        case 11: candidate = .rangeClosed
        case 12: candidate = .eventRemoved
        case 13: candidate = p[start] == 0x65 ? .eventRetitled : .rangeReopened
        case 15 where p[start] == 0x63:
            candidate = .commandRejected
        case 15:
            switch p[start + 8] {
            case 0x43: candidate = .timelineCreated
            case 0x52: candidate = p[start + 10] == 0x6E ? .timelineRenamed : .timelineRemoved
            default: return nil
            }
        default: return nil
        }
        guard literal(RecordEncoder.typeName(candidate)), literal("\"") else { return nil }
        return candidate
    }
}
