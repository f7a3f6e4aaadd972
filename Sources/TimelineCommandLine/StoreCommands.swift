import TimelineCore
import TimelineKit

/// The commands that change the store's log: one per domain command, import and repair.
/// Each takes the log's writer lock for as long as it runs.
extension Runner {
    /// A domain command as the command line gives it: ids the user left out are made
    /// once the store's state is known.
    private enum Request {
        case createTimeline(TimelineID?, name: String)
        case addEvent(EventID?, timeline: TimelineID, title: String, dates: EventDates)
        case command(Command)
    }

    func storeCommand(_ arguments: ParsedArguments) async throws -> String {
        // Every argument is checked before the log is touched.
        let request = try request(from: arguments)
        let path = try logPath(arguments)
        let log = try openLog(path)
        defer { DatabaseLogs.close(log) }
        let store: TimelineStore
        do {
            store = try TimelineStore(log: log, clock: SystemClock(), views: [])
        } catch {
            throw CommandFailure(message(for: error, path: path, command: arguments.command.name))
        }
        let command: Command
        switch request {
        case .createTimeline(let id?, let name):
            command = .createTimeline(id, name: name)
        case .createTimeline(nil, let name):
            command = .createTimeline(newTimelineID(name: name, in: Set(await store.timelineSummaries.map(\.id))),
                                      name: name)
        case .addEvent(let id?, let timeline, let title, let dates):
            command = .addEvent(id, timeline: timeline, title: title, dates: dates)
        case .addEvent(nil, let timeline, let title, let dates):
            command = .addEvent(newEventID(among: await store.eventIDs), timeline: timeline, title: title, dates: dates)
        case .command(let given):
            command = given
        }
        let records: [Record]
        do {
            records = try await store.send(command)
        } catch {
            throw CommandFailure(message(for: error, path: path, command: arguments.command.name))
        }
        if arguments.flag("--json") { return plainLines(records) }
        return confirmation(for: command) + " (" + positions(records) + ")\n"
    }

    /// Opens the store's log for writing, taking its lock (a file), or connects to it (a
    /// database URL).
    func openLog(_ path: String) throws -> any EventLog {
        if DatabaseLogs.isURL(path) { return try DatabaseLogs.open(path) }
        let log: FileEventLog
        do {
            log = try FileEventLog(path: path)
        } catch {
            throw CommandFailure(error.description)
        }
        if let torn = log.tornTail {
            context.warn("\(path): \(torn); cut off")
        }
        return log
    }

    private func message(for error: StoreError, path: String, command: String) -> String {
        switch error {
        case .rejected(let rejection): "\(command) refused: \(rejection)"
        case .log(let error): error.description
        case .invalidRecord(let position, let reason): "\(path): record \(position): \(reason)"
        case .importRefused, .linesDoNotMatchFacts: "\(path): \(error)"
        }
    }

    private func request(from arguments: ParsedArguments) throws -> Request {
        let name = arguments.command.name
        func timeline() throws -> TimelineID { TimelineID(try arguments.required("--timeline")) }
        func event() throws -> EventID { EventID(try arguments.required("--event")) }
        func text(_ option: String) throws -> String { try arguments.required(option) }
        func date(_ option: String) throws -> DateValue {
            if let date = try arguments.date(option) { return date }
            throw UsageError(message: "missing \(option) DATE", command: name)
        }
        switch name {
        case Catalogue.createTimeline.name:
            return .createTimeline(arguments.value("--timeline").map(TimelineID.init(rawValue:)), name: try text("--name"))
        case Catalogue.renameTimeline.name:
            return .command(.renameTimeline(try timeline(), name: try text("--name")))
        case Catalogue.removeTimeline.name:
            return .command(.removeTimeline(try timeline()))
        case Catalogue.addEvent.name:
            let dates: EventDates
            switch (try arguments.date("--date"), try arguments.date("--start"), try arguments.date("--end")) {
            case (let date?, nil, nil): dates = .single(date)
            case (nil, let start?, let end): dates = .range(start: start, end: end)
            case (_?, _?, _): throw UsageError(message: "give either --date or --start, not both", command: name)
            case (_?, nil, _?): throw UsageError(message: "--end goes with --start, not with --date", command: name)
            case (nil, nil, _): throw UsageError(message: "missing --date DATE or --start DATE", command: name)
            }
            return .addEvent(arguments.value("--event").map(EventID.init(rawValue:)), timeline: try timeline(),
                             title: try text("--title"), dates: dates)
        case Catalogue.retitleEvent.name:
            return .command(.retitleEvent(try event(), title: try text("--title")))
        case Catalogue.setDate.name:
            return .command(.setDate(try event(), try date("--date")))
        case Catalogue.setRange.name:
            return .command(.setRange(try event(), start: try date("--start"), end: try arguments.date("--end")))
        case Catalogue.closeRange.name:
            return .command(.closeRange(try event(), end: try date("--end")))
        case Catalogue.reopenRange.name:
            return .command(.reopenRange(try event()))
        case Catalogue.moveEvent.name:
            return .command(.moveEvent(try event(), to: try timeline()))
        case Catalogue.removeEvent.name:
            return .command(.removeEvent(try event()))
        default:
            preconditionFailure("no store command named \(name)")
        }
    }

