import TimelineCore

extension Checkpoint {
    /// The checkpoint's bytes, ending with their CRC-32C.
    /// - Complexity: O(*n*) in the number of events and rows.
    package func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.append(contentsOf: Self.magic)
        writer.write(TimelineProjection.schemaVersion)
        writer.write(position)
        writer.write(projection.now.microsecondsSinceEpoch)
        writer.write(projection.now.nanosecondsPastMicrosecond)
        Self.encode(resumePoint, into: &writer)

        // Timelines: those with a name, in the order of their ids' bytes (so that a state
        // has one encoding, whatever the order of a dictionary), then any other an event
        // names, in the order of the events.
        var timelines: [(id: TimelineID, name: String?)] = projection.summaries.timelines
            .map { ($0.key, $0.value.name) }
            .sorted { $0.id.rawValue.utf8.lexicographicallyPrecedes($1.id.rawValue.utf8) }
        var timelineIndices: [TimelineID: UInt32] = [:]
        for (index, timeline) in timelines.enumerated() { timelineIndices[timeline.id] = UInt32(index) }
        // Events: in partitions by their ids' hashes (``EventTable/partition(ofHash:)``),
        // each in the order of the rows and with its count and byte length, decoded
        // when needed, at the same time, and encoded at the same time in two passes: the
        // first reads each event once and leaves room for the indices of its dates (and of
        // a timeline without a name), which the second fills in from the complete tables.
        let partitioned = Self.partitioned(Self.eventsInRowOrder(projection))
        let snapshots = partitioned.flatMap { $0 }
        var blocks = concurrentMap(partitioned.count) { [timelineIndices] number in
            EncodedBlock(partitioned[number][...], timelines: timelineIndices)
        }
        // Dates: each distinct text once, in the order of dates (by instant, then text),
        // so that loading puts a timeline's dates in order by their indices alone. Values
        // are the same exactly when their texts are, and hash by instant, not by text.
        // From the largest block's dates: a union sized for every block's would be mostly
        // empty slots (the blocks share most dates), and a hash table's slots are all touched.
        let largest = blocks.indices.max { blocks[$0].distinctDates.count < blocks[$1].distinctDates.count }
        var distinct = largest.map { blocks[$0].distinctDates } ?? []
        for (number, block) in blocks.enumerated() where number != largest { distinct.formUnion(block.distinctDates) }
        let dates = distinct.sorted()
        var dateIndices: [DateValue: UInt32] = [:]
        dateIndices.reserveCapacity(dates.count)
        for (index, date) in dates.enumerated() { dateIndices[date] = UInt32(index) }
        for block in blocks {
            for place in block.unnamedTimelines where timelineIndices[place.id] == nil {
                timelineIndices[place.id] = UInt32(timelines.count)
                timelines.append((place.id, nil))
            }
        }
        blocks = concurrentMap(blocks.count) { [blocks, timelineIndices, dateIndices] number in
            var block = blocks[number]
            block.fillIndices(timelines: timelineIndices, dates: dateIndices)
            return block
        }
        var eventNumbers = SnapshotNumbers(count: snapshots.count)
        for (offset, event) in snapshots.enumerated() { eventNumbers.insert(event, number: UInt32(offset)) }
        // Room for the rest at once (the blocks, the rows' 5 bytes each, the tables roughly):
        // growing by doubling would copy the blocks again and again, into fresh memory each time.
        // The partitions' indices, places and timelines take 16 bytes an event; the
        // summaries 8 for each distinct date of each timeline, at most.
        let blockBytes = blocks.reduce(0) { $0 + 8 + $1.writer.bytes.count } + 16 * snapshots.count
        let rowBytes = projection.rowSets.reduce(0) { $0 + 64 + 5 * $1.index.count }
        let summaryBytes = 12 * timelines.count + 8 * min(2 * snapshots.count, timelines.count * dates.count)
        writer.bytes.reserveCapacity(writer.bytes.count + blockBytes + rowBytes + summaryBytes
            + 32 * (timelines.count + dates.count) + 64)
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
        writer.write(UInt32(blocks.count))
        for (number, block) in blocks.enumerated() {
            writer.write(UInt32(partitioned[number].count))
            writer.write(UInt32(block.writer.bytes.count))
        }
        let partitionsStart = writer.bytes.count
        for block in blocks { writer.bytes.append(contentsOf: block.writer.bytes) }
        // Each partition's index, so that an event is found without decoding its partition.
        let indices = concurrentMap(blocks.count) { [blocks] number in blocks[number].sortedIndex }
        for index in indices {
            for entry in index {
                writer.write(entry.key)
                writer.write(entry.offset)
            }
        }
        // Each event's place in its partition, then its timeline's index, by its number: a
        // row finds its event there, and a timeline's rows are picked from everything's.
        for block in blocks {
            for entry in block.index { writer.write(entry.offset) }
        }
        for partition in partitioned {
            for snapshot in partition { writer.write(timelineIndices[snapshot.timeline]!) }
        }

