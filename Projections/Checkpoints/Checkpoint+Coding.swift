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
        let names = projection.summaries.timelines
        writer.write(UInt32(names.count))
        for (id, timeline) in names {
            writer.write(id.rawValue)
            writer.write(timeline.name)
        }
        var indices: [EventID: UInt32] = [:]
        indices.reserveCapacity(projection.events.count)
        writer.write(UInt32(projection.events.count))
        for (offset, event) in projection.events.values.enumerated() {
            indices[event.id] = UInt32(offset)
            writer.write(event.id.rawValue)
            writer.write(event.timeline.rawValue)
            writer.write(event.title)
            switch event.dates {
            case .single(let date):
                writer.write(UInt8(0))
                writer.write(date.text)
            case .range(let start, nil):
                writer.write(UInt8(1))
                writer.write(start.text)
            case .range(let start, let end?):
                writer.write(UInt8(2))
                writer.write(start.text)
                writer.write(end.text)
            }
        }
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
                writer.write(indices[entry.event.id]!)
                writer.write(UInt8(RowKind.allCases.firstIndex(of: entry.kind)!))
            }
        }
        writer.write(projection.summaries.position)
        writer.write(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// Reads a checkpoint, refusing a damaged one or one of another schema version.
    /// - Complexity: O(*n*) in the number of events and rows.
    public static func load(_ bytes: [UInt8]) throws(Failure) -> Checkpoint {
        guard bytes.count >= magic.count + 8, Array(bytes.prefix(magic.count)) == magic else {
            throw .damaged("not a checkpoint file")
        }
        let body = bytes.dropLast(4)
        var tail = ByteReader(Array(bytes.suffix(4)))
        guard let stored = try? tail.read(UInt32.self), stored == CRC32C.checksum(body) else {
            throw .damaged("checksum mismatch")
        }
        var reader = ByteReader(Array(body))
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

    private static func decodeBody(_ reader: inout ByteReader) throws -> Checkpoint {
        let position = try reader.read(Int64.self)
        let logIdentity = try reader.read(UInt64.self)
        let now = Instant(microsecondsSinceEpoch: try reader.read(Int64.self))
        var names: [TimelineID: String] = [:]
        for _ in 0..<(try reader.read(UInt32.self)) {
            names[TimelineID(try reader.readString())] = try reader.readString()
        }
        let eventCount = Int(try reader.read(UInt32.self))
        var snapshots: [EventSnapshot] = []
        // A count is only a promise until its bytes are read: reserve no more than the bytes
        // left could hold (an event takes at least 17), so a damaged count cannot exhaust memory.
        snapshots.reserveCapacity(min(eventCount, reader.remaining / 17))
        for _ in 0..<eventCount {
            let id = EventID(try reader.readString())
            let timeline = TimelineID(try reader.readString())
            let title = try reader.readString()
            let dates: EventDates
            switch try reader.read(UInt8.self) {
            case 0: dates = .single(try DateValue(parsing: reader.readString()))
            case 1: dates = .range(start: try DateValue(parsing: reader.readString()), end: nil)
            case 2:
                let start = try DateValue(parsing: reader.readString())
                dates = .range(start: start, end: try DateValue(parsing: reader.readString()))
            case let kind: throw Failure.damaged("unknown dates kind \(kind)")
            }
            snapshots.append(EventSnapshot(id: id, timeline: timeline, title: title, dates: dates))
        }
        var projection = TimelineProjection(views: [], now: now)
        projection.restore(position: position, names: names, events: snapshots)
        for _ in 0..<(try reader.read(UInt32.self)) {
            let filter: RowFilter = try reader.read(UInt8.self) == 0 ? .all : .timeline(TimelineID(try reader.readString()))
            let placement = try element(OngoingPlacement.allCases, reader.read(UInt8.self))
            let order = try element(SortOrder.allCases, reader.read(UInt8.self))
            let sections = try element(Sectioning.allCases, reader.read(UInt8.self))
            let viewPosition = try reader.read(Int64.self)
            let count = Int(try reader.read(UInt32.self))
            var entries: [RowEntry] = []
            entries.reserveCapacity(min(count, reader.remaining / 5))  // a row takes 5 bytes
            let nowValue = now.microsecondsSinceEpoch
            for _ in 0..<count {
                let index = Int(try reader.read(UInt32.self))
                let kind = try element(RowKind.allCases, reader.read(UInt8.self))
                guard index < snapshots.count else { throw Failure.damaged("row of unknown event \(index)") }
                entries.append(RowEntry(event: snapshots[index], kind: kind, now: nowValue, placement: placement))
            }
            let definition = ViewDefinition(filter: filter, placement: placement, order: order, sections: sections)
            projection.restoreView(definition, sortedEntries: entries, position: viewPosition)
        }
        projection.summaries.restorePosition(try reader.read(Int64.self))
        guard reader.isAtEnd else { throw Failure.damaged("unexpected bytes after the views") }
        return Checkpoint(projection: projection, logIdentity: logIdentity)
    }

    private static func element<C: Collection>(_ all: C, _ index: UInt8) throws -> C.Element where C.Index == Int {
        guard Int(index) < all.count else { throw Failure.damaged("unknown value \(index)") }
        return all[Int(index)]
    }
}
