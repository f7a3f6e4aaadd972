import Synchronization
import TimelineCore

/// The events of one partition of a checkpoint as decoded: each event's snapshot, timeline
/// index, id's hash (``EventTable/hash(of:)``, which chooses its partition, shard and
/// slot), date indices and whether it is an open range.
struct PartitionEvents: Sendable {
    var snapshots: [EventSnapshot] = []
    var timelines: [UInt32] = []
    var hashes: [UInt64] = []
    /// Two per event: its first date's index, and its end's (or ``noDate``).
    var dates: [UInt32] = []
    /// Whether each event is a range without an end.
    var isOpenRange: [Bool] = []

    static let noDate = UInt32.max

    /// The snapshot of the event with this id and hash, if the partition holds it.
    /// - Complexity: O(*n*) for the partition's *n* events (a partition is a 64th of them).
    func snapshot(_ id: EventID, hash: UInt64) -> EventSnapshot? {
        for (offset, candidate) in hashes.enumerated() where candidate == hash && snapshots[offset].id == id {
            return snapshots[offset]
        }
        return nil
    }
}

/// Where a partition's events lie in a checkpoint, with what decoding them needs.
///
/// The partitions' bytes come one after the other, then each partition's index: for each
/// of its events, its key (``SnapshotTable/key(for:)`` of its id's hash) and where it
/// starts in the partition, 4 bytes each, in the order of keys; then where each event
/// starts in its partition, then the index of its timeline, 4 bytes each, in the order of
/// the events' numbers (partition after partition, as they lie), which the saved rows name.
struct PartitionSource: Sendable {
    /// Each partition's range of bytes and number of events.
    var ranges: [Range<Int>]
    var counts: [Int]
    /// Where each partition's index lies.
    var indexRanges: [Range<Int>]
    /// Where the events' places lie, and their timelines' indices.
    var places: Range<Int>
    var timelineIndices: Range<Int>
    /// The number of each partition's first event, and the number of events after the last.
    var firstNumbers: [Int]
    var timelines: [TimelineID]
    var dates: [DateValue]

    /// The partitions of these lengths and counts, the first at `start`, then their indices.
    init(lengths: [Int], counts: [Int], from start: Int, timelines: [TimelineID], dates: [DateValue]) {
        ranges = Checkpoint.ranges(of: lengths, from: start)
        indexRanges = Checkpoint.ranges(of: counts.map { 8 * $0 }, from: ranges.last?.upperBound ?? start)
        let total = counts.reduce(0, +)
        let placesStart = indexRanges.last?.upperBound ?? start
        places = placesStart..<(placesStart + 4 * total)
        timelineIndices = places.upperBound..<(places.upperBound + 4 * total)
        firstNumbers = [0]
        for count in counts { firstNumbers.append(firstNumbers[firstNumbers.count - 1] + count) }
        self.counts = counts
        self.timelines = timelines
        self.dates = dates
    }

    /// Where the partitions, their indices, the places and the timelines' indices end.
    var end: Int { timelineIndices.upperBound }

