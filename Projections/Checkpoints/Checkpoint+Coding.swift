import TimelineCore

extension Checkpoint {
    /// The checkpoint's bytes, ending with their CRC-32C.
    /// - Complexity: O(*n*) in the number of events and rows.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.append(contentsOf: Self.magic)
        writer.write(TimelineProjection.schemaVersion)
        writer.write(position)
        writer.write(logIdentity)
        writer.write(projection.now.microsecondsSinceEpoch)
        Self.encode(resumePoint, into: &writer)

        // Timelines: those with a name, then any other an event names.
        var timelineIndices: [TimelineID: UInt32] = [:]
        var timelines: [(id: TimelineID, name: String?)] = []
        for (id, timeline) in projection.summaries.timelines {
            timelineIndices[id] = UInt32(timelines.count)
            timelines.append((id, timeline.name))
        }
        // Dates: each distinct text once; events refer to them by index.
        var dateIndices: [String: UInt32] = [:]
        var dates: [String] = []
        func index(of date: DateValue) -> UInt32 {
            if let index = dateIndices[date.text] { return index }
            dateIndices[date.text] = UInt32(dates.count)
            dates.append(date.text)
            return UInt32(dates.count - 1)
        }
        var events = ByteWriter()
        var eventIndices: [EventID: UInt32] = [:]
        eventIndices.reserveCapacity(projection.events.count)
        events.write(UInt32(projection.events.count))
        for (offset, event) in projection.events.values.enumerated() {
            eventIndices[event.id] = UInt32(offset)
            if timelineIndices[event.timeline] == nil {
                timelineIndices[event.timeline] = UInt32(timelines.count)
                timelines.append((event.timeline, nil))
            }
            events.write(event.id.rawValue)
            events.write(timelineIndices[event.timeline]!)
            events.write(event.title)
            switch event.dates {
            case .single(let date):
                events.write(UInt8(0))
                events.write(index(of: date))
            case .range(let start, nil):
                events.write(UInt8(1))
                events.write(index(of: start))
            case .range(let start, let end?):
                events.write(UInt8(2))
                events.write(index(of: start))
                events.write(index(of: end))
            }
        }
        writer.write(UInt32(timelines.count))
        for timeline in timelines {
            writer.write(timeline.id.rawValue)
            if let name = timeline.name {
                writer.write(UInt8(1))
                writer.write(name)
            } else {
                writer.write(UInt8(0))
            }
        }
        writer.write(UInt32(dates.count))
        for text in dates { writer.write(text) }
        writer.bytes.append(contentsOf: events.bytes)

