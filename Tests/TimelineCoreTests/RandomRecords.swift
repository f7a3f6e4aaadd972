import TimelineTestSupport

@testable import TimelineCore

/// Random records for property tests: text full of what escaping gets wrong (quotes,
/// backslashes, control characters, non-ASCII, emoji and other astral characters),
/// dates of every precision, optional metadata.
struct RandomRecords {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    static let ascii = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,-_:'!?()".unicodeScalars)
    static let special: [Unicode.Scalar] = ["\"", "\\", "/", "\"", "\\"]
    static let controls: [Unicode.Scalar] = (0..<0x20).map { Unicode.Scalar(UInt8($0)) } + ["\u{7F}"]
    static let nonASCII: [Unicode.Scalar] = [
        "é", "ß", "Ω", "中", "日", "\u{301}", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}", "\u{FFFF}",
        "\u{200D}", "\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}",
    ]
    static let astral: [Unicode.Scalar] = ["😀", "𝄞", "\u{10FFFF}", "\u{1F3FD}", "\u{10000}", "👍", "🇫", "🇷"]

    mutating func text(maxLength: Int = 40) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...maxLength, using: &rng) {
            let pool: [Unicode.Scalar]
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6: pool = Self.ascii
            case 6: pool = Self.special
            case 7: pool = Self.controls
            case 8: pool = Self.nonASCII
            default: pool = Self.astral
            }
            scalars.append(pool.randomElement(using: &rng)!)
        }
        return String(scalars)
    }

    mutating func date() throws -> DateValue {
        func pad(_ value: Int, _ width: Int) -> String {
            String(value).leftPadded(to: width)
        }
        let precision = Int.random(in: 0...5, using: &rng)
        let year = Int.random(in: 1...9999, using: &rng)
        let month = Int.random(in: 1...12, using: &rng)
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        var text = pad(year, 4)
        if precision >= 1 { text += "-" + pad(month, 2) }
        if precision >= 2 { text += "-" + pad(Int.random(in: 1...days, using: &rng), 2) }
        if precision >= 3 {
            text += "T" + pad(Int.random(in: 0...23, using: &rng), 2) + ":" + pad(Int.random(in: 0...59, using: &rng), 2)
            if precision >= 4 { text += ":" + pad(Int.random(in: 0...59, using: &rng), 2) }
            if precision == 5 {
                text += "." + (0..<Int.random(in: 1...9, using: &rng)).map { _ in
                    String(Int.random(in: 0...9, using: &rng))
                }.joined()
            }
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: text += "Z"
            default:
                text += (Bool.random(using: &rng) ? "+" : "-") + pad(Int.random(in: 0...23, using: &rng), 2) + ":"
                    + pad(Int.random(in: 0...59, using: &rng), 2)
            }
        }
        return try DateValue(parsing: text)
    }

    mutating func fact(of type: FactType? = nil) throws -> Fact {
        let type = type ?? FactType.allCases.randomElement(using: &rng)!
        switch type {
        case .timelineCreated: return .timelineCreated(timeline: TimelineID(text()), name: text())
        case .timelineRenamed: return .timelineRenamed(timeline: TimelineID(text()), name: text())
        case .timelineRemoved: return .timelineRemoved(timeline: TimelineID(text()))
        case .eventAdded:
            return .eventAdded(event: EventID(text()), timeline: TimelineID(text()), title: text(), date: try date())
        case .eventRetitled: return .eventRetitled(event: EventID(text()), title: text())
        case .dateSet: return .dateSet(event: EventID(text()), date: try date())
        case .rangeSet:
            return .rangeSet(event: EventID(text()), start: try date(), end: Bool.random(using: &rng) ? try date() : nil)
        case .rangeClosed: return .rangeClosed(event: EventID(text()), end: try date())
        case .rangeReopened: return .rangeReopened(event: EventID(text()))
        case .eventMoved: return .eventMoved(event: EventID(text()), timeline: TimelineID(text()))
        case .eventRemoved: return .eventRemoved(event: EventID(text()))
        case .commandRejected: return .commandRejected(command: text(), rule: text(), message: text())
        }
    }

    mutating func record() throws -> Record {
        let position: Int64 = switch Int.random(in: 0..<4, using: &rng) {
        case 0: Int64.random(in: 1...9, using: &rng)
        case 1: Int64.random(in: 1...Int64.max, using: &rng)
        default: Int64.random(in: 1...1_000_000, using: &rng)
        }
        return Record(
            position: position,
            fact: try fact(),
            recordedAt: Bool.random(using: &rng) ? try date() : nil,
            commandID: Bool.random(using: &rng) ? text(maxLength: 12) : nil,
            batchRemainder: Bool.random(using: &rng) ? 0 : Int.random(in: 0...1_000, using: &rng),
            submission: Int.random(in: 0..<4, using: &rng) == 0 ? text(maxLength: 12) : nil,
            undoes: position > 1 && Int.random(in: 0..<4, using: &rng) == 0
                ? Int64.random(in: 1...(position - 1), using: &rng) : nil)
    }
}

