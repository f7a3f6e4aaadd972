import TimelineCore

/// Writes records as a person or another program might: no checksum, no `v`, `cmd` or
/// `more`, members in another order than the store's, spaces after colons and commas,
/// `seq` left out on every third line, `at` now and then. Only the reader's general
/// path accepts these lines.
enum HandWrittenLayout {
    static func write(_ record: Record, into buffer: inout [UInt8]) {
        let fact = record.facts[0]
        let variant = record.position % 3
        func text(_ string: String) { buffer += Array(string.utf8) }
        func member(_ name: String, _ value: String, last: Bool = false) {
            text("\"\(name)\": ")
            JSONText.quote(value, into: &buffer)
            if !last { text(", ") }
        }
        text(variant == 0 ? "{ " : "{")
        if variant == 1 { text("\"seq\": \(record.position), ") }
        text("\"data\": {")
        writeData(fact, member)
        text("}, ")
        if variant == 2, let at = record.recordedAt { member("at", at.text) }
        text("\"type\": ")
        JSONText.quote(fact.type.rawValue, into: &buffer)
        if variant == 0 { text(", \"seq\": \(record.position) }  ") } else { text("}") }
        buffer.append(0x0A)
    }

    /// The data members in reverse of the contract's order.
    private static func writeData(_ fact: Fact, _ member: (String, String, Bool) -> Void) {
        switch fact {
        case .timelineCreated(let timeline, let name), .timelineRenamed(let timeline, let name):
            member("name", name, false); member("timeline", timeline.rawValue, true)
        case .timelineRemoved(let timeline):
            member("timeline", timeline.rawValue, true)
        case .eventAdded(let event, let timeline, let title, let date):
            member("date", date.text, false); member("title", title, false)
            member("timeline", timeline.rawValue, false); member("event", event.rawValue, true)
        case .eventRetitled(let event, let title):
            member("title", title, false); member("event", event.rawValue, true)
        case .dateSet(let event, let date):
            member("date", date.text, false); member("event", event.rawValue, true)
        case .rangeSet(let event, let start, let end):
            if let end { member("end", end.text, false) }
            member("start", start.text, false); member("event", event.rawValue, true)
        case .rangeClosed(let event, let end):
            member("end", end.text, false); member("event", event.rawValue, true)
        case .rangeReopened(let event), .eventRemoved(let event):
            member("event", event.rawValue, true)
        case .eventMoved(let event, let timeline):
            member("timeline", timeline.rawValue, false); member("event", event.rawValue, true)
        case .commandRejected(let command, let rule, let message):
            member("message", message, false); member("rule", rule, false); member("command", command, true)
        }
    }
}