        writer.write(UInt32(projection.views.count))
        for view in projection.views {
            let definition = view.definition
            switch definition.filter {
            case .all: writer.write(UInt8(0))
            case .timeline(let id):
                writer.write(UInt8(1))
                writer.write(id.rawValue)
            }
            writer.write(UInt8(OngoingPlacement.allCases.firstIndex(of: definition.placement)!))
            writer.write(UInt8(SortOrder.allCases.firstIndex(of: definition.order)!))
            writer.write(UInt8(Sectioning.allCases.firstIndex(of: definition.sections)!))
            writer.write(view.position)
            writer.write(UInt32(view.index.count))
            for entry in view.index {
                writer.write(eventIndices[entry.event.id]!)
                writer.write(UInt8(RowKind.allCases.firstIndex(of: entry.kind)!))
            }
        }
        writer.write(projection.summaries.position)
        writer.write(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    private static func encode(_ point: FileEventLog.ResumePoint?, into writer: inout ByteWriter) {
        guard let point else {
            writer.write(UInt8(0))
            return
        }
        writer.write(UInt8(1))
        writer.write(point.position)
        writer.write(Int64(point.offset))
        writer.write(Int64(point.lineCount))
        writer.write(Int64(point.lastLineLength))
        writer.write(point.lastLineChecksum)
        writer.write(UInt32(point.commands.entries.count))
        for entry in point.commands.entries {
            writer.write(entry.hash)
            writer.write(entry.firstPosition)
            writer.write(entry.count)
            writer.write(Int64(entry.offset))
        }
    }

    /// Reads a checkpoint, refusing a damaged one or one of another schema version.
    /// - Complexity: O(*n*) in the number of events and rows.
    public static func load(_ bytes: [UInt8]) throws(Failure) -> Checkpoint {
        try bytes.withUnsafeBytes { raw in Result { () throws(Failure) in try load(raw) } }.get()
    }

    private static func load(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Checkpoint {
        guard bytes.count >= magic.count + 8, magic.elementsEqual(bytes.prefix(magic.count)) else {
            throw .damaged("not a checkpoint file")
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 4)])
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self))
        guard stored == CRC32C.checksum(body) else { throw .damaged("checksum mismatch") }
        var reader = ByteReader(body)
        reader.offset = magic.count
        do {
            let version = try reader.read(UInt32.self)
            guard version == TimelineProjection.schemaVersion else {
                throw Failure.otherSchemaVersion(found: version, expected: TimelineProjection.schemaVersion)
            }
            return try decodeBody(&reader)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .damaged("\(error)")
        }
    }

    private static func decodeResumePoint(_ reader: inout ByteReader) throws -> FileEventLog.ResumePoint? {
        switch try reader.read(UInt8.self) {
        case 0: return nil
        case 1: break
        case let flag: throw Failure.damaged("unknown resume point flag \(flag)")
        }
        let position = try reader.read(Int64.self)
        let offset = Int(try reader.read(Int64.self))
        let lineCount = Int(try reader.read(Int64.self))
        let lastLineLength = Int(try reader.read(Int64.self))
        let checksum = try reader.read(UInt32.self)
        let count = try reader.readCount(minimumSize: 28)
        var entries: [FileEventLog.CommandTable.Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            entries.append(FileEventLog.CommandTable.Entry(
                hash: try reader.read(UInt64.self), firstPosition: try reader.read(Int64.self),
                count: try reader.read(Int32.self), offset: Int(try reader.read(Int64.self))))
        }
        guard let commands = FileEventLog.CommandTable(sortedEntries: entries) else {
            throw Failure.damaged("command table out of order")
        }
        return FileEventLog.ResumePoint(position: position, offset: offset, lineCount: lineCount,
                                        lastLineLength: lastLineLength, lastLineChecksum: checksum, commands: commands)
    }

    private static func decodeBody(_ reader: inout ByteReader) throws -> Checkpoint {
        let position = try reader.read(Int64.self)
        let logIdentity = try reader.read(UInt64.self)
        let now = Instant(microsecondsSinceEpoch: try reader.read(Int64.self))
        let resumePoint = try decodeResumePoint(&reader)
        if let point = resumePoint, point.position != position {
            throw Failure.damaged("resume point at position \(point.position) in a checkpoint at \(position)")
        }

        var names: [TimelineID: String] = [:]
        var timelineIDs: [TimelineID] = []
        for _ in 0..<(try reader.readCount(minimumSize: 5)) {
            let id = TimelineID(try reader.readString())
            timelineIDs.append(id)
            switch try reader.read(UInt8.self) {
            case 0: break
            case 1: names[id] = try reader.readString()
            case let flag: throw Failure.damaged("unknown timeline name flag \(flag)")
            }
        }
        // Each distinct date text is parsed (and so checked) once.
        let dateCount = try reader.readCount(minimumSize: 4)
        var dates: [DateValue] = []
        dates.reserveCapacity(dateCount)
        for _ in 0..<dateCount { dates.append(try DateValue(parsing: reader.readString())) }

        let eventCount = try reader.readCount(minimumSize: 17)
        var snapshots: [EventSnapshot] = []
        snapshots.reserveCapacity(eventCount)
        for _ in 0..<eventCount {
            let id = EventID(try reader.readString())
            let timelineIndex = try reader.readIndex(below: timelineIDs.count, of: "timeline")
            let timeline = timelineIDs[timelineIndex]
            let title = try reader.readString()
            let eventDates: EventDates
            switch try reader.read(UInt8.self) {
            case 0: eventDates = .single(dates[try reader.readIndex(below: dates.count, of: "date")])
            case 1: eventDates = .range(start: dates[try reader.readIndex(below: dates.count, of: "date")], end: nil)
            case 2:
                let start = dates[try reader.readIndex(below: dates.count, of: "date")]
                eventDates = .range(start: start, end: dates[try reader.readIndex(below: dates.count, of: "date")])
            case let kind: throw Failure.damaged("unknown dates kind \(kind)")
            }
            snapshots.append(EventSnapshot(id: id, timeline: timeline, title: title, dates: eventDates))
        }
        var projection = TimelineProjection(views: [], now: now)
        projection.restore(position: position, names: names, events: snapshots)
        for _ in 0..<(try reader.read(UInt32.self)) {
            let filter: RowFilter = try reader.read(UInt8.self) == 0 ? .all : .timeline(TimelineID(try reader.readString()))
            let placement = try element(OngoingPlacement.allCases, reader.read(UInt8.self))
            let order = try element(SortOrder.allCases, reader.read(UInt8.self))
            let sections = try element(Sectioning.allCases, reader.read(UInt8.self))
            let viewPosition = try reader.read(Int64.self)
            let count = try reader.readCount(minimumSize: 5)
            var entries: [RowEntry] = []
            entries.reserveCapacity(count)
            let nowValue = now.microsecondsSinceEpoch
            for _ in 0..<count {
                let index = try reader.readIndex(below: snapshots.count, of: "row of event")
                let kind = try element(RowKind.allCases, reader.read(UInt8.self))
                entries.append(RowEntry(event: snapshots[index], kind: kind, now: nowValue, placement: placement))
            }
            let definition = ViewDefinition(filter: filter, placement: placement, order: order, sections: sections)
            projection.restoreView(definition, sortedEntries: entries, position: viewPosition)
        }
        projection.summaries.restorePosition(try reader.read(Int64.self))
        guard reader.isAtEnd else { throw Failure.damaged("unexpected bytes after the views") }
        return Checkpoint(projection: projection, logIdentity: logIdentity, resumePoint: resumePoint)
    }

    private static func element<C: Collection>(_ all: C, _ index: UInt8) throws -> C.Element where C.Index == Int {
        guard Int(index) < all.count else { throw Failure.damaged("unknown value \(index)") }
        return all[Int(index)]
    }
}

