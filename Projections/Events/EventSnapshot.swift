import TimelineCore

/// An immutable copy of an event, shared by all of its rows in every view.
///
/// Rows refer to the snapshot instead of copying titles and ids, so a row in the index is
/// three words; a change to the event makes a new snapshot, and rows handed out earlier
/// keep the old one.
///
/// One allocation per event: the ids, the dates' instants and a layout word in the
/// header (``EventSnapshotHeader``), the title's UTF-8 bytes after it, then the text of
/// each date whose text does not follow from its instant and precision (timestamps; see
/// ``DateValue/hasCanonicalText``): an event is one allocation, where a class holding a
/// `String` title and two `DateValue`s would make a second one for the title and take
/// more room for the dates. ``title`` and ``dates`` are made on access.
///
/// The class has no stored properties: ``allocate(header:count:fill:)`` lays the header
/// and the bytes out behind the object with `ManagedBufferPointer` (`ManagedBuffer`
/// itself cannot be `Sendable`), and `deinit` destroys the header. It is `Sendable`
/// because the header and the bytes are written once, before the reference is returned,
/// and only read afterwards; the header holds `Sendable` values only.
final class EventSnapshot: Sendable {
    private typealias Storage = ManagedBufferPointer<EventSnapshotHeader, UInt8>

    private var storage: Storage { Storage(unsafeBufferObject: self) }

    /// The fixed part: ids, instants and layout (a copy, retaining the ids: read single
    /// fields through ``layout``, ``start`` and ``end`` on hot paths).
    private var header: EventSnapshotHeader { storage.header }
    private var layout: EventSnapshotLayout { storage.withUnsafeMutablePointerToHeader { $0.pointee.layout } }
    private var start: Int64 { storage.withUnsafeMutablePointerToHeader { $0.pointee.start } }
    private var end: Int64 { storage.withUnsafeMutablePointerToHeader { $0.pointee.end } }
    private var nanoseconds: UInt32 { storage.withUnsafeMutablePointerToHeader { $0.pointee.nanoseconds } }

    /// The `count` bytes at `offset` after the header, for the duration of `body`.
    private func bytes<R>(at offset: Int, count: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        storage.withUnsafeMutablePointerToElements { body(UnsafeBufferPointer(start: $0 + offset, count: count)) }
    }

    deinit {
        _ = storage.withUnsafeMutablePointerToHeader { $0.deinitialize(count: 1) }
    }

    /// A snapshot of an event with these parts.
    static func make(id: EventID, timeline: TimelineID, title: String, dates: EventDates) -> EventSnapshot {
        var title = title
        return title.withUTF8 { make(id: id, timeline: timeline, title: $0, dates: dates) }
    }

    /// A snapshot of an event whose title is `title`'s bytes, which must be UTF-8.
    static func make(id: EventID, timeline: TimelineID, title: UnsafeBufferPointer<UInt8>,
                     dates: EventDates) -> EventSnapshot {
        let start: DateValue, end: DateValue?, shape: EventSnapshotLayout.Shape
        switch dates {
        case .single(let date): (start, end, shape) = (date, nil, .single)
        case .range(let from, nil): (start, end, shape) = (from, nil, .openRange)
        case .range(let from, let to?): (start, end, shape) = (from, to, .closedRange)
        }
        var startText = start.hasCanonicalText ? "" : start.text
        var endText = end.map { $0.hasCanonicalText ? "" : $0.text } ?? ""
        return startText.withUTF8 { startBytes in
            endText.withUTF8 { endBytes in
                let layout = EventSnapshotLayout(
                    titleCount: title.count, startTextCount: startBytes.count, endTextCount: endBytes.count,
                    startPrecision: start.precision, endPrecision: end?.precision ?? .year, shape: shape)
                let header = EventSnapshotHeader(
                    id: id, timeline: timeline, start: start.instant.microsecondsSinceEpoch,
                    end: end?.instant.microsecondsSinceEpoch ?? 0, layout: layout,
                    nanoseconds: EventSnapshotHeader.nanoseconds(start: start.instant, end: end?.instant))
                return allocate(header: header, count: layout.byteCount) { bytes in
                    var at = bytes
                    func append(_ part: UnsafeBufferPointer<UInt8>) {
                        guard part.count > 0 else { return }
                        at.update(from: part.baseAddress!, count: part.count)
                        at += part.count
                    }
                    append(title)
                    append(startBytes)
                    append(endBytes)
                }
            }
        }
    }