    /// The partition of the event numbered `number`, and where the event starts in the bytes.
    /// - Complexity: O(log *p*) for *p* partitions.
    private func place(of number: Int, in bytes: UnsafeRawBufferPointer) throws(ByteReader.Failure)
        -> (partition: Int, start: Int) {
        guard number >= 0, number < firstNumbers[firstNumbers.count - 1] else {
            throw ByteReader.Failure(reason: "row of event \(number) of \(firstNumbers[firstNumbers.count - 1])")
        }
        var low = 0, high = counts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if firstNumbers[middle] <= number { low = middle } else { high = middle - 1 }
        }
        let offset = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: places.lowerBound + 4 * number,
                                                                  as: UInt32.self)))
        guard offset < ranges[low].count else { throw ByteReader.Failure(reason: "event \(number) placed past its partition") }
        return (low, ranges[low].lowerBound + offset)
    }

    /// The timeline index of the event numbered `number` (below the number of events).
    @inline(__always)
    func timeline(ofNumber number: Int, in bytes: UnsafeRawBufferPointer) throws(ByteReader.Failure) -> Int {
        let index = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: timelineIndices.lowerBound + 4 * number,
                                                                 as: UInt32.self)))
        guard index < timelines.count else { throw ByteReader.Failure(reason: "timeline \(index) of \(timelines.count)") }
        return index
    }

    /// The snapshot of the event numbered `number`, decoded at its place.
    func snapshot(ofNumber number: Int, in bytes: UnsafeRawBufferPointer) throws(ByteReader.Failure) -> EventSnapshot {
        let (partition, start) = try place(of: number, in: bytes)
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[..<ranges[partition].upperBound]))
        reader.offset = start
        guard let snapshot = try decodeEvent(&reader, make: true).snapshot else { preconditionFailure("an event is made") }
        return snapshot
    }

    /// The snapshot of the event with this id and hash in partition `index`, found through
    /// its index and decoded alone.
    /// - Complexity: O(log *n*) for the partition's *n* events.
    func snapshot(_ id: EventID, hash: UInt64, partition index: Int, in bytes: UnsafeRawBufferPointer) -> EventSnapshot? {
        let key = SnapshotTable.key(for: hash)
        let entries = indexRanges[index]
        func entry(_ number: Int) -> (key: UInt32, offset: Int) {
            let at = entries.lowerBound + 8 * number
            return (UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)),
                    Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self))))
        }
        var low = 0, high = counts[index]
        while low < high {
            let middle = (low + high) / 2
            if entry(middle).key < key { low = middle + 1 } else { high = middle }
        }
        var number = low
        while number < counts[index], case let (found, offset) = entry(number), found == key {
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[..<ranges[index].upperBound]))
            reader.offset = ranges[index].lowerBound + offset
            if let event = try? decodeEvent(&reader, make: true), let snapshot = event.snapshot, snapshot.id == id {
                return snapshot
            }
            number += 1
        }
        return nil
    }

    /// One event at the reader's offset: its snapshot (with `make`), timeline and date
    /// indices, and whether it is an open range; every bound, index and string checked.
    @inline(__always)
    private func decodeEvent(_ reader: inout ByteReader, make: Bool) throws(ByteReader.Failure)
        -> (snapshot: EventSnapshot?, timeline: Int, start: Int, end: Int?, isOpenRange: Bool) {
        let idBytes = try reader.readUTF8()
        guard !idBytes.isEmpty else { throw ByteReader.Failure(reason: "an event without an id at byte \(reader.offset)") }
        let timeline = try reader.readIndex(below: timelines.count, of: "timeline")
        // Copied from the checkpoint into the snapshot, with no `String` between (an
        // allocation per title longer than 15 bytes).
        let title = try reader.readUTF8()
        let kind = try reader.read(UInt8.self)
        guard kind <= 2 else { throw ByteReader.Failure(reason: "unknown dates kind \(kind)") }
        let start = try reader.readIndex(below: dates.count, of: "date")
        let end = kind == 2 ? try reader.readIndex(below: dates.count, of: "date") : nil
        guard make else { return (nil, timeline, start, end, kind == 1) }
        let eventDates: EventDates = kind == 0
            ? .single(dates[start]) : .range(start: dates[start], end: end.map { dates[$0] })
        let snapshot = EventSnapshot.make(id: EventID(String(decoding: idBytes, as: UTF8.self)),
                                          timeline: timelines[timeline], title: title, dates: eventDates)
        return (snapshot, timeline, start, end, kind == 1)
    }

    /// What ``decode(_:in:mode:)`` makes of a partition.
    enum Mode {
        /// Nothing: every bound, index and string is checked, as for decoding.
        case check
        /// Each event's timeline and date indices and whether it is an open range.
        case indices
        /// Everything ``PartitionEvents`` holds.
        case events
    }

    /// Whether partition `index` of `bytes` decodes: every check of
    /// ``decode(_:in:mode:)``, in one walk of the bytes that makes nothing (a partition is
    /// checked before its first lookup, or at loading when rows are restored in place).
    /// - Complexity: O(*b*) for the partition's *b* bytes.
    func isWellFormed(_ index: Int, in bytes: UnsafeRawBufferPointer) -> Bool {
        let range = ranges[index]
        guard range.upperBound <= bytes.count else { return false }
        guard let base = bytes.baseAddress, !range.isEmpty else { return counts[index] == 0 }
        var at = range.lowerBound
        let end = range.upperBound
        let timelineLimit = UInt32(timelines.count), dateLimit = UInt32(dates.count)
        func word() -> UInt32? {
            guard end - at >= 4 else { return nil }
            defer { at += 4 }
            return UInt32(littleEndian: (base + at).loadUnaligned(as: UInt32.self))
        }
        func text() -> Int? {
            guard let count = word().map(Int.init), count <= end - at else { return nil }
            let utf8 = UnsafeRawBufferPointer(start: base + at, count: count)
            at += count
            guard ByteReader.isUTF8(utf8) else { return nil }
            return count
        }
        for _ in 0..<counts[index] {
            guard let id = text(), id > 0, let timeline = word(), timeline < timelineLimit, text() != nil,
                  at < end else { return false }
            let kind = base.load(fromByteOffset: at, as: UInt8.self)
            at += 1
            guard kind <= 2, let start = word(), start < dateLimit else { return false }
            if kind == 2 {
                guard let end = word(), end < dateLimit else { return false }
            }
        }
        return at == end && (try? checkIndex(index, in: bytes)) != nil
    }

    /// Checks partition `index`'s index: within bounds, its keys in order and its places
    /// inside the partition (a lookup decodes the event at a place with every check, so
    /// a wrong place can only miss).
    /// - Complexity: O(*n*) for the partition's *n* events.
    func checkIndex(_ index: Int, in bytes: UnsafeRawBufferPointer) throws(ByteReader.Failure) {
        let entries = indexRanges[index]
        guard entries.upperBound <= bytes.count else { throw ByteReader.Failure(reason: "an index past the end") }
        var previous: UInt32 = 0
        for at in stride(from: entries.lowerBound, to: entries.upperBound, by: 8) {
            let key = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
            let offset = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self))
            guard key >= previous, Int(offset) < ranges[index].count else {
                throw ByteReader.Failure(reason: "an index entry out of order or place at byte \(at)")
            }
            previous = key
        }
    }

    /// The events of partition `index`, read from `bytes` (the checkpoint's body).
    func decode(_ index: Int, in bytes: UnsafeRawBufferPointer, mode: Mode = .events)
        throws(ByteReader.Failure) -> PartitionEvents {
        let range = ranges[index], count = counts[index]
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[..<range.upperBound]))
        reader.offset = range.lowerBound
        var decoded = PartitionEvents()
        if mode != .check {
            decoded.timelines.reserveCapacity(count)
            decoded.dates.reserveCapacity(2 * count)
            decoded.isOpenRange.reserveCapacity(count)
        }
        if mode == .events {
            decoded.snapshots.reserveCapacity(count)
            decoded.hashes.reserveCapacity(count)
        }
        for _ in 0..<count {
            let event = try decodeEvent(&reader, make: mode == .events)
            guard mode != .check else { continue }
            decoded.timelines.append(UInt32(event.timeline))
            decoded.dates.append(UInt32(event.start))
            decoded.dates.append(event.end.map(UInt32.init) ?? PartitionEvents.noDate)
            decoded.isOpenRange.append(event.isOpenRange)
            guard let snapshot = event.snapshot else { continue }
            decoded.snapshots.append(snapshot)
            decoded.hashes.append(EventTable.hash(of: snapshot.id))
        }
        guard reader.isAtEnd else { throw ByteReader.Failure(reason: "unexpected bytes after a partition of events") }
        try checkIndex(index, in: bytes)
        return decoded
    }
}

