import TimelineCore

extension Checkpoint {
    /// The checkpoint's bytes, ending with their CRC-32C.
    /// - Complexity: O(*n*) in the number of events and rows.
    package func encoded() -> [UInt8] { encoded(eventsPerBlock: Self.eventsPerBlock) }

    /// The checkpoint's bytes, with its events in blocks of `eventsPerBlock`.
    func encoded(eventsPerBlock: Int) -> [UInt8] {
        precondition(eventsPerBlock > 0, "a block holds at least one event")
        var writer = ByteWriter()
        writer.bytes.append(contentsOf: Self.magic)
        writer.write(TimelineProjection.schemaVersion)
        writer.write(position)
        writer.write(projection.now.microsecondsSinceEpoch)
        writer.write(projection.now.nanosecondsPastMicrosecond)
        Self.encode(resumePoint, into: &writer)

        // Timelines: those with a name, then any other an event names.
        var timelineIndices: [TimelineID: UInt32] = [:]
        var timelines: [(id: TimelineID, name: String?)] = []
        for (id, timeline) in projection.summaries.timelines {
            timelineIndices[id] = UInt32(timelines.count)
            timelines.append((id, timeline.name))
        }
        // Dates: each distinct text once, in the order of dates (by instant, then text),
        // so that loading puts a timeline's dates in order by their indices alone.
        var distinct: [String: DateValue] = [:]
        projection.events.forEachSnapshot { _, event in
            let start = event.startDate
            distinct[start.text] = start
            if let end = event.endDate { distinct[end.text] = end }
        }
        let dates = distinct.values.sorted()
        var dateIndices: [String: UInt32] = [:]
        dateIndices.reserveCapacity(dates.count)
        for (index, date) in dates.enumerated() { dateIndices[date.text] = UInt32(index) }
        // Events: in blocks, each with its count and byte length, decoded at the same time
        // and encoded at the same time. Timelines an event names that have no name (and
        // so no summary) are listed first, so that the blocks only read the indices.
        let snapshots = Self.eventsInRowOrder(projection)
        // By snapshot, not by id: hashing an address is cheaper than hashing a string, and
        // every row's event is the table's snapshot.
        var eventIndices: [ObjectIdentifier: UInt32] = [:]
        eventIndices.reserveCapacity(snapshots.count)
        for (offset, event) in snapshots.enumerated() {
            eventIndices[ObjectIdentifier(event)] = UInt32(offset)
            if timelineIndices[event.timeline] == nil {
                timelineIndices[event.timeline] = UInt32(timelines.count)
                timelines.append((event.timeline, nil))
            }
        }
        let blockStarts = Array(stride(from: 0, to: snapshots.count, by: eventsPerBlock))
        let blocks = Self.inParallel(blockStarts.count) { [timelineIndices, dateIndices] number in
            var blockWriter = ByteWriter()
            for event in snapshots[blockStarts[number]..<min(blockStarts[number] + eventsPerBlock, snapshots.count)] {
                blockWriter.write(event.id.rawValue)
                blockWriter.write(timelineIndices[event.timeline]!)
                event.withTitleBytes { title in
                    blockWriter.write(UInt32(title.count))
                    blockWriter.bytes.append(contentsOf: title)
                }
                switch event.dates {
                case .single(let date):
                    blockWriter.write(UInt8(0))
                    blockWriter.write(dateIndices[date.text]!)
                case .range(let start, nil):
                    blockWriter.write(UInt8(1))
                    blockWriter.write(dateIndices[start.text]!)
                case .range(let start, let end?):
                    blockWriter.write(UInt8(2))
                    blockWriter.write(dateIndices[start.text]!)
                    blockWriter.write(dateIndices[end.text]!)
                }
            }
            return blockWriter.bytes
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
        for date in dates { writer.write(date.text) }
        // The blocks straight after the tables (complete before the blocks were encoded).
        writer.write(UInt32(snapshots.count))
        writer.write(UInt32(blockStarts.count))
        for (number, block) in blocks.enumerated() {
            guard case .success(let bytes) = block else { preconditionFailure("encoding a block does not fail") }
            writer.write(UInt32(min(eventsPerBlock, snapshots.count - blockStarts[number])))
            writer.write(UInt32(bytes.count))
            writer.bytes.append(contentsOf: bytes)
        }

        writer.write(UInt32(projection.rowSets.count))
        for rowSet in projection.rowSets {
            switch rowSet.filter {
            case .all: writer.write(UInt8(0))
            case .timeline(let id):
                writer.write(UInt8(1))
                writer.write(id.rawValue)
            }
            writer.write(UInt8(OngoingPlacement.allCases.firstIndex(of: rowSet.placement)!))
            writer.write(UInt32(rowSet.views.count))
            for view in rowSet.views {
                writer.write(UInt8(ViewOrder.allCases.firstIndex(of: view.definition.order)!))
                writer.write(UInt8(Sectioning.allCases.firstIndex(of: view.definition.sections)!))
                writer.write(view.position)
            }
            writer.write(UInt32(rowSet.index.count))
            for entry in rowSet.index {
                writer.write(eventIndices[ObjectIdentifier(entry.event)]!)
                writer.write(UInt8(RowKind.allCases.firstIndex(of: entry.kind)!))
            }
        }
        writer.write(projection.summaries.position)
        writer.write(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    private static func encode(_ point: LogResumePoint?, into writer: inout ByteWriter) {
        guard let point else {
            writer.write(UInt8(0))
            return
        }
        writer.write(UInt8(1))
        writer.write(point.position)
        writer.write(UInt32(point.bytes.count))
        writer.bytes.append(contentsOf: point.bytes)
    }

    /// The events in the order of the largest set of rows (each at its first row), then
    /// the events no row of it shows.
    ///
    /// Loading makes the events in this order, so that building a view walks them almost
    /// in the order they lie in memory; in the table's order, every row was a cache miss.
    private static func eventsInRowOrder(_ projection: TimelineProjection) -> [EventSnapshot] {
        var snapshots: [EventSnapshot] = []
        snapshots.reserveCapacity(projection.events.count)
        guard let largest = projection.rowSets.max(by: { $0.index.count < $1.index.count }) else {
            projection.events.forEachSnapshot { _, snapshot in snapshots.append(snapshot) }
            return snapshots
        }
        if largest.filter == .all {
            // Every event has one first row (`single` or `start`): no set of those placed.
            for entry in largest.index where entry.kind.role == .start { snapshots.append(entry.event) }
            return snapshots
        }
        var placed = Set<EventID>(minimumCapacity: projection.events.count)
        for entry in largest.index where placed.insert(entry.event.id).inserted {
            if let snapshot = projection.events[entry.event.id] { snapshots.append(snapshot) }
        }
        projection.events.forEachSnapshot { _, snapshot in
            if !placed.contains(snapshot.id) { snapshots.append(snapshot) }
        }
        return snapshots
    }
}