    /// A snapshot with this header and `count` bytes that `fill` writes.
    private static func allocate(
        header: EventSnapshotHeader, count: Int, fill: (UnsafeMutablePointer<UInt8>) -> Void
    ) -> EventSnapshot {
        let storage = Storage(bufferClass: EventSnapshot.self, minimumCapacity: count) { _, _ in header }
        storage.withUnsafeMutablePointerToElements(fill)
        return unsafeDowncast(storage.buffer, to: EventSnapshot.self)
    }

    // MARK: Reading

    /// The event's id.
    var id: EventID { storage.withUnsafeMutablePointerToHeader { $0.pointee.id } }
    /// Compares the ids of two snapshots' events by their UTF-8 bytes (0 for the same snapshot).
    static func compareIDs(_ a: EventSnapshot, _ b: EventSnapshot) -> Int {
        if a === b { return 0 }
        return a.storage.withUnsafeMutablePointerToHeader { ha in
            b.storage.withUnsafeMutablePointerToHeader { hb in
                EventID.compareUTF8(ha.pointee.id.rawValue, hb.pointee.id.rawValue)
            }
        }
    }

    /// The timeline the event belongs to.
    var timeline: TimelineID { storage.withUnsafeMutablePointerToHeader { $0.pointee.timeline } }