/// The partitions of a checkpoint's events that no one has needed yet: a store opened to
/// decide commands reads the events its commands look up, each through its partition's
/// index, not every event (``EventTable``).
///
/// It keeps the checkpoint's bytes (their checksum matched), and checks a partition when
/// it is decoded whole, unless loading checked them all: a store that restores no rows
/// reads a few events of each partition, and checking all 64 was most of opening. A lookup
/// decodes its one event with every check. A partition whose bytes do not decode (behind
/// a matching checksum: a forged file, as a damaged one fails the checksum) holds no event
/// once that is found, never a trap: a forged checkpoint can say anything well formed
/// too, and a store never saves a checkpoint from it (``EventTable/lostPartitions``).
/// Each partition is decoded once, whichever copy of the table asks first.
final class PendingPartitions: Sendable {
    /// What is known of a partition's bytes.
    private enum Partition: Sendable {
        /// Not decoded whole yet, and not checked by loading (lookups decode single events).
        case unchecked
        /// Checked (``PartitionSource/isWellFormed(_:in:)``), not decoded.
        case checked
        case decoded(PartitionEvents)
        /// They do not decode: the partition holds no event.
        case malformed
    }

    /// The checkpoint's bytes.
    private let bytes: [UInt8]
    private let source: PartitionSource
    private let partitions: Mutex<[Partition]>

    /// Partitions of `bytes` as `source` places them; `checked`: loading checked each.
    init(bytes: [UInt8], source: PartitionSource, checked: Bool) {
        precondition(source.ranges.count == EventTable.partitionCount, "a checkpoint has a range for every partition")
        self.bytes = bytes
        self.source = source
        partitions = Mutex(Array(repeating: checked ? .checked : .unchecked, count: source.ranges.count))
    }

    /// How many events partition `index` holds: as listed, until it is found malformed.
    func count(of index: Int) -> Int {
        partitions.withLock { if case .malformed = $0[index] { 0 } else { source.counts[index] } }
    }

    /// How many partitions have been decoded so far, and how many were found malformed.
    var decodedCount: Int { partitions.withLock { $0.count { if case .decoded = $0 { true } else { false } } } }
    var malformedCount: Int { partitions.withLock { $0.count { if case .malformed = $0 { true } else { false } } } }

