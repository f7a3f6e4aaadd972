/// A record's `data` as a reader found it: the fields ``FactReader`` asks for by name
/// (``FactFields`` from parsed JSON, or the fast path's scanned fields).
protocol FactFieldSource {
    /// A required string field.
    func string(_ name: String) throws(RecordError.Reason) -> String
    /// A required date field.
    func date(_ name: String) throws(RecordError.Reason) -> DateValue
    /// An optional date field: absent or `null` give `nil`.
    func optionalDate(_ name: String) throws(RecordError.Reason) -> DateValue?
}

/// Reads the `data` of a record of the current schema version as a fact: the one table
/// of which fields each type of fact has.
enum FactReader {
    /// The fact of `type` whose fields are `fields`, following the contract's table:
    /// timelineCreated {timeline,name}; timelineRenamed {timeline,name};
    /// timelineRemoved {timeline}; eventAdded {event,timeline,title,date};
    /// eventRetitled {event,title}; dateSet {event,date}; rangeSet {event,start,end}
    /// (end absent or null: open); rangeClosed {event,end}; rangeReopened {event};
    /// eventMoved {event,timeline}; eventRemoved {event};
    /// commandRejected {command,rule,message}.
    static func fact(_ type: FactType, _ fields: some FactFieldSource) throws(RecordError.Reason) -> Fact {
        switch type {
        case .timelineCreated:
            .timelineCreated(timeline: TimelineID(try fields.string("timeline")), name: try fields.string("name"))
        case .timelineRenamed:
            .timelineRenamed(timeline: TimelineID(try fields.string("timeline")), name: try fields.string("name"))
        case .timelineRemoved:
            .timelineRemoved(timeline: TimelineID(try fields.string("timeline")))
        case .eventAdded:
            .eventAdded(event: EventID(try fields.string("event")), timeline: TimelineID(try fields.string("timeline")),
                        title: try fields.string("title"), date: try fields.date("date"))
        case .eventRetitled:
            .eventRetitled(event: EventID(try fields.string("event")), title: try fields.string("title"))
        case .dateSet:
            .dateSet(event: EventID(try fields.string("event")), date: try fields.date("date"))
        case .rangeSet:
            .rangeSet(event: EventID(try fields.string("event")), start: try fields.date("start"),
                      end: try fields.optionalDate("end"))
        case .rangeClosed:
            .rangeClosed(event: EventID(try fields.string("event")), end: try fields.date("end"))
        case .rangeReopened:
            .rangeReopened(event: EventID(try fields.string("event")))
        case .eventMoved:
            .eventMoved(event: EventID(try fields.string("event")), timeline: TimelineID(try fields.string("timeline")))
        case .eventRemoved:
            .eventRemoved(event: EventID(try fields.string("event")))
        case .commandRejected:
            .commandRejected(command: try fields.string("command"), rule: try fields.string("rule"),
                             message: try fields.string("message"))
        }
    }
}