/// Writes records the way a person or another program might: members in any order,
/// whitespace anywhere, characters escaped as `\u00e9` or `\ud83d\ude00`, unknown
/// members, no checksum.
struct HandWriter {
    var rng: SplitMix64
    /// Only the known members, with names, the type and dates written without escapes
    /// (what the reader's fast path for any order takes); other strings are still
    /// escaped at random.
    var plain = false

    mutating func whitespace() -> String {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: " "
        case 1: "\t"
        case 2: "\t "
        case 3: "  "
        default: ""
        }
    }

    mutating func hex4(_ unit: UInt32) -> String {
        let hex = String(unit, radix: 16, uppercase: Bool.random(using: &rng)).leftPadded(to: 4)
        return "\\u" + hex
    }

    /// `text` as a JSON string literal, with random (valid) choices of escapes.
    mutating func string(_ text: String, escapes: Bool = true) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            let escape = escapes && Int.random(in: 0..<4, using: &rng) == 0
            switch scalar.value {
            case 0x22: out += escape ? hex4(0x22) : "\\\""
            case 0x5C: out += escape ? hex4(0x5C) : "\\\\"
            case 0x2F: out += escape ? "\\/" : "/"
            case 0x08: out += escape ? hex4(0x08) : "\\b"
            case 0x09: out += escape ? hex4(0x09) : "\\t"
            case 0x0A: out += escape ? hex4(0x0A) : "\\n"
            case 0x0C: out += escape ? hex4(0x0C) : "\\f"
            case 0x0D: out += escape ? hex4(0x0D) : "\\r"
            case 0..<0x20: out += hex4(scalar.value)
            case 0x10000...:
                if escape {
                    let v = scalar.value - 0x10000
                    out += hex4(0xD800 + (v >> 10)) + hex4(0xDC00 + (v & 0x3FF))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            default:
                if escape { out += hex4(scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    mutating func unknownValue() -> String {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: "-1.5e3"
        case 1: "true"
        case 2: "null"
        case 3: #"{"a":[1,{"b":"\u00e9"}],"seq":"not this one"}"#
        case 4: "[]"
        default: string("ünknown \"x\"")
        }
    }

    /// The fields of a fact's data, as (name, JSON text).
    mutating func fields(_ fact: Fact) -> [(String, String)] {
        switch fact {
        case .timelineCreated(let timeline, let name), .timelineRenamed(let timeline, let name):
            return [("timeline", string(timeline.rawValue)), ("name", string(name))]
        case .timelineRemoved(let timeline):
            return [("timeline", string(timeline.rawValue))]
        case .eventAdded(let event, let timeline, let title, let date):
            return [("event", string(event.rawValue)), ("timeline", string(timeline.rawValue)),
                    ("title", string(title)), ("date", dateText(date))]
        case .eventRetitled(let event, let title):
            return [("event", string(event.rawValue)), ("title", string(title))]
        case .dateSet(let event, let date):
            return [("event", string(event.rawValue)), ("date", dateText(date))]
        case .rangeSet(let event, let start, let end):
            var fields = [("event", string(event.rawValue)), ("start", dateText(start))]
            if let end {
                fields.append(("end", dateText(end)))
            } else if Bool.random(using: &rng) {
                fields.append(("end", "null"))
            }
            return fields
        case .rangeClosed(let event, let end):
            return [("event", string(event.rawValue)), ("end", dateText(end))]
        case .rangeReopened(let event), .eventRemoved(let event):
            return [("event", string(event.rawValue))]
        case .eventMoved(let event, let timeline):
            return [("event", string(event.rawValue)), ("timeline", string(timeline.rawValue))]
        case .commandRejected(let command, let rule, let message):
            return [("command", string(command)), ("rule", string(rule)), ("message", string(message))]
        }
    }

    mutating func dateText(_ date: DateValue) -> String {
        string(date.text, escapes: !plain)
    }

    mutating func object(_ members: [(String, String)]) -> String {
        var members = members
        members.shuffle(using: &rng)
        var out = "{" + whitespace()
        for (index, (name, value)) in members.enumerated() {
            if index > 0 { out += whitespace() + "," + whitespace() }
            out += string(name, escapes: !plain) + whitespace() + ":" + whitespace() + value
        }
        return out + whitespace() + "}"
    }

    /// A hand-written line for `record` (one fact), with or without `seq`.
    mutating func line(_ record: Record, withSeq: Bool) -> String {
        let fact = record.facts[0]
        var data = fields(fact)
        if !plain && Bool.random(using: &rng) { data.append(("note", unknownValue())) }
        var members: [(String, String)] = [("type", string(fact.type.rawValue, escapes: !plain)), ("data", object(data))]
        if withSeq { members.append(("seq", String(record.position))) }
        if let at = record.recordedAt { members.append(("at", dateText(at))) }
        if Bool.random(using: &rng) { members.append(("v", "1")) }
        if let command = record.commandID { members.append(("cmd", string(command))) }
        if let submission = record.submission { members.append(("sub", string(submission))) }
        if let undoes = record.undoes { members.append(("undo", String(undoes))) }
        if record.batchRemainder != 0 || Bool.random(using: &rng) {
            members.append(("more", String(record.batchRemainder)))
        }
        for name in ["x-extra", "comment"] where !plain && Bool.random(using: &rng) {
            members.append((name, unknownValue()))
        }
        return whitespace() + object(members) + whitespace()
    }
}
