/// The JSON forms of commands, submissions and notices: a replica's files and the tool's
/// `notices --json` (section 10). Each command is `{"command":NAME,"data":{…}}` with the
/// name of section 3 and the fields of the fact it would record (an event added with a
/// range has `start` and `end` instead of `date`).
package enum SyncCoding {
    /// A command as JSON text.
    package static func json(_ command: Command) -> String {
        func string(_ text: String) -> String { JSONStringWriter.quoted(text) }
        func date(_ value: DateValue?) -> String { value.map { string($0.text) } ?? "null" }
        let (name, fields): (String, [(String, String)]) = switch command {
        case .createTimeline(let id, let name): ("createTimeline", [("timeline", string(id.rawValue)), ("name", string(name))])
        case .renameTimeline(let id, let name): ("renameTimeline", [("timeline", string(id.rawValue)), ("name", string(name))])
        case .removeTimeline(let id): ("removeTimeline", [("timeline", string(id.rawValue))])
        case .addEvent(let id, let timeline, let title, let dates):
            ("addEvent", [("event", string(id.rawValue)), ("timeline", string(timeline.rawValue)), ("title", string(title))]
                + {
                    switch dates {
                    case .single(let value): [("date", date(value))]
                    case .range(let start, let end): [("start", date(start)), ("end", date(end))]
                    }
                }())
        case .retitleEvent(let id, let title): ("retitleEvent", [("event", string(id.rawValue)), ("title", string(title))])
        case .setDate(let id, let value): ("setDate", [("event", string(id.rawValue)), ("date", date(value))])
        case .setRange(let id, let start, let end):
            ("setRange", [("event", string(id.rawValue)), ("start", date(start)), ("end", date(end))])
        case .closeRange(let id, let end): ("closeRange", [("event", string(id.rawValue)), ("end", date(end))])
        case .reopenRange(let id): ("reopenRange", [("event", string(id.rawValue))])
        case .moveEvent(let id, let timeline):
            ("moveEvent", [("event", string(id.rawValue)), ("timeline", string(timeline.rawValue))])
        case .removeEvent(let id): ("removeEvent", [("event", string(id.rawValue))])
        }
        let data = fields.map { "\(string($0.0)):\($0.1)" }.joined(separator: ",")
        return "{\"command\":\(string(name)),\"data\":{\(data)}}"
    }

    /// A submission as one line of JSON (no newline).
    package static func json(_ submission: Submission) -> String {
        "{\"command\":\(JSONStringWriter.quoted(submission.id.description)),\"nonce\":"
            + JSONStringWriter.quoted(submission.nonce) + ",\"base\":\(submission.basePosition)"
            + (submission.madeAt.map { ",\"at\":" + JSONStringWriter.quoted($0.text) } ?? "")
            + (submission.condition.map { condition in
                ",\"condition\":{\"after\":\(condition.after),\"events\":["
                    + condition.events.map { JSONStringWriter.quoted($0.rawValue) }.joined(separator: ",")
                    + "],\"timelines\":["
                    + condition.timelines.map { JSONStringWriter.quoted($0.rawValue) }.joined(separator: ",") + "]"
                    + (condition.undoes.map { ",\"undoes\":\($0)" } ?? "") + "}"
            } ?? "")
            + (submission.localID.map { ",\"local\":" + JSONStringWriter.quoted($0) } ?? "")
            + ",\"commands\":[" + submission.commands.map(json).joined(separator: ",") + "]}"
    }

    /// A local id and the submission it was sent as, as one line of JSON (no newline).
    package static func json(_ sent: ReplicaQueue.LocalSend) -> String {
        "{\"local\":\(JSONStringWriter.quoted(sent.localID)),\"command\":\(JSONStringWriter.quoted(sent.id.description))}"
    }

    /// The local id and submission in a line written by ``json(_:)-(ReplicaQueue.LocalSend)``.
    package static func localSend(_ line: String) throws(Failure) -> ReplicaQueue.LocalSend {
        let object = try object(line)
        guard let id = SubmissionID(commandID: try text(object, "command")) else { throw Failure(description: "bad command id") }
        return ReplicaQueue.LocalSend(localID: try text(object, "local"), id: id)
    }

    /// A notice as one line of JSON (the tool's `notices --json`).
    package static func json(_ notice: Notice) -> String {
        "{\"command\":\(JSONStringWriter.quoted(notice.id.description)),\"rule\":\(JSONStringWriter.quoted(notice.rule)),"
            + "\"message\":\(JSONStringWriter.quoted(notice.message)),\"position\":\(notice.position),"
            + "\"commands\":[" + notice.commands.map(json).joined(separator: ",") + "]}"
    }

    /// Why a line could not be read.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The submission in a line written by ``json(_:)-(Submission)``.
    package static func submission(_ line: String) throws(Failure) -> Submission {
        let object = try object(line)
        guard let id = SubmissionID(commandID: try text(object, "command")) else { throw Failure(description: "bad command id") }
        let madeAt = try object.first { $0.key == "at" }.map { member throws(Failure) in try date(member.value, "at") }
        var condition: UndoCondition?
        if case .object(let members)? = object.first(where: { $0.key == "condition" })?.value {
            func ids(_ name: String) throws(Failure) -> [String] {
                guard case .array(let items) = try member(members, name) else { throw Failure(description: "no \(name)") }
                var texts: [String] = []
                for item in items {
                    guard case .string(let text) = item else { throw Failure(description: "\(name) holds a non-string") }
                    texts.append(text)
                }
                return texts
            }
            let after = try integer(members, "after")
            let events = try ids("events").map { EventID($0) }
            let timelines = try ids("timelines").map { TimelineID($0) }
            let undoes = members.contains { $0.key == "undoes" } ? try integer(members, "undoes") : nil
            if let undoes, undoes < 1 { throw Failure(description: "undoes is not a position") }
            condition = UndoCondition(after: after, events: events, timelines: timelines, undoes: undoes)
        }
        let localID = object.contains { $0.key == "local" } ? try text(object, "local") : nil
        return Submission(id: id, nonce: try text(object, "nonce"), commands: try commands(object),
                          basePosition: try integer(object, "base"), madeAt: madeAt, condition: condition,
                          localID: localID)
    }

    /// The notice in a line written by ``json(_:)-(Notice)``.
    package static func notice(_ line: String) throws(Failure) -> Notice {
        let object = try object(line)
        guard let id = SubmissionID(commandID: try text(object, "command")) else { throw Failure(description: "bad command id") }
        return Notice(id: id, commands: try commands(object), rule: try text(object, "rule"),
                      message: try text(object, "message"), position: try integer(object, "position"))
    }

    private static func object(_ line: String) throws(Failure) -> [JSONMember] {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch { throw Failure(description: "not JSON: \(error)") }
        guard case .object(let members) = value else { throw Failure(description: "not a JSON object") }
        return members
    }

    private static func member(_ object: [JSONMember], _ name: String) throws(Failure) -> JSONValue {
        guard let value = object.first(where: { $0.key == name })?.value else { throw Failure(description: "no \(name)") }
        return value
    }

    private static func text(_ object: [JSONMember], _ name: String) throws(Failure) -> String {
        guard case .string(let text) = try member(object, name) else { throw Failure(description: "\(name) is not a string") }
        return text
    }

    private static func integer(_ object: [JSONMember], _ name: String) throws(Failure) -> Int64 {
        guard case .number(let number) = try member(object, name), let value = number.nonNegativeInteger else {
            throw Failure(description: "\(name) is not a whole number")
        }
        return value
    }

    private static func date(_ value: JSONValue, _ name: String) throws(Failure) -> DateValue {
        guard case .string(let text) = value, let date = try? DateValue(parsing: text) else {
            throw Failure(description: "\(name) is not a date")
        }
        return date
    }

    private static func commands(_ object: [JSONMember]) throws(Failure) -> [Command] {
        guard case .array(let items) = try member(object, "commands") else { throw Failure(description: "no commands") }
        var commands: [Command] = []
        for item in items {
            guard case .object(let members) = item, case .object(let data) = try member(members, "data") else {
                throw Failure(description: "a command is not an object with data")
            }
            commands.append(try command(try text(members, "command"), data))
        }
        return commands
    }

    private static func command(_ name: String, _ data: [JSONMember]) throws(Failure) -> Command {
        func event() throws(Failure) -> EventID { EventID(try text(data, "event")) }
        func timeline() throws(Failure) -> TimelineID { TimelineID(try text(data, "timeline")) }
        func date(_ field: String) throws(Failure) -> DateValue { try SyncCoding.date(try member(data, field), field) }
        func optionalDate(_ field: String) throws(Failure) -> DateValue? {
            guard let value = data.first(where: { $0.key == field })?.value, value != .null else { return nil }
            return try SyncCoding.date(value, field)
        }
        switch name {
        case "createTimeline": return .createTimeline(try timeline(), name: try text(data, "name"))
        case "renameTimeline": return .renameTimeline(try timeline(), name: try text(data, "name"))
        case "removeTimeline": return .removeTimeline(try timeline())
        case "addEvent":
            let dates: EventDates = data.contains { $0.key == "date" }
                ? .single(try date("date")) : .range(start: try date("start"), end: try optionalDate("end"))
            return .addEvent(try event(), timeline: try timeline(), title: try text(data, "title"), dates: dates)
        case "retitleEvent": return .retitleEvent(try event(), title: try text(data, "title"))
        case "setDate": return .setDate(try event(), try date("date"))
        case "setRange": return .setRange(try event(), start: try date("start"), end: try optionalDate("end"))
        case "closeRange": return .closeRange(try event(), end: try date("end"))
        case "reopenRange": return .reopenRange(try event())
        case "moveEvent": return .moveEvent(try event(), to: try timeline())
        case "removeEvent": return .removeEvent(try event())
        default: throw Failure(description: "unknown command \(JSONStringWriter.quoted(name))")
        }
    }
}
