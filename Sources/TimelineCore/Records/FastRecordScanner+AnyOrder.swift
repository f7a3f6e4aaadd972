extension FastRecordScanner {
    /// Reads a line that is one JSON object of the known members only — `seq`, `type`,
    /// `data`, `at`, `v` (only `1`), `cmd`, `more`, `sub`, `undo` — each once, in any order, with any
    /// whitespace, and no checksum: how people write logs by hand, and how `export`
    /// writes them. `data` holds only fields a fact has (`event`, `timeline`, `title`,
    /// `name`, `date`, `start`, `end`), each once, strings (and `end` may be `null`).
    ///
    /// At the first surprise — an escape in a name, an unknown member, a repeated one,
    /// another version, `crc`, an escape or a bad date in a date field, a missing field —
    /// it returns `nil`, and the caller takes the general path, which accepts or explains
    /// the line. So, like ``scan(_:)``, it never accepts a line the general path would
    /// refuse, and gives what the general path gives; it builds no JSON values, only the
    /// fact's strings and dates.
    static func scanAnyOrder(_ line: UnsafeRawBufferPointer) -> DecodedLine? {
        guard let base = line.baseAddress else { return nil }
        let p = base.assumingMemoryBound(to: UInt8.self)
        guard UTF8Validation.firstInvalidOffset(p, count: line.count) == nil else { return nil }
        var scanner = FastRecordScanner(p, line.count)
        return scanner.scanAnyOrderRecord()
    }

    private mutating func scanAnyOrderRecord() -> DecodedLine? {
        var seen = Members()
        var seq: Int64?
        var type: FactType?
        var fields = DataFields()
        var recordedAt: DateValue?
        var commandID: String?
        var batchRemainder = 0
        var submission: String?
        var undoes: Int64?
        guard var more = openObject() else { return nil }
        while more {
            guard let name = memberName(seen: &seen) else { return nil }
            switch name {
            case .seq:
                guard let value = unsignedInteger() else { return nil }
                seq = value
            case .type:
                guard literal("\""), let known = factType() else { return nil }
                type = known
            case .data:
                guard dataFields(&fields) else { return nil }
            case .at:
                guard let date = date() else { return nil }
                recordedAt = date
            case .version:
                guard let version = unsignedInteger(), version == Record.currentVersion else { return nil }
            case .command:
                guard let text = string() else { return nil }
                commandID = text
            case .more:
                guard let value = unsignedInteger() else { return nil }
                batchRemainder = Int(value)
            case .submission:
                guard let text = string() else { return nil }
                submission = text
            case .undo:
                guard let value = unsignedInteger(), value >= 1 else { return nil }
                undoes = value
            default:
                return nil
            }
            guard let next = nextMember() else { return nil }
            more = next
        }
        skipWhitespace()
        guard i == n, seen.contains(.data), let type, let fact = try? FactReader.fact(type, fields) else { return nil }
        return DecodedLine(seq: seq, facts: [fact], recordedAt: recordedAt, commandID: commandID,
                           batchRemainder: batchRemainder, submission: submission, undoes: undoes)
    }

    /// Reads the object of `data` into `fields`, each field once.
    private mutating func dataFields(_ fields: inout DataFields) -> Bool {
        var seen = Members()
        var endIsNull = false
        guard var more = openObject() else { return false }
        while more {
            guard let name = memberName(seen: &seen) else { return false }
            switch name {
            case .event: fields.event = string()
            case .timeline: fields.timeline = string()
            case .title: fields.title = string()
            case .name: fields.name = string()
            case .commandField: fields.command = string()
            case .rule: fields.rule = string()
            case .message: fields.message = string()
            case .date: fields.date = date()
            case .start: fields.start = date()
            case .end:
                endIsNull = literal("null")
                if !endIsNull { fields.end = date() }
            default: return false
            }
            // Each field is read into a slot of its own: it was read if the slot is set
            // (an end may be `null`, which leaves it unset).
            guard fields.has(name) || name == .end && endIsNull else { return false }
            guard let next = nextMember() else { return false }
            more = next
        }
        return true
    }

    /// Reads `{` and whitespace: whether a member follows (`false` for `{}`), or `nil`.
    private mutating func openObject() -> Bool? {
        skipWhitespace()
        guard i < n, p[i] == 0x7B else { return nil }
        i += 1
        skipWhitespace()
        guard i < n, p[i] == 0x7D else { return true }
        i += 1
        return false
    }

    /// Reads whitespace, then `,` and whitespace (`true`: a member follows) or `}`
    /// (`false`); `nil` for anything else.
    private mutating func nextMember() -> Bool? {
        skipWhitespace()
        guard i < n else { return nil }
        if p[i] == 0x7D {
            i += 1
            return false
        }
        guard p[i] == 0x2C else { return nil }
        i += 1
        skipWhitespace()
        return true
    }

    /// A known member's name, written without escapes and not in `seen` (then added),
    /// and the colon after it.
    private mutating func memberName(seen: inout Members) -> Members? {
        guard i < n, p[i] == 0x22 else { return nil }
        let start = i + 1
        var end = start
        // A control character is not JSON; refusing it (NUL above all) also makes the
        // word below stand for one name: no known name ends in zero bytes.
        while end < n, p[end] != 0x22, p[end] >= 0x20, end - start < 9 { end += 1 }
        // Every known name is at most 8 bytes: one word, compared at once.
        guard end < n, p[end] == 0x22, end - start <= 8 else { return nil }
        var word: UInt64 = 0
        for k in (start..<end).reversed() { word = word << 8 | UInt64(p[k]) }
        guard let name = Self.names[word], !seen.contains(name) else { return nil }
        seen.insert(name)
        i = end + 1
        skipWhitespace()
        guard i < n, p[i] == 0x3A else { return nil }
        i += 1
        skipWhitespace()
        return name
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    private mutating func skipWhitespace() {
        while i < n, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0A || p[i] == 0x0D { i += 1 }
    }

    /// The known names, each as the little-endian word of its bytes.
    private static let names: [UInt64: Members] = {
        let all: [(String, Members)] = [
            ("seq", .seq), ("type", .type), ("data", .data), ("at", .at), ("v", .version), ("cmd", .command),
            ("more", .more), ("event", .event), ("timeline", .timeline), ("title", .title), ("name", .name),
            ("date", .date), ("start", .start), ("end", .end), ("sub", .submission), ("command", .commandField),
            ("rule", .rule), ("message", .message), ("undo", .undo),
        ]
        var names: [UInt64: Members] = [:]
        for (text, name) in all {
            names[text.utf8.reversed().reduce(0) { $0 << 8 | UInt64($1) }] = name
        }
        return names
    }()
}

/// The names of the members a record and its data may have, as a set of bits.
private struct Members: OptionSet, Hashable, Sendable {
    let rawValue: UInt32
    static let seq = Members(rawValue: 1 << 0)
    static let type = Members(rawValue: 1 << 1)
    static let data = Members(rawValue: 1 << 2)
    static let at = Members(rawValue: 1 << 3)
    static let version = Members(rawValue: 1 << 4)
    static let command = Members(rawValue: 1 << 5)
    static let more = Members(rawValue: 1 << 6)
    static let event = Members(rawValue: 1 << 7)
    static let timeline = Members(rawValue: 1 << 8)
    static let title = Members(rawValue: 1 << 9)
    static let name = Members(rawValue: 1 << 10)
    static let date = Members(rawValue: 1 << 11)
    static let start = Members(rawValue: 1 << 12)
    static let end = Members(rawValue: 1 << 13)
    static let submission = Members(rawValue: 1 << 14)
    static let commandField = Members(rawValue: 1 << 15)
    static let rule = Members(rawValue: 1 << 16)
    static let message = Members(rawValue: 1 << 17)
    static let undo = Members(rawValue: 1 << 18)
}

/// The fields of a record's `data`, as ``FactReader`` asks for them: a fact takes the
/// fields it names and ignores the others.
private struct DataFields: FactFieldSource {
    var event: String?
    var timeline: String?
    var title: String?
    var name: String?
    var date: DateValue?
    var start: DateValue?
    var end: DateValue?
    var command: String?
    var rule: String?
    var message: String?

    /// Whether the field `name` is set.
    func has(_ name: Members) -> Bool {
        switch name {
        case .event: event != nil
        case .timeline: timeline != nil
        case .title: title != nil
        case .name: self.name != nil
        case .date: date != nil
        case .start: start != nil
        case .end: end != nil
        case .commandField: command != nil
        case .rule: rule != nil
        case .message: message != nil
        default: false
        }
    }

    func string(_ name: String) throws(RecordError.Reason) -> String {
        let value: String? = switch name {
        case "event": event
        case "timeline": timeline
        case "title": title
        case "name": self.name
        case "command": command
        case "rule": rule
        case "message": message
        default: nil
        }
        guard let value else { throw Self.missing(name) }
        return value
    }

    func date(_ name: String) throws(RecordError.Reason) -> DateValue {
        guard let value = try optionalDate(name) else { throw Self.missing(name) }
        return value
    }

    func optionalDate(_ name: String) throws(RecordError.Reason) -> DateValue? {
        switch name {
        case "date": date
        case "start": start
        case "end": end
        default: nil
        }
    }

    /// What a missing field is, for ``FactReader``; the fast path gives up on it, and the
    /// general path names it with the record's type.
    private static func missing(_ name: String) -> RecordError.Reason { .missingMember(name) }
}
