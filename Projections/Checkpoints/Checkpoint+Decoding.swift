import Dispatch
import Synchronization
import TimelineCore

extension Checkpoint {
    /// Reads a checkpoint, refusing a damaged one or one of another schema version.
    ///
    /// With `views`, only the saved sets of rows that can serve one of them (the same
    /// filter and placement) are restored; the others are checked by the checksum, not
    /// decoded: opening a store that keeps no view costs the events, not rows it would drop.
    /// - Complexity: O(*n*) in the number of events and restored rows.
    ///
    /// A store that keeps no view keeps `bytes` and reads its events where they lie in them.
    /// They are the file's bytes read into memory, not the file mapped: a file changed in
    /// place under a mapping (copied over, cut shorter) would change, or fault, under
    /// events read after the checksum was checked.
    package static func load(_ bytes: [UInt8], keeping views: Set<ViewDefinition>? = nil) throws(Failure) -> Checkpoint {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(Failure) in try load(raw, owner: bytes, keeping: views) }
        }.get()
    }

    /// `bytes` are `owner`'s: a store that reads only some events keeps them.
    private static func load(_ bytes: UnsafeRawBufferPointer, owner: [UInt8], keeping views: Set<ViewDefinition>?)
        throws(Failure) -> Checkpoint {
        guard bytes.count >= magic.count + 8, magic.elementsEqual(bytes.prefix(magic.count)) else {
            throw .damaged("not a checkpoint file")
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 4)])
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self))
        var reader = ByteReader(body)
        reader.offset = magic.count
        // The checksum is computed while the events are decoded (see `decodeBody`), which
        // checks every bound, so damaged bytes can only fail or give a state that is
        // dropped. Whatever fails, damage is named first: a checksum that does not match
        // is the reason, not what the damaged bytes made the decoding stumble on.
        do {
            let version = try reader.read(UInt32.self)
            guard version == TimelineProjection.schemaVersion else {
                throw Failure.otherSchemaVersion(found: version, expected: TimelineProjection.schemaVersion)
            }
            return try decodeBody(&reader, owner: owner, checksum: stored, keeping: views)
        } catch Failure.damaged("checksum mismatch") {
            throw .damaged("checksum mismatch")
        } catch {
            guard stored == CRC32C.checksum(body) else { throw .damaged("checksum mismatch") }
            if let failure = error as? Failure { throw failure }
            throw .damaged("\(error)")
        }
    }

    /// The resume point in a checkpoint's header, read with `read(offset, count)` (the
    /// checkpoint's bytes from `offset`, fewer at its end) without reading the rest: `nil`
    /// when the bytes are not a checkpoint of this schema or hold no resume point. The
    /// body's checksum is not checked: a resume point is trusted only once it verifies
    /// against its log (``FileEventLog/open(path:resumingAt:consume:)``).
    /// - Complexity: O(*c*) for the *c* bytes of the resume point.
    package static func resumePoint(reading read: (_ offset: Int, _ count: Int) -> [UInt8]?) -> LogResumePoint? {
        // magic, schema version, position, now (µs, ns), the point's flag, position and length
        let fixed = magic.count + 4 + 8 + 8 + 2 + 1 + 8 + 4
        guard let head = read(0, fixed), head.count == fixed, head.starts(with: magic) else { return nil }
        return head.withUnsafeBytes { raw -> LogResumePoint? in
            var reader = ByteReader(raw)
            reader.offset = magic.count
            guard let version = try? reader.read(UInt32.self), version == TimelineProjection.schemaVersion,
                  let position = try? reader.read(Int64.self), (try? reader.read(Int64.self)) != nil,
                  (try? reader.read(UInt16.self)) != nil, (try? reader.read(UInt8.self)) == 1,
                  let pointPosition = try? reader.read(Int64.self), pointPosition == position,
                  let count = try? reader.read(UInt32.self), count > 0,
                  let bytes = read(fixed, Int(count)), bytes.count == Int(count) else { return nil }
            return LogResumePoint(position: position, bytes: bytes)
        }
    }

    private static func decodeResumePoint(_ reader: inout ByteReader) throws -> LogResumePoint? {
        switch try reader.read(UInt8.self) {
        case 0: return nil
        case 1: break
        case let flag: throw Failure.damaged("unknown resume point flag \(flag)")
        }
        let position = try reader.read(Int64.self)
        let count = try reader.readCount(minimumSize: 1)
        let bytes = Array(UnsafeRawBufferPointer(rebasing: reader.bytes[reader.offset..<(reader.offset + count)]))
        reader.offset += count
        return LogResumePoint(position: position, bytes: bytes)
    }

    /// A saved set of rows: its views, and where its rows lie in the checkpoint's body.
    private struct SavedRowSet: Sendable {
        var filter: RowFilter
        var placement: OngoingPlacement
        var views: [(definition: ViewDefinition, position: Int64)]
        var rowsStart: Int
        var count: Int
        /// For a set of one timeline's rows taken from a saved list of everything: the
        /// timeline's index (``noTimeline`` when no event names it); `nil` for a saved set.
        var timeline: UInt32?

        /// Whether the set's rows serve `view`.
        func serves(_ view: ViewDefinition) -> Bool { view.filter == filter && view.placement == placement }
    }

    private static let noTimeline = UInt32.max

    /// Reads the header and tables, finds the partitions of events and the views' rows,
    /// and reads the summaries; then decodes the partitions at the same time on every
    /// processor, and then the views and the events' table at the same time. With rows of
    /// a few timelines to restore, the partitions are only checked, and left to be decoded
    /// when needed (``PendingPartitions``); with no rows, not even checked until read.
    private static func decodeBody(_ reader: inout ByteReader, owner: [UInt8], checksum: UInt32,
                                   keeping wanted: Set<ViewDefinition>?) throws -> Checkpoint {
        let position = try reader.read(Int64.self)
        let nowMicroseconds = try reader.read(Int64.self)
        let nowNanoseconds = try reader.read(UInt16.self)
        guard nowNanoseconds < 1000 else { throw Failure.damaged("now's nanoseconds past its microsecond are \(nowNanoseconds)") }
        let now = Instant(microsecondsSinceEpoch: nowMicroseconds, nanosecondsPastMicrosecond: Int(nowNanoseconds))
        let resumePoint = try decodeResumePoint(&reader)
        if let point = resumePoint, point.position != position {
            throw Failure.damaged("resume point at position \(point.position) in a checkpoint at \(position)")
        }

        var timelineIDs: [TimelineID] = []
        var names: [String?] = []
        var seenTimelines = Set<TimelineID>()
        for _ in 0..<(try reader.readCount(minimumSize: 5)) {
            let id = TimelineID(try reader.readString())
            guard seenTimelines.insert(id).inserted else { throw Failure.damaged("timeline \"\(id)\" listed twice") }
            timelineIDs.append(id)
            switch try reader.read(UInt8.self) {
            case 0: names.append(nil)
            case 1: names.append(try reader.readString())
            case let flag: throw Failure.damaged("unknown timeline name flag \(flag)")
            }
        }
        // Each distinct date text is parsed (and so checked) once; the table is in order.
        let dateCount = try reader.readCount(minimumSize: 4)
        var dates: [DateValue] = []
        dates.reserveCapacity(dateCount)
        for _ in 0..<dateCount {
            let date = try DateValue(parsing: reader.readString())
            if let last = dates.last, !(last < date) {
                throw Failure.damaged("date \"\(date)\" out of order after \"\(last)\"")
            }
            dates.append(date)
        }

        let eventCount = try reader.readCount(minimumSize: 17)
        guard try reader.read(UInt32.self) == UInt32(EventTable.partitionCount) else {
            throw Failure.damaged("events in other than \(EventTable.partitionCount) partitions")
        }
        var counts: [Int] = [], lengths: [Int] = []
        for _ in 0..<EventTable.partitionCount {
            let count = Int(try reader.read(UInt32.self))
            let length = try reader.readCount(minimumSize: 1)
            // An event takes at least 17 bytes: a damaged count cannot reserve room for more.
            guard count <= length / 17 else { throw Failure.damaged("a partition of \(count) events in \(length) bytes") }
            counts.append(count)
            lengths.append(length)
        }
        guard counts.reduce(0, +) == eventCount else {
            throw Failure.damaged("partitions of \(counts.reduce(0, +)) events where \(eventCount) were listed")
        }
        let partitions = PartitionSource(lengths: lengths, counts: counts, from: reader.offset, timelines: timelineIDs,
                                         dates: dates)
        guard partitions.end <= reader.bytes.count else { throw Failure.damaged("partitions past the end") }
        reader.offset = partitions.end

        var savedRowSets: [SavedRowSet] = [], derivedRowSets: [SavedRowSet] = []
        var savedDefinitions = Set<ViewDefinition>()
        // A set of rows takes at least 20 bytes (its filter, placement, one view and two
        // counts), a view 10 (order, sections, position).
        for _ in 0..<(try reader.readCount(minimumSize: 20)) {
            let filter: RowFilter = try reader.read(UInt8.self) == 0 ? .all : .timeline(TimelineID(try reader.readString()))
            let placement = try element(OngoingPlacement.self, reader.read(UInt8.self))
            if savedRowSets.contains(where: { $0.filter == filter && $0.placement == placement }) {
                throw Failure.damaged("two sets of rows of one filter and placement")
            }
            var views: [(definition: ViewDefinition, position: Int64)] = []
            for _ in 0..<(try reader.readCount(minimumSize: 10)) {
                let order = try element(ViewOrder.self, reader.read(UInt8.self))
                let sections = try element(Sectioning.self, reader.read(UInt8.self))
                let definition = ViewDefinition(filter: filter, placement: placement, order: order, sections: sections)
                guard savedDefinitions.insert(definition).inserted else { throw Failure.damaged("a view saved twice") }
                views.append((definition, try reader.read(Int64.self)))
            }
            guard !views.isEmpty else { throw Failure.damaged("a set of rows without views") }
            let count = try reader.readCount(minimumSize: 5)
            savedRowSets.append(SavedRowSet(filter: filter, placement: placement, views: views,
                                            rowsStart: reader.offset, count: count))
            reader.offset += count * 5
        }
        if let wanted {
            // A timeline's rows are those of the list of everything of the same placement
            // that are its events', in the same order: taken from it in one pass, they need
            // no sort. (A set of rows serves every view of its filter and placement; order
            // and sections only change how it is read.)
            for definition in wanted where !savedRowSets.contains(where: { $0.serves(definition) }) {
                guard case .timeline(let id) = definition.filter,
                      var derived = savedRowSets.first(where: { $0.filter == .all && $0.placement == definition.placement })
                else { continue }
                if let at = derivedRowSets.firstIndex(where: { $0.serves(definition) }) {
                    derivedRowSets[at].views.append((definition, position))
                    continue
                }
                derived.filter = definition.filter
                derived.views = [(definition, position)]
                derived.timeline = timelineIDs.firstIndex(of: id).map(UInt32.init) ?? noTimeline
                derivedRowSets.append(derived)
            }
            savedRowSets.removeAll { saved in !wanted.contains { saved.serves($0) } }
        }
        savedRowSets += derivedRowSets
        var summaries = SummaryState(loaded: try decodeSummaries(&reader, timelines: timelineIDs, names: names,
                                                                  dates: dates))
        summaries.restorePosition(try reader.read(Int64.self))
        guard reader.isAtEnd else { throw Failure.damaged("unexpected bytes after the summaries") }

        let shared = SharedBytes(bytes: reader.bytes)
        let shardCount = EventTable.defaultShardCount
        let partitionCount = EventTable.partitionCount
        // Every partition checked, or decoded for rows of everything, the checksum beside
        // them; or, with no rows, only the checksum. The rows of timelines that hold half of the events or fewer decode only
        // their events, where they lie (in parts at the same time); more would cost more
        // than decoding every partition and building the table at once.
        var rowEvents = 0
        for timeline in Set(savedRowSets.map(\.filter)) {
            guard case .timeline(let id) = timeline else { rowEvents = eventCount; break }
            rowEvents += summaries.timelines[id]?.eventCount ?? 0
        }
        let mode: PartitionSource.Mode = 2 * rowEvents <= eventCount ? .check : .events
        // With no rows to restore, a partition is checked when it is decoded whole: a
        // command looks up a few events, each decoded alone (``PendingPartitions``). Rows
        // restored in place take their events from any partition, so all are checked
        // here, as the table adopts those events.
        let checkLater = mode == .check && savedRowSets.isEmpty
        let parts: [PartitionEvents]
        if checkLater {
            // Then only the checksum is left to compute: in parts, on every processor.
            guard CRC32C.checksum(shared.bytes, inParts: ProcessInfoCount.active) == checksum else {
                throw Failure.damaged("checksum mismatch")
            }
            parts = []
        } else {
            var decoded = inParallel(partitionCount + 1) { index -> DecodedPart in
                if index == partitionCount { return .checksumMatches(CRC32C.checksum(shared.bytes) == checksum) }
                // A partition that is not well formed is decoded, to say why.
                if mode == .check, partitions.isWellFormed(index, in: shared.bytes) { return .events(PartitionEvents()) }
                return .events(try partitions.decode(index, in: shared.bytes, mode: mode))
            }
            guard case .success(.checksumMatches(true)) = decoded.removeLast() else {
                throw Failure.damaged("checksum mismatch")
            }
            parts = try decoded.map { result in
                guard case .events(let events) = try result.get() else { preconditionFailure("a partition gives events") }
                return events
            }
        }
        var projection = TimelineProjection(views: [], now: now)
        let nowValue = now.microsecondsSinceEpoch
        guard mode == .events else {
            var table = EventTable(pending: PendingPartitions(bytes: owner, source: partitions, checked: !checkLater),
                                   shardCount: shardCount)
            let rowSets = try savedRowSets.map { saved in
                try restoredRowSet(saved, in: shared.bytes, from: partitions, into: &table, now: nowValue)
            }
            projection.restore(position: position, events: table, summaries: summaries, rowSets: rowSets)
            return Checkpoint(projection: projection, resumePoint: resumePoint)
        }
        // Every event by its number, for the rows; unretained, as `parts` holds each
        // snapshot until the tasks below are done (a counted reference to each would retain
        // and release every event, each a cold object).
        let snapshots = parts.flatMap { $0.snapshots.map(Unmanaged.passUnretained) }
        let eventTimelines = derivedRowSets.isEmpty ? [] : parts.flatMap(\.timelines)

        // Each shard of the events' table and each set of rows at the same time.
        let built = try withExtendedLifetime(parts) { try inParallel(shardCount + savedRowSets.count) { [savedRowSets, eventTimelines] task -> RestoredPart in
            if task < shardCount { return .shard(task, try restoredShard(task, of: shardCount, parts: parts)) }
            let saved = savedRowSets[task - shardCount]
            return .rowSet(try restoredRowSet(saved, in: shared.bytes, snapshots: snapshots,
                                               timelines: eventTimelines, now: nowValue))
        }.map { try $0.get() } }
        var shards = [EventTable.Shard](repeating: EventTable.Shard(), count: shardCount)
        var rowSets: [RowSet] = []
        for part in built {
            switch part {
            case .shard(let index, let shard): shards[index] = shard
            case .rowSet(let rowSet): rowSets.append(rowSet)
            }
        }
        projection.restore(position: position, events: EventTable(shards: shards), summaries: summaries,
                           rowSets: rowSets)
        return Checkpoint(projection: projection, resumePoint: resumePoint)
    }

    /// The summaries of the named timelines, as saved (``SavedSummary``), in the order of
    /// the timelines' table.
    private static func decodeSummaries(_ reader: inout ByteReader, timelines: [TimelineID], names: [String?],
                                        dates: [DateValue]) throws -> [SummaryState.LoadedTimeline] {
        var loaded: [SummaryState.LoadedTimeline] = []
        for (id, name) in zip(timelines, names) {
            guard let name else { continue }
            var timeline = SummaryState.LoadedTimeline(id: id, name: name)
            timeline.eventCount = Int(try reader.read(UInt32.self))
            timeline.ongoingCount = Int(try reader.read(UInt32.self))
            guard timeline.ongoingCount <= timeline.eventCount else {
                throw Failure.damaged("\(timeline.ongoingCount) open ranges among \(timeline.eventCount) events")
            }
            let count = try reader.readCount(minimumSize: 8)
            var counted: [CountedDate] = []
            counted.reserveCapacity(count)
            var last = -1
            for _ in 0..<count {
                let date = try reader.readIndex(below: dates.count, of: "date")
                let times = Int(try reader.read(UInt32.self))
                guard date > last, times > 0 else { throw Failure.damaged("a summary's dates out of order") }
                last = date
                counted.append(CountedDate(entry: DatedEntry(dates[date]), count: times))
            }
            timeline.dates = OrderedIndex(counted)
            loaded.append(timeline)
        }
        return loaded
    }

    /// What one of the tasks that decode the blocks found.
    private enum DecodedPart: Sendable {
        case checksumMatches(Bool)
        case events(PartitionEvents)
    }

    /// What one of the tasks that restore a projection built.
    private enum RestoredPart: Sendable {
        case shard(Int, EventTable.Shard)
        case rowSet(RowSet)
    }

    /// The results of `count` tasks run at the same time on every processor, in order.
    static func inParallel<T: Sendable>(_ count: Int, _ task: @Sendable (Int) throws -> T) -> [Result<T, any Error>] {
        concurrentMap(count) { index in Result { try task(index) } }
    }

    /// A set of rows and its views from the saved rows; for a set of one timeline's rows
    /// (``SavedRowSet/timeline``), those of its events, whose timelines `timelines` holds.
    private static func restoredRowSet(_ saved: SavedRowSet, in bytes: UnsafeRawBufferPointer,
                                       snapshots: [Unmanaged<EventSnapshot>], timelines: [UInt32], now: Int64)
        throws -> RowSet {
        var reader = ByteReader(bytes)
        let placement = saved.placement
        var count = saved.count
        if let timeline = saved.timeline {
            guard timelines.count == snapshots.count else { preconditionFailure("a timeline for every event") }
            reader.offset = saved.rowsStart
            count = 0
            for _ in 0..<saved.count {
                let index = try reader.readIndex(below: snapshots.count, of: "row of event")
                reader.offset += 1
                if timelines[index] == timeline { count += 1 }
            }
        }
        reader.offset = saved.rowsStart
        // The rows go straight into the index's nodes, without an array of them first.
        let index = try OrderedIndex<RowEntry>(count: count) { _ in
            var index = try reader.readIndex(below: snapshots.count, of: "row of event")
            if let timeline = saved.timeline {
                // The first pass counted `count` rows of the timeline: the next one is ahead.
                while timelines[index] != timeline {
                    reader.offset += 1
                    index = try reader.readIndex(below: snapshots.count, of: "row of event")
                }
            }
            let kind = try element(RowKind.self, reader.read(UInt8.self))
            return RowEntry(event: snapshots[index].takeUnretainedValue(), kind: kind, now: now, placement: placement)
        }
        var rowSet = RowSet(filter: saved.filter, placement: placement)
        for view in saved.views { rowSet.addView(view.definition, position: view.position, now: now) }
        rowSet.replaceRows(with: index, now: now)
        return rowSet
    }

    /// A set of one timeline's rows (saved, or taken from the saved list of everything:
    /// ``SavedRowSet/timeline``), with its events decoded where they lie in their
    /// partitions and adopted by `table`, which leaves the others there.
    /// - Complexity: O(*r* + *k*) for the *r* saved rows read and the *k* events decoded.
    private static func restoredRowSet(_ saved: SavedRowSet, in bytes: UnsafeRawBufferPointer,
                                       from partitions: PartitionSource, into table: inout EventTable, now: Int64)
        throws -> RowSet {
        let eventCount = partitions.counts.reduce(0, +)
        var reader = ByteReader(bytes)
        reader.offset = saved.rowsStart
        var rows: [(number: Int, kind: RowKind)] = []
        for _ in 0..<saved.count {
            let number = try reader.readIndex(below: eventCount, of: "row of event")
            let code = try reader.read(UInt8.self)
            if let timeline = saved.timeline, try partitions.timeline(ofNumber: number, in: bytes) != Int(timeline) { continue }
            rows.append((number, try element(RowKind.self, code)))
        }
        // Each event once (a range has two rows), decoded in parts at the same time, then
        // adopted by the table in order.
        var slots = [Int32](repeating: -1, count: eventCount)
        var needed: [Int] = []
        for row in rows where slots[row.number] < 0 {
            slots[row.number] = Int32(needed.count)
            needed.append(row.number)
        }
        let shared = SharedBytes(bytes: bytes)
        let parts = max(1, min(64, needed.count / 4_096))
        var snapshots: [EventSnapshot] = []
        snapshots.reserveCapacity(needed.count)
        for part in concurrentMap(parts, { [needed] part in
            Result { () throws(ByteReader.Failure) -> [EventSnapshot] in
                var made: [EventSnapshot] = []
                for number in needed[(part * needed.count / parts)..<((part + 1) * needed.count / parts)] {
                    made.append(try partitions.snapshot(ofNumber: number, in: shared.bytes))
                }
                return made
            }
        }) {
            snapshots += try part.get()
        }
        for place in snapshots.indices { snapshots[place] = table.adopt(snapshots[place]) }
        let index = OrderedIndex<RowEntry>(count: rows.count) { place in
            let (number, kind) = rows[place]
            return RowEntry(event: snapshots[Int(slots[number])], kind: kind, now: now, placement: saved.placement)
        }
        var rowSet = RowSet(filter: saved.filter, placement: saved.placement)
        for view in saved.views { rowSet.addView(view.definition, position: view.position, now: now) }
        rowSet.replaceRows(with: index, now: now)
        return rowSet
    }

    /// Shard `index` of the events' table: its events, and the ids of those each
    /// timeline holds, from its partitions (partition `p` is in shard `p % shardCount`).
    private static func restoredShard(_ index: Int, of shardCount: Int, parts: [PartitionEvents]) throws
    -> EventTable.Shard {
        let mine = stride(from: index, to: parts.count, by: shardCount).map { parts[$0] }
        let count = mine.reduce(0) { $0 + $1.snapshots.count }
        var shard = EventTable.Shard()
        shard.events = SnapshotTable(minimumCapacity: count)
        var lists: [TimelineID: [UInt32]] = [:]
        for part in mine {
            for (offset, snapshot) in part.snapshots.enumerated() {
                let hash = part.hashes[offset]
                shard.events.update(snapshot, hash: hash)
                lists[snapshot.timeline, default: []].append(SnapshotTable.key(for: hash))
            }
        }
        guard shard.events.count == count else { throw Failure.damaged("an event listed twice") }
        shard.members = TimelineMembers(lists: lists)
        return shard
    }

    /// The value of `type` that `code` stands for (``CheckpointCoded``); a code no value has
    /// is a damaged file.
    private static func element<T: CheckpointCoded>(_ type: T.Type, _ code: UInt8) throws -> T {
        guard let value = T(checkpointCode: code) else { throw Failure.damaged("unknown value \(code)") }
        return value
    }
}