    /// The title's UTF-8 bytes, for the duration of `body`.
    func withTitleBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes(at: 0, count: layout.titleCount, body)
    }

    /// The title, made from its bytes.
    var title: String { withTitleBytes { String(decoding: $0, as: UTF8.self) } }

    /// The first date's instant in microseconds: the single date or the range's start.
    var startInstant: Int64 { start }
    /// A closed range's end instant in microseconds; `nil` for one date or an open range.
    var endInstant: Int64? { layout.shape == .closedRange ? end : nil }
    /// The nanoseconds past ``startInstant``'s microsecond (0–999).
    var startNanoseconds: UInt16 { UInt16(truncatingIfNeeded: nanoseconds) }
    /// The nanoseconds past a closed range's end instant's microsecond (0–999; 0 otherwise).
    var endNanoseconds: UInt16 { UInt16(truncatingIfNeeded: nanoseconds >> 16) }
    /// Whether either date's instant has a sub-microsecond part.
    var hasNanoseconds: Bool { nanoseconds != 0 }

    /// Whether the event is a range without an end.
    var isOpenRange: Bool { layout.shape == .openRange }

    /// The first date: the single date, or the range's start.
    var startDate: DateValue {
        let layout = layout
        return date(instant: Instant(microsecondsSinceEpoch: start, nanosecondsPastMicrosecond: Int(startNanoseconds)),
                    precision: layout.startPrecision, text: layout.startText)
    }

    /// A closed range's end; `nil` otherwise.
    var endDate: DateValue? {
        let layout = layout
        guard layout.shape == .closedRange else { return nil }
        return date(instant: Instant(microsecondsSinceEpoch: end, nanosecondsPastMicrosecond: Int(endNanoseconds)),
                    precision: layout.endPrecision, text: layout.endText)
    }

    /// The event's dates.
    var dates: EventDates {
        switch layout.shape {
        case .single: .single(startDate)
        case .openRange: .range(start: startDate, end: nil)
        case .closedRange: .range(start: startDate, end: endDate)
        }
    }

    private func date(instant: Instant, precision: DateValue.Precision, text: Range<Int>) -> DateValue {
        guard !text.isEmpty else { return DateValue(canonical: instant, precision: precision) }
        let text = bytes(at: text.lowerBound, count: text.count) { String(decoding: $0, as: UTF8.self) }
        return DateValue(text: text, instant: instant, precision: precision)
    }

    /// The event's dates as a summary keeps them: the start, and a closed range's end;
    /// a year, month or day without making its text.
    var datedEntries: (start: DatedEntry, end: DatedEntry?) {
        let layout = layout
        let first = layout.startTextCount == 0
            ? DatedEntry(canonical: start, precision: layout.startPrecision) : DatedEntry(startDate)
        guard layout.shape == .closedRange else { return (first, nil) }
        let last = layout.endTextCount == 0
            ? DatedEntry(canonical: end, precision: layout.endPrecision) : DatedEntry(endDate!)
        return (first, last)
    }

    /// The event as the domain sees it.
    var event: Event { Event(id: id, timeline: timeline, title: title, dates: dates) }

    /// The kind of the event's first row: `single` for one date, `start` for a range.
    var firstRowKind: RowKind {
        layout.shape == .single ? .single : .start
    }

    /// The kind of the event's second row: `ongoing` or `end` for a range, `nil` for one date.
    var secondRowKind: RowKind? {
        switch layout.shape {
        case .single: nil
        case .openRange: .ongoing
        case .closedRange: .end
        }
    }

    // MARK: Comparing without making strings

    /// Whether the two events have the same title, as `String` compares them (canonically
    /// equivalent texts are the same title).
    ///
    /// Equal bytes are the same title; different bytes are a different title unless
    /// either is not ASCII, where the strings are made and compared.
    func hasSameTitle(as other: EventSnapshot) -> Bool {
        let (equal, ascii) = withTitleBytes { mine in
            other.withTitleBytes { theirs in
                mine.hasSameBytes(as: theirs)
                    ? (true, true) : (false, !mine.contains { $0 >= 0x80 } && !theirs.contains { $0 >= 0x80 })
            }
        }
        return equal || (!ascii && title == other.title)
    }

    /// Whether the two events have the same dates (`dates == other.dates`).
    func hasSameDates(as other: EventSnapshot) -> Bool {
        start == other.start && end == other.end && nanoseconds == other.nanoseconds
            && layout.withoutTitle == other.layout.withoutTitle
            && hasSameBytes(as: other) { $0.dateTexts }
    }

    /// Whether the date a row of this kind shows is the same in both events, compared by
    /// instant, precision and kept text, without making it.
    func hasSameDate(for kind: RowKind, as other: EventSnapshot) -> Bool {
        let mine = layout, theirs = other.layout
        switch kind {
        case .ongoing:
            return true
        case .single, .start:
            return start == other.start && startNanoseconds == other.startNanoseconds
                && mine.startPrecision == theirs.startPrecision
                && hasSameBytes(as: other) { $0.startText }
        case .end:
            guard mine.shape == .closedRange, theirs.shape == .closedRange else {
                return mine.shape != .closedRange && theirs.shape != .closedRange
            }
            return end == other.end && endNanoseconds == other.endNanoseconds && mine.endPrecision == theirs.endPrecision
                && hasSameBytes(as: other) { $0.endText }
        }
    }

    /// Whether the bytes that `part` places in each snapshot are the same.
    private func hasSameBytes(as other: EventSnapshot, _ part: (EventSnapshotLayout) -> Range<Int>) -> Bool {
        let mine = part(layout), theirs = part(other.layout)
        guard mine.count == theirs.count else { return false }
        return bytes(at: mine.lowerBound, count: mine.count) { a in
            other.bytes(at: theirs.lowerBound, count: theirs.count) { b in a.hasSameBytes(as: b) }
        }
    }

    // MARK: Changing

    /// The event in another timeline.
    func with(timeline: TimelineID) -> EventSnapshot {
        let old = header
        return storage.withUnsafeMutablePointerToElements { elements in
            Self.allocate(header: EventSnapshotHeader(id: old.id, timeline: timeline, start: old.start, end: old.end,
                                                      layout: old.layout, nanoseconds: old.nanoseconds),
                          count: old.layout.byteCount) { $0.update(from: elements, count: old.layout.byteCount) }
        }
    }

    /// The event with another title.
    func with(title: String) -> EventSnapshot {
        var title = title
        let old = header
        return title.withUTF8 { newTitle in
            bytes(at: old.layout.dateTexts.lowerBound, count: old.layout.dateTexts.count) { texts in
                let layout = old.layout.with(titleCount: newTitle.count)
                return Self.allocate(header: EventSnapshotHeader(id: old.id, timeline: old.timeline, start: old.start,
                                                                 end: old.end, layout: layout,
                                                                 nanoseconds: old.nanoseconds),
                                     count: layout.byteCount) { bytes in
                    if newTitle.count > 0 { bytes.update(from: newTitle.baseAddress!, count: newTitle.count) }
                    if texts.count > 0 { (bytes + newTitle.count).update(from: texts.baseAddress!, count: texts.count) }
                }
            }
        }
    }

    /// The event with other dates.
    func with(dates: EventDates) -> EventSnapshot {
        withTitleBytes { Self.make(id: id, timeline: timeline, title: $0, dates: dates) }
    }
}

