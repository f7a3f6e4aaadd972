/// Reads records written under older schema versions as today's facts.
///
/// Each older version that changed the shape of some fact gets one function here, which
/// turns the data of that version straight into current facts (several if needed; a
/// ``Record`` holds them together). Types whose shape a version did not change read as
/// the current version. To retire a schema version N, add `case N` to
/// ``facts(_:version:)`` and write its function; the current version never reaches here.
enum Upcaster {
    /// The facts a record of `version` with `fields` stands for, or `nil` when its data
    /// reads as the current version's.
    ///
    /// - Precondition: `version` is below ``Record/currentVersion``.
    static func facts(_ fields: FactFields, version: Int64) throws(RecordError.Reason) -> [Fact]? {
        switch version {
        case 0: try version0(fields)
        default: nil
        }
    }

    /// Version 0: `eventAdded` carried the event's dates as `start` and an optional `end`:
    /// `end` absent is a single date, `end` null an open range, `end` a date a closed
    /// range. Today an event is added with one date, and a range is set after it. An
    /// `eventAdded` without `start`, and every other type, reads as version 1.
    private static func version0(_ fields: FactFields) throws(RecordError.Reason) -> [Fact]? {
        guard fields.type == .eventAdded, fields.contains("start") else { return nil }
        let event = EventID(try fields.string("event"))
        let timeline = TimelineID(try fields.string("timeline"))
        let title = try fields.string("title")
        let start = try fields.date("start")
        let added = Fact.eventAdded(event: event, timeline: timeline, title: title, date: start)
        switch try fields.value("end") {
        case nil:
            return [added]
        case .null?:
            return [added, .rangeSet(event: event, start: start, end: nil)]
        case .string(let text)?:
            let end = try FactFields.parseDate(text, field: "end", of: .eventAdded)
            return [added, .rangeSet(event: event, start: start, end: end)]
        case let other?:
            throw .wrongFieldType(.eventAdded, field: "end", expected: "a date string or null",
                                  found: other.foundDescription)
        }
    }
}