    /// `e1`, `e2`, …: one more than the highest such id in use.
    private func newEventID(among ids: [EventID]) -> EventID {
        var highest = 0
        for id in ids {
            let text = id.rawValue
            guard text.hasPrefix("e"), let number = Int(text.dropFirst()), number > 0 else { continue }
            highest = max(highest, number)
        }
        return EventID("e\(highest + 1)")
    }

    /// The name in lower case, runs of anything but ASCII letters and digits made one
    /// `-`: `My life` → `my-life`; `-2`, `-3`, … when that is taken.
    private func newTimelineID(name: String, in taken: Set<TimelineID>) -> TimelineID {
        var slug = ""
        for scalar in name.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, slug.last != "-" {
                slug += "-"
            }
        }
        while slug.last == "-" { slug.removeLast() }
        if slug.isEmpty { slug = "timeline" }
        var candidate = TimelineID(slug)
        var suffix = 1
        while taken.contains(candidate) {
            suffix += 1
            candidate = TimelineID("\(slug)-\(suffix)")
        }
        return candidate
    }

    private func confirmation(for command: Command) -> String {
        switch command {
        case .createTimeline(let id, let name): "created timeline \(id) \(JSONText.string(name))"
        case .renameTimeline(let id, let name): "renamed timeline \(id) to \(JSONText.string(name))"
        case .removeTimeline(let id): "removed timeline \(id) and its events"
        case .addEvent(let id, let timeline, _, let dates): "added event \(id) to timeline \(timeline): \(describe(dates))"
        case .retitleEvent(let id, let title): "retitled event \(id) \(JSONText.string(title))"
        case .setDate(let id, let date): "set event \(id) to \(date)"
        case .setRange(let id, let start, let end): "set event \(id) to \(describe(.range(start: start, end: end)))"
        case .closeRange(let id, let end): "closed event \(id) at \(end)"
        case .reopenRange(let id): "reopened event \(id)"
        case .moveEvent(let id, let timeline): "moved event \(id) to timeline \(timeline)"
        case .removeEvent(let id): "removed event \(id)"
        }
    }

    private func describe(_ dates: EventDates) -> String {
        switch dates {
        case .single(let date): date.text
        case .range(let start, nil): "\(start.text) to now (open)"
        case .range(let start, let end?): "\(start.text) to \(end.text)"
        }
    }

    /// `record 4`, `records 4-5`.
    func positions(_ records: [Record]) -> String {
        guard let first = records.first?.position, let last = records.last?.position else { return "no records" }
        return first == last ? "record \(first)" : "records \(first)-\(last)"
    }

    /// Records as export writes them: plain JSON Lines, no checksums.
    func plainLines(_ records: [Record]) -> String {
        var bytes: [UInt8] = []
        let encoder = RecordEncoder(layout: .plain)
        for record in records {
            for fact in record.facts {
                encoder.encode(fact, position: record.position, recordedAt: record.recordedAt, into: &bytes)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: import

    func importLog(_ arguments: ParsedArguments) async throws -> String {
        let file = arguments.firstPositional
        let path = try logPath(arguments)
        let foreign = try readContents(file)
        if let torn = foreign.tornTail {
            throw CommandFailure("\(file): \(torn); nothing imported (see 'timeline repair')")
        }
        _ = try validate(foreign, path: file)
        var facts: [Fact] = []
        var lines: [Int] = []
        for (record, line) in zip(foreign.records, foreign.lineNumbers) {
            facts += record.facts
            lines += repeatElement(line, count: record.facts.count)
        }
        guard !facts.isEmpty else { return "\(file): nothing to import\n" }

        let log = try openLog(path)
        defer { DatabaseLogs.close(log) }
        let records: [Record]
        do {
            let store = try TimelineStore(log: log, clock: ContextClock(read: context.clock), views: [])
            records = try await store.importFacts(facts, lines: lines)
        } catch .importRefused(_, let line?, let type, let rejection) {
            throw CommandFailure("\(file): line \(line): \(type.rawValue): \(rejection) in \(path); nothing imported")
        } catch {
            throw CommandFailure(message(for: error, path: path, command: arguments.command.name))
        }
        if arguments.flag("--json") { return plainLines(records) }
        return "imported \(count(facts.count, "fact")) from \(file) into \(path) (\(positions(records)))\n"
    }

    // MARK: repair

    func repair(_ arguments: ParsedArguments) throws -> String {
        let path = try logPath(arguments)
        if DatabaseLogs.isURL(path) { throw CommandFailure(DatabaseLogs.repairDoesNotApply(path)) }
        let report: FileEventLog.RepairReport
        do {
            report = try FileEventLog.repair(path: path)
        } catch {
            throw CommandFailure(error.description)
        }
        guard let side = report.sideFile, !report.moved.isEmpty else {
            return "\(path): nothing to repair: \(count(report.kept, "record")) kept\n"
        }
        var text = "\(path): moved \(count(report.moved.count, "line")) to \(side), kept \(count(report.kept, "record"))\n"
        for line in report.moved { text += "  \(line)\n" }
        return text
    }
}

/// The tool's clock (`ToolContext.clock`) as a store's clock.
private struct ContextClock: TimelineClock {
    let read: @Sendable () -> Instant

    func now() -> Instant { read() }
}