        writer.write(UInt32(projection.rowSets.count))
        for rowSet in projection.rowSets {
            switch rowSet.filter {
            case .all: writer.write(UInt8(0))
            case .timeline(let id):
                writer.write(UInt8(1))
                writer.write(id.rawValue)
            }
            writer.write(rowSet.placement.checkpointCode)
            writer.write(UInt32(rowSet.views.count))
            for view in rowSet.views {
                writer.write(view.definition.order.checkpointCode)
                writer.write(view.definition.sections.checkpointCode)
                writer.write(view.position)
            }
            writer.write(UInt32(rowSet.index.count))
            // Each row's event number and kind, in parts written at the same time.
            let index = rowSet.index
            let partCount = (index.count + Self.rowsPerPart - 1) / Self.rowsPerPart
            let parts = concurrentMap(partCount) { [eventNumbers] part in
                let range = (part * index.count / partCount)..<((part + 1) * index.count / partCount)
                var rows = ByteWriter()
                rows.bytes.reserveCapacity(5 * range.count)
                var entries = index.makeIterator(startingAt: range.lowerBound)
                for _ in range {
                    let entry = entries.next()!
                    rows.write(eventNumbers.number(of: entry.event))
                    rows.write(entry.kind.checkpointCode)
                }
                return rows.bytes
            }
            for part in parts { writer.bytes.append(contentsOf: part) }
        }
        // The summaries of the named timelines, counted from the events as written: a
        // store that reads only some events restores them whole.
        let counts = writer.bytes.withUnsafeBytes { raw in
            let body = SharedBytes(bytes: raw)
            let source = PartitionSource(lengths: blocks.map(\.writer.bytes.count), counts: partitioned.map(\.count),
                                         from: partitionsStart, timelines: timelines.map(\.id), dates: dates)
            let parts = concurrentMap(blocks.count) { number in
                // Just encoded: it reads back.
                (try? source.decode(number, in: body.bytes, mode: .indices)) ?? PartitionEvents()
            }
            return Self.summaryCounts(parts, named: timelines.map { $0.name != nil }, dateCount: dates.count)
        }
        for (timeline, count) in zip(timelines, counts) where timeline.name != nil {
            writer.write(UInt32(count.events))
            writer.write(UInt32(count.ongoing))
            writer.write(UInt32(count.dates.count))
            for (date, times) in count.dates {
                writer.write(date)
                writer.write(times)
            }
        }
        writer.write(projection.summaries.position)
        writer.write(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// How many rows of a set are written by one task.
    static let rowsPerPart = 16_384

    /// The ranges of consecutive parts of these lengths, the first at `start`.
    static func ranges(of lengths: [Int], from start: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = [], at = start
        for length in lengths {
            ranges.append(at..<(at + length))
            at += length
        }
        return ranges
    }

    /// The snapshots in ``EventTable/partitionCount`` partitions by their ids' hashes,
    /// each in the order given.
    private static func partitioned(_ snapshots: [EventSnapshot]) -> [[EventSnapshot]] {
        var partitions = [[EventSnapshot]](repeating: [], count: EventTable.partitionCount)
        for snapshot in snapshots {
            partitions[EventTable.partition(ofHash: EventTable.hash(of: snapshot.id))].append(snapshot)
        }
        return partitions
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
    /// in the order they lie in memory; in the table's order, nearly every row would be a
    /// cache miss.
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

/// One block of a checkpoint's events: each event's id, timeline, title and dates, with
/// the indices of its dates (and of a timeline without a name) left as places to fill in
/// once every block has been read and the tables are complete.
private struct EncodedBlock: Sendable {
    var writer = ByteWriter()
    /// Where each date's index goes, and its date.
    private var datePlaces: [(offset: Int, date: DateValue)] = []
    /// Where the index of a timeline missing from the named ones goes, and its id.
    private(set) var unnamedTimelines: [(offset: Int, id: TimelineID)] = []
    /// The block's dates, each once.
    private(set) var distinctDates = Set<DateValue>()

    /// The block's index: each event's key (``SnapshotTable/key(for:)`` of its id's hash)
    /// and where it starts in the block, in the order of keys, then of places.
    private(set) var index: [(key: UInt32, offset: UInt32)] = []

    init(_ events: ArraySlice<EventSnapshot>, timelines: [TimelineID: UInt32]) {
        // Room for events of a typical size, and for two dates each: growing by doubling
        // would copy the bytes again and again. (Not the set of dates: most are shared.)
        writer.bytes.reserveCapacity(64 * events.count)
        datePlaces.reserveCapacity(2 * events.count)
        index.reserveCapacity(events.count)
        for event in events {
            index.append((SnapshotTable.key(for: EventTable.hash(of: event.id)), UInt32(writer.bytes.count)))
            writer.write(event.id.rawValue)
            if let index = timelines[event.timeline] {
                writer.write(index)
            } else {
                unnamedTimelines.append((writer.bytes.count, event.timeline))
                writer.write(UInt32(0))
            }
            event.withTitleBytes { title in
                writer.write(UInt32(title.count))
                writer.bytes.append(contentsOf: title)
            }
            switch event.dates {
            case .single(let date):
                writer.write(UInt8(0))
                place(date)
            case .range(let start, nil):
                writer.write(UInt8(1))
                place(start)
            case .range(let start, let end?):
                writer.write(UInt8(2))
                place(start)
                place(end)
            }
        }
    }

    /// The index in the order of keys.
    var sortedIndex: [(key: UInt32, offset: UInt32)] {
        index.sorted { $0.key != $1.key ? $0.key < $1.key : $0.offset < $1.offset }
    }

    private mutating func place(_ date: DateValue) {
        datePlaces.append((writer.bytes.count, date))
        distinctDates.insert(date)
        writer.write(UInt32(0))
    }

    /// Fills in the indices, from tables that hold every date and timeline of the block.
    mutating func fillIndices(timelines: [TimelineID: UInt32], dates: [DateValue: UInt32]) {
        writer.bytes.withUnsafeMutableBytes { buffer in
            for place in datePlaces {
                buffer.storeBytes(of: dates[place.date]!.littleEndian, toByteOffset: place.offset, as: UInt32.self)
            }
            for place in unnamedTimelines {
                buffer.storeBytes(of: timelines[place.id]!.littleEndian, toByteOffset: place.offset, as: UInt32.self)
            }
        }
        datePlaces = []
        distinctDates = []
    }
}

/// Each event's number in a checkpoint, by its snapshot's address: open addressing with
/// linear probing and a multiplicative hash of the address, since a number is looked up
/// for every event and every row: `Hasher`, seeded and general, does more for each.
private struct SnapshotNumbers {
    /// Each slot's snapshot address; 0 for an empty slot.
    private var keys: [UInt]
    private var numbers: [UInt32]
    /// How far a key's multiplied hash is shifted to give its first slot.
    private let shift: UInt64

    /// A table for `count` snapshots, at most half full.
    init(count: Int) {
        var bits: UInt64 = 4
        while 1 << bits < 2 * count { bits += 1 }
        keys = Array(repeating: 0, count: 1 << bits)
        numbers = Array(repeating: 0, count: 1 << bits)
        shift = 64 - bits
    }

    @inline(__always)
    private func firstSlot(of key: UInt) -> Int {
        // Fibonacci hashing: the high bits of the product mix every bit of the address.
        Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// Numbers `snapshot`, which the table does not hold yet.
    mutating func insert(_ snapshot: EventSnapshot, number: UInt32) {
        let key = UInt(bitPattern: ObjectIdentifier(snapshot))
        let mask = keys.count - 1
        var slot = firstSlot(of: key)
        while keys[slot] != 0 { slot = (slot + 1) & mask }
        keys[slot] = key
        numbers[slot] = number
    }

    /// The number of `snapshot`, which the table holds.
    func number(of snapshot: EventSnapshot) -> UInt32 {
        let key = UInt(bitPattern: ObjectIdentifier(snapshot))
        let mask = keys.count - 1
        var slot = firstSlot(of: key)
        while keys[slot] != key {
            precondition(keys[slot] != 0, "every row's event is numbered")
            slot = (slot + 1) & mask
        }
        return numbers[slot]
    }
}