    /// The snapshot of the event with this id and hash in partition `index`, if it holds
    /// it: from the partition if it was decoded, else found through its index and decoded
    /// alone, with every check of decoding (a forged index or place can only miss).
    ///
    /// The partition is not checked whole for a lookup: a store validating the records
    /// after its checkpoint (up to thousands) looks up events in every partition, and
    /// checking each whole was a fifth of a command's processor time. A partition that
    /// does not decode is found so when it is decoded whole, and holds no event from then on.
    /// - Complexity: O(log *n*) for the partition's *n* events.
    func snapshot(_ id: EventID, hash: UInt64, partition index: Int) -> EventSnapshot? {
        switch partitions.withLock({ $0[index] }) {
        case .decoded(let events): return events.snapshot(id, hash: hash)
        case .malformed: return nil
        case .checked, .unchecked: return bytes.withUnsafeBytes { source.snapshot(id, hash: hash, partition: index, in: $0) }
        }
    }

    /// The events of partition `index`, decoded on the first call (none if it is malformed).
    /// - Complexity: O(*n*) for its *n* events on the first call, O(1) after.
    func events(of index: Int) -> PartitionEvents {
        switch partitions.withLock({ $0[index] }) {
        case .decoded(let events): return events
        case .malformed: return PartitionEvents()
        case .checked, .unchecked: break
        }
        let decoded = bytes.withUnsafeBytes { raw in
            Result { () throws(ByteReader.Failure) in try source.decode(index, in: raw) }
        }
        return partitions.withLock { states in
            switch states[index] {
            case .decoded(let earlier): return earlier
            case .malformed: return PartitionEvents()
            case .checked, .unchecked: break
            }
            guard case .success(let events) = decoded else {
                states[index] = .malformed
                return PartitionEvents()
            }
            states[index] = .decoded(events)
            return events
        }
    }
}

/// What a checkpoint saves of a named timeline's summary: its counts, and its distinct
/// dates in order (indices into the checkpoint's table of dates) with how many times its
/// events have each.
struct SavedSummary: Sendable {
    var events = 0
    var ongoing = 0
    var dates: [(date: UInt32, times: UInt32)] = []
}

extension Checkpoint {
    /// Each timeline's summary counted from its events' indices (``PartitionSource/Mode/indices``),
    /// empty for a timeline without a name (`named` false: no summary lists it).
    ///
    /// The dates' table is in order, so each timeline's dates are put in order by
    /// counting their indices: O(*n* + *d*) for *n* dates of *d* distinct ones, not the
    /// O(*n* log *n*) of sorting each timeline's dates.
    static func summaryCounts(_ parts: [PartitionEvents], named: [Bool], dateCount: Int) -> [SavedSummary] {
        var summaries = [SavedSummary](repeating: SavedSummary(), count: named.count)
        // bucketStarts[d] is where date d's occurrences start in date order.
        var bucketStarts = [Int](repeating: 0, count: dateCount + 1)
        for part in parts {
            for (offset, timeline) in part.timelines.enumerated() where named[Int(timeline)] {
                summaries[Int(timeline)].events += 1
                if part.isOpenRange[offset] { summaries[Int(timeline)].ongoing += 1 }
                for date in part.dates[(2 * offset)..<(2 * offset + 2)] where date != PartitionEvents.noDate {
                    bucketStarts[Int(date) + 1] += 1
                }
            }
        }
        for date in 0..<dateCount { bucketStarts[date + 1] += bucketStarts[date] }
        var timelineByOccurrence = [UInt32](repeating: 0, count: bucketStarts[dateCount])
        var next = bucketStarts
        for part in parts {
            for (offset, timeline) in part.timelines.enumerated() where named[Int(timeline)] {
                for date in part.dates[(2 * offset)..<(2 * offset + 2)] where date != PartitionEvents.noDate {
                    timelineByOccurrence[next[Int(date)]] = timeline
                    next[Int(date)] += 1
                }
            }
        }
        // Each timeline's distinct dates in order, with their counts: the occurrences of
        // one date come together, so a timeline's count for it is its last run's.
        var lastDate = [Int](repeating: -1, count: named.count)
        for date in 0..<dateCount {
            for occurrence in bucketStarts[date]..<bucketStarts[date + 1] {
                let timeline = Int(timelineByOccurrence[occurrence])
                if lastDate[timeline] == date {
                    summaries[timeline].dates[summaries[timeline].dates.count - 1].times += 1
                } else {
                    summaries[timeline].dates.append((UInt32(date), 1))
                    lastDate[timeline] = date
                }
            }
        }
        return summaries
    }
}
