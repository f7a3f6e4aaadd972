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
    package static func load(_ bytes: [UInt8], keeping views: Set<ViewDefinition>? = nil) throws(Failure) -> Checkpoint {
        try bytes.withUnsafeBytes { raw in Result { () throws(Failure) in try load(raw, keeping: views) } }.get()
    }

    private static func load(_ bytes: UnsafeRawBufferPointer, keeping views: Set<ViewDefinition>?) throws(Failure)
        -> Checkpoint {
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
            return try decodeBody(&reader, checksum: stored, keeping: views)
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

    /// Where a block of events lies in the checkpoint's body.
    private struct EventBlock: Sendable {
        var range: Range<Int>
        var count: Int
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

    /// A block of events as decoded: each event's snapshot, timeline index, id's hash
    /// (``EventTable/hash(of:)``, which chooses its shard and its slot) and date indices.
    private struct DecodedEvents: Sendable {
        var snapshots: [EventSnapshot] = []
        var timelines: [UInt32] = []
        var hashes: [UInt64] = []
        /// Two per event: its first date's index, and its end's (or ``noDate``).
        var dates: [UInt32] = []
        /// Whether each event is a range without an end (read here, not from the snapshots,
        /// which the summaries need not touch).
        var isOpenRange: [Bool] = []
    }

    private static let noDate = UInt32.max

    /// Reads the header and tables, finds the blocks of events and the views' rows, then
    /// decodes the blocks at the same time on every processor, and then the views, the
    /// events' table and the summaries at the same time.
    private static func decodeBody(_ reader: inout ByteReader, checksum: UInt32, keeping wanted: Set<ViewDefinition>?)
        throws -> Checkpoint {
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
        var blocks: [EventBlock] = []
        var counted = 0
        for _ in 0..<(try reader.readCount(minimumSize: 8)) {
            let count = Int(try reader.read(UInt32.self))
            let length = try reader.readCount(minimumSize: 1)
            // The writer never writes an empty block: one would only make damage cost a task.
            guard count >= 1, count <= length / 17 else {
                throw Failure.damaged("a block of \(count) events in \(length) bytes")
            }
            blocks.append(EventBlock(range: reader.offset..<(reader.offset + length), count: count))
            reader.offset += length
            counted += count
        }
        guard counted == eventCount else {
            throw Failure.damaged("blocks of \(counted) events where \(eventCount) were listed")
        }

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
        let summariesPosition = try reader.read(Int64.self)
        guard reader.isAtEnd else { throw Failure.damaged("unexpected bytes after the row sets") }

        let shared = SharedBytes(bytes: reader.bytes)
        let shardCount = EventTable.defaultShardCount
        // The checksum first, as the longest task, then the blocks.
        var decoded = inParallel(blocks.count + 1) { [blocks, timelineIDs, dates] index -> DecodedPart in
            if index == 0 { return .checksumMatches(CRC32C.checksum(shared.bytes) == checksum) }
            return .events(try decodeEvents(blocks[index - 1], in: shared.bytes, timelines: timelineIDs, dates: dates))
        }
        guard case .success(.checksumMatches(true)) = decoded.removeFirst() else {
            throw Failure.damaged("checksum mismatch")
        }
        let parts = try decoded.map { result in
            guard case .events(let events) = try result.get() else { preconditionFailure("a block gives events") }
            return events
        }
        // Every event by its index, for the rows; unretained, as `parts` holds each
        // snapshot until the tasks below are done (a counted reference to each would retain
        // and release every event, each a cold object), and none at all for
        // a store that keeps no view.
        let snapshots = savedRowSets.isEmpty ? [] : parts.flatMap { $0.snapshots.map(Unmanaged.passUnretained) }
        let eventTimelines = derivedRowSets.isEmpty ? [] : parts.flatMap(\.timelines)

        // Each shard of the events' table, each set of rows, and the summaries, at the same time.
        let nowValue = now.microsecondsSinceEpoch
        let built = try withExtendedLifetime(parts) { try inParallel(shardCount + savedRowSets.count + 1) { [savedRowSets, eventTimelines, timelineIDs, names, dates] task -> RestoredPart in
            if task < shardCount {
                return .shard(task, try restoredShard(task, of: shardCount, parts: parts, timelines: timelineIDs))
            } else if task == shardCount {
                var summaries = restoredSummaries(parts, timelines: timelineIDs, names: names, dates: dates)
                summaries.restorePosition(summariesPosition)
                return .summaries(summaries)
            } else {
                let saved = savedRowSets[task - shardCount - 1]
                return .rowSet(try restoredRowSet(saved, in: shared.bytes, snapshots: snapshots,
                                                   timelines: eventTimelines, now: nowValue))
            }
        }.map { try $0.get() } }
        var shards = [EventTable.Shard](repeating: EventTable.Shard(), count: shardCount)
        var summaries = SummaryState()
        var rowSets: [RowSet] = []
        for part in built {
            switch part {
            case .shard(let index, let shard): shards[index] = shard
            case .rowSet(let rowSet): rowSets.append(rowSet)
            case .summaries(let state): summaries = state
            }
        }
        var projection = TimelineProjection(views: [], now: now)
        projection.restore(position: position, events: EventTable(shards: shards), summaries: summaries,
                           rowSets: rowSets)
        return Checkpoint(projection: projection, resumePoint: resumePoint)
    }

    /// What one of the tasks that decode the blocks found.
    private enum DecodedPart: Sendable {
        case checksumMatches(Bool)
        case events(DecodedEvents)
    }

    /// What one of the tasks that restore a projection built.
    private enum RestoredPart: Sendable {
        case shard(Int, EventTable.Shard)
        case rowSet(RowSet)
        case summaries(SummaryState)
    }

    /// The results of `count` tasks run at the same time on every processor, in order.
    static func inParallel<T: Sendable>(_ count: Int, _ task: @Sendable (Int) throws -> T) -> [Result<T, any Error>] {
        concurrentMap(count) { index in Result { try task(index) } }
    }

    /// The events of one block.
    private static func decodeEvents(_ block: EventBlock, in bytes: UnsafeRawBufferPointer,
                                     timelines: [TimelineID], dates: [DateValue]) throws -> DecodedEvents {
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[..<block.range.upperBound]))
        reader.offset = block.range.lowerBound
        var decoded = DecodedEvents()
        decoded.snapshots.reserveCapacity(block.count)
        decoded.timelines.reserveCapacity(block.count)
        decoded.hashes.reserveCapacity(block.count)
        decoded.dates.reserveCapacity(2 * block.count)
        decoded.isOpenRange.reserveCapacity(block.count)
        for _ in 0..<block.count {
            let id = EventID(try reader.readString())
            let timelineIndex = try reader.readIndex(below: timelines.count, of: "timeline")
            // Copied from the checkpoint into the snapshot, with no `String` between (an
            // allocation per title longer than 15 bytes).
            let title = try reader.readUTF8()
            let kind = try reader.read(UInt8.self)
            guard kind <= 2 else { throw Failure.damaged("unknown dates kind \(kind)") }
            let start = try reader.readIndex(below: dates.count, of: "date")
            let end = kind == 2 ? try reader.readIndex(below: dates.count, of: "date") : nil
            let eventDates: EventDates = kind == 0
                ? .single(dates[start]) : .range(start: dates[start], end: end.map { dates[$0] })
            decoded.snapshots.append(EventSnapshot.make(id: id, timeline: timelines[timelineIndex], title: title,
                                                   dates: eventDates))
            decoded.timelines.append(UInt32(timelineIndex))
            decoded.hashes.append(EventTable.hash(of: id))
            decoded.dates.append(UInt32(start))
            decoded.dates.append(end.map(UInt32.init) ?? noDate)
            decoded.isOpenRange.append(kind == 1)
        }
        guard reader.isAtEnd else { throw Failure.damaged("unexpected bytes after a block of events") }
        return decoded
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

    /// Shard `index` of the events' table: its events, and the ids of those each
    /// timeline holds, grouped from the blocks.
    private static func restoredShard(_ index: Int, of shardCount: Int, parts: [DecodedEvents],
                                      timelines: [TimelineID]) throws
    -> EventTable.Shard {
        func isMine(_ hash: UInt64) -> Bool { EventTable.shard(ofHash: hash, count: shardCount) == index }
        var count = 0
        for part in parts { for hash in part.hashes where isMine(hash) { count += 1 } }
        var shard = EventTable.Shard()
        shard.events = SnapshotTable(minimumCapacity: count)
        var lists = [[UInt32]](repeating: [], count: timelines.count)
        for part in parts {
            // By offset: a snapshot of another shard is not touched (nor retained).
            for offset in part.hashes.indices where isMine(part.hashes[offset]) {
                let hash = part.hashes[offset]
                shard.events.update(part.snapshots[offset], hash: hash)
                lists[Int(part.timelines[offset])].append(SnapshotTable.key(for: hash))
            }
        }
        guard shard.events.count == count else { throw Failure.damaged("an event listed twice") }
        var members: [TimelineID: [UInt32]] = [:]
        for (timeline, list) in zip(timelines, lists) where !list.isEmpty { members[timeline] = list }
        shard.members = TimelineMembers(lists: members)
        return shard
    }

    /// The summaries of the named timelines.
    ///
    /// The dates' table is in order, so each timeline's dates are put in order by
    /// counting their indices: O(*n* + *d*) for *n* dates of *d* distinct ones, not the
    /// O(*n* log *n*) of sorting each timeline's dates.
    private static func restoredSummaries(
        _ parts: [DecodedEvents], timelines: [TimelineID], names: [String?], dates: [DateValue]
    ) -> SummaryState {
        var loaded = zip(timelines, names).map { SummaryState.LoadedTimeline(id: $0, name: $1 ?? "") }
        // bucketStarts[d] is where date d's occurrences start in date order.
        var bucketStarts = [Int](repeating: 0, count: dates.count + 1)
        for part in parts {
            for (offset, timeline) in part.timelines.enumerated() {
                let timeline = Int(timeline)
                guard names[timeline] != nil else { continue }
                loaded[timeline].eventCount += 1
                if part.isOpenRange[offset] { loaded[timeline].ongoingCount += 1 }
                for date in part.dates[(2 * offset)..<(2 * offset + 2)] where date != noDate {
                    bucketStarts[Int(date) + 1] += 1
                }
            }
        }
        for date in dates.indices { bucketStarts[date + 1] += bucketStarts[date] }
        var timelineByOccurrence = [UInt32](repeating: 0, count: bucketStarts[dates.count])
        var next = bucketStarts
        for part in parts {
            for (offset, timeline) in part.timelines.enumerated() where names[Int(timeline)] != nil {
                for date in part.dates[(2 * offset)..<(2 * offset + 2)] where date != noDate {
                    timelineByOccurrence[next[Int(date)]] = timeline
                    next[Int(date)] += 1
                }
            }
        }
        // Each timeline's distinct dates in order, with their counts: the occurrences of
        // one date come together, so a timeline's count for it is its last run's.
        var sortedDates = [[CountedDate]](repeating: [], count: timelines.count)
        var lastDate = [Int](repeating: -1, count: timelines.count)
        for (date, value) in dates.enumerated() {
            let entry = DatedEntry(value)  // one box for all the occurrences of a timestamp
            for occurrence in bucketStarts[date]..<bucketStarts[date + 1] {
                let timeline = Int(timelineByOccurrence[occurrence])
                if lastDate[timeline] == date {
                    sortedDates[timeline][sortedDates[timeline].count - 1].count += 1
                } else {
                    sortedDates[timeline].append(CountedDate(entry: entry, count: 1))
                    lastDate[timeline] = date
                }
            }
        }
        for timeline in loaded.indices { loaded[timeline].dates = OrderedIndex(sortedDates[timeline]) }
        return SummaryState(loaded: zip(loaded, names).compactMap { $1 == nil ? nil : $0 })
    }

    /// The value of `type` that `code` stands for (``CheckpointCoded``); a code no value has
    /// is a damaged file.
    private static func element<T: CheckpointCoded>(_ type: T.Type, _ code: UInt8) throws -> T {
        guard let value = T(checkpointCode: code) else { throw Failure.damaged("unknown value \(code)") }
        return value
    }
}