/// A snapshot changes as ``Fact/eventEffect`` says, into a new snapshot.
extension EventSnapshot: EventValue {}

/// The fixed part of an ``EventSnapshot``.
struct EventSnapshotHeader {
    let id: EventID
    let timeline: TimelineID
    /// The first date's instant in microseconds.
    let start: Int64
    /// A closed range's end instant in microseconds; 0 otherwise.
    let end: Int64
    let layout: EventSnapshotLayout
    /// The nanoseconds past each instant's microsecond: the start's in the low 16 bits, a
    /// closed range's end's in the high 16 (0 for nearly every event). Last, in the
    /// header's 4 bytes of tail: the title's bytes follow it.
    let nanoseconds: UInt32

    /// ``nanoseconds`` for these instants.
    static func nanoseconds(start: Instant, end: Instant?) -> UInt32 {
        UInt32(start.nanosecondsPastMicrosecond) | UInt32(end?.nanosecondsPastMicrosecond ?? 0) << 16
    }
}

/// How an ``EventSnapshot``'s bytes are laid out, and what its dates are, in one word.
///
/// Bits 0–31: the title's byte count; 32–39 and 40–47: the byte counts of the start's
/// and end's texts (0 for a canonical text); 48–50 and 51–53: their precisions; 54–55:
/// the shape.
struct EventSnapshotLayout: Equatable {
    enum Shape: UInt64 {
        case single, openRange, closedRange
    }

    private let bits: UInt64

    init(titleCount: Int, startTextCount: Int, endTextCount: Int,
         startPrecision: DateValue.Precision, endPrecision: DateValue.Precision, shape: Shape) {
        precondition(titleCount <= Int(UInt32.max), "a title is at most 4 GiB")
        precondition(startTextCount <= 255 && endTextCount <= 255, "a date's text is at most 255 bytes")
        bits = UInt64(titleCount) | UInt64(startTextCount) << 32 | UInt64(endTextCount) << 40
            | UInt64(startPrecision.rawValue) << 48 | UInt64(endPrecision.rawValue) << 51 | shape.rawValue << 54
    }

    private init(bits: UInt64) { self.bits = bits }

    var titleCount: Int { Int(bits & 0xFFFF_FFFF) }
    var startTextCount: Int { Int(bits >> 32 & 0xFF) }
    var endTextCount: Int { Int(bits >> 40 & 0xFF) }
    var startPrecision: DateValue.Precision { DateValue.Precision(rawValue: Int(bits >> 48 & 7))! }
    var endPrecision: DateValue.Precision { DateValue.Precision(rawValue: Int(bits >> 51 & 7))! }
    var shape: Shape { Shape(rawValue: bits >> 54 & 3)! }

    /// The bytes after the header: the title and the kept date texts.
    var byteCount: Int { titleCount + startTextCount + endTextCount }

    /// Where the start's kept text is among the bytes (empty for a canonical date).
    var startText: Range<Int> { titleCount..<(titleCount + startTextCount) }
    /// Where the end's kept text is (empty for a canonical date or no end).
    var endText: Range<Int> { startText.upperBound..<byteCount }
    /// Where the dates' kept texts are.
    var dateTexts: Range<Int> { titleCount..<byteCount }

    /// Everything but the title's count: equal for two events with the same dates.
    var withoutTitle: UInt64 { bits >> 32 }

    func with(titleCount: Int) -> EventSnapshotLayout {
        precondition(titleCount <= Int(UInt32.max), "a title is at most 4 GiB")
        return EventSnapshotLayout(bits: bits & ~0xFFFF_FFFF | UInt64(titleCount))
    }
}
