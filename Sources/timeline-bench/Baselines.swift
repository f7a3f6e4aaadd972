import Foundation
import SystemShim
import TimelineCore

/// A date row as a straightforward app keeps it: a struct with its sort key and every
/// field a cell shows (what a fetched object would hold).
struct BaselineRow: Equatable {
    enum Kind: UInt8 { case single, start, end, ongoing }

    /// The sort instant in microseconds (for an ongoing row, max(now, start)).
    var instant: Int64
    var event: String
    /// 0 for single and start rows, 1 for end and ongoing rows.
    var role: UInt8
    var kind: Kind
    var timeline: String
    var title: String
    /// The date shown, nil for an ongoing row.
    var date: String?

    /// The contract's order for views that place ongoing rows at now: instant, event id
    /// (these ids are ASCII, so String order is UTF-8 order), role.
    @inline(__always)
    static func precedes(_ a: BaselineRow, _ b: BaselineRow) -> Bool {
        if a.instant != b.instant { return a.instant < b.instant }
        if a.event != b.event { return a.event < b.event }
        return a.role < b.role
    }

    /// The year section the row belongs to.
    var year: Int { Instant(microsecondsSinceEpoch: instant).utcDate.year }
}

/// A baseline view: all rows or one timeline's, with or without year sections.
struct BaselineViewSpec {
    var timeline: String?
    var byYear: Bool

    /// The three views of ``BenchViews`` for the baselines.
    static let all = [nil, WorkloadModel.viewTimeline.rawValue, WorkloadModel.viewTimeline.rawValue].enumerated().map {
        BaselineViewSpec(timeline: $1, byYear: $0 == 2)
    }
}

/// The baselines' "database": events by id, as an app without a log would keep them.
///
/// It applies the same facts the store records and says, for each event a fact touched,
/// its rows before and after, so a baseline can update (or refetch) its views.
struct BaselineStore {
    struct StoredEvent {
        var timeline: String
        var title: String
        var start: DateValue
        var end: DateValue?
        var isRange: Bool
    }

    /// An event a fact changed: its stored value before and after (nil when absent).
    struct Change {
        var id: String
        var old: StoredEvent?
        var new: StoredEvent?
    }

    private(set) var events: [String: StoredEvent] = [:]
    private var timelines: [String: Set<String>] = [:]
    let now = BenchViews.now.microsecondsSinceEpoch

    init(facts: some Sequence<Fact>) {
        for fact in facts { _ = apply(fact) }
    }

    /// Applies a fact; returns the events it changed (nothing for an unknown event).
    mutating func apply(_ fact: Fact) -> [Change] {
        switch fact {
        case .timelineCreated(let id, _):
            timelines[id.rawValue, default: []] = []
            return []
        case .timelineRenamed, .commandRejected:
            return []
        case .timelineRemoved(let id):
            return (timelines.removeValue(forKey: id.rawValue) ?? []).compactMap { event in
                events.removeValue(forKey: event).map { Change(id: event, old: $0, new: nil) }
            }
        case .eventAdded(let id, let timeline, let title, let date):
            let event = StoredEvent(timeline: timeline.rawValue, title: title, start: date, end: nil, isRange: false)
            events[id.rawValue] = event
            timelines[timeline.rawValue, default: []].insert(id.rawValue)
            return [Change(id: id.rawValue, old: nil, new: event)]
        case .eventRetitled(let id, let title):
            return update(id) { $0.title = title }
        case .dateSet(let id, let date):
            return update(id) { ($0.start, $0.end, $0.isRange) = (date, nil, false) }
        case .rangeSet(let id, let start, let end):
            return update(id) { ($0.start, $0.end, $0.isRange) = (start, end, true) }
        case .rangeClosed(let id, let end):
            return update(id) { $0.end = end }
        case .rangeReopened(let id):
            return update(id) { $0.end = nil }
        case .eventMoved(let id, let timeline):
            guard let old = events[id.rawValue] else { return [] }
            timelines[old.timeline]?.remove(id.rawValue)
            timelines[timeline.rawValue, default: []].insert(id.rawValue)
            return update(id) { $0.timeline = timeline.rawValue }
        case .eventRemoved(let id):
            guard let old = events.removeValue(forKey: id.rawValue) else { return [] }
            timelines[old.timeline]?.remove(id.rawValue)
            return [Change(id: id.rawValue, old: old, new: nil)]
        }
    }

    private mutating func update(_ id: EventID, _ body: (inout StoredEvent) -> Void) -> [Change] {
        guard let old = events[id.rawValue] else { return [] }
        var new = old
        body(&new)
        events[id.rawValue] = new
        return [Change(id: id.rawValue, old: old, new: new)]
    }

    /// The rows of an event that `spec` shows.
    func rows(of id: String, _ event: StoredEvent?, in spec: BaselineViewSpec) -> [BaselineRow] {
        guard let event, spec.timeline == nil || event.timeline == spec.timeline else { return [] }
        func row(_ instant: Int64, _ role: UInt8, _ kind: BaselineRow.Kind, _ date: DateValue?) -> BaselineRow {
            BaselineRow(instant: instant, event: id, role: role, kind: kind, timeline: event.timeline, title: event.title,
                        date: date?.text)
        }
        let start = event.start.instant.microsecondsSinceEpoch
        guard event.isRange else { return [row(start, 0, .single, event.start)] }
        if let end = event.end { return [row(start, 0, .start, event.start), row(end.instant.microsecondsSinceEpoch, 1, .end, end)] }
        return [row(start, 0, .start, event.start), row(max(now, start), 1, .ongoing, nil)]
    }

    /// Every row `spec` shows, sorted.
    func sortedRows(in spec: BaselineViewSpec) -> [BaselineRow] {
        events.flatMap { rows(of: $0.key, $0.value, in: spec) }.sorted(by: BaselineRow.precedes)
    }
}

/// Baseline (a): each view is a sorted array of rows; a change removes and inserts rows at
/// binary-searched indices (O(log n) to find, O(n) to shift the array), and the indices
/// touched are the change set.
struct SortedArrayBaseline {
    struct View {
        let spec: BaselineViewSpec
        var rows: [BaselineRow]
        /// Rows per year, for a sectioned view.
        var sections: [Int: Int] = [:]
    }

    private(set) var store: BaselineStore
    private(set) var views: [View]

    init(facts: some Sequence<Fact>) {
        let store = BaselineStore(facts: facts)
        views = BaselineViewSpec.all.map { spec in
            var view = View(spec: spec, rows: store.sortedRows(in: spec))
            if spec.byYear { for row in view.rows { view.sections[row.year, default: 0] += 1 } }
            return view
        }
        self.store = store
    }

    /// Applies a command's facts; returns how many indices the change sets name.
    mutating func apply(_ command: Command) -> Int {
        var touched = 0
        for fact in CommandFacts.facts(of: command) {
            for change in store.apply(fact) {
                for index in views.indices {
                    let spec = views[index].spec
                    touched += Self.update(&views[index], removing: store.rows(of: change.id, change.old, in: spec),
                                           inserting: store.rows(of: change.id, change.new, in: spec))
                }
            }
        }
        return touched
    }

    /// Removes and inserts a change's rows (the view is the only thing touched, so its
    /// arrays stay uniquely referenced and shift in place).
    private static func update(_ view: inout View, removing old: [BaselineRow], inserting new: [BaselineRow]) -> Int {
        var touched = 0
        for row in old {
            let at = lowerBound(of: row, in: view.rows)
            guard at < view.rows.count, view.rows[at].event == row.event, view.rows[at].role == row.role else { continue }
            view.rows.remove(at: at)
            touched += 1
            if view.spec.byYear {
                let year = row.year
                view.sections[year, default: 0] -= 1
                if view.sections[year] == 0 {
                    view.sections[year] = nil
                    touched += 1
                }
            }
        }
        for row in new {
            view.rows.insert(row, at: lowerBound(of: row, in: view.rows))
            touched += 1
            if view.spec.byYear {
                let year = row.year
                if view.sections[year] == nil { touched += 1 }
                view.sections[year, default: 0] += 1
            }
        }
        return touched
    }

    private static func lowerBound(of row: BaselineRow, in rows: [BaselineRow]) -> Int {
        var low = 0, high = rows.count
        while low < high {
            let mid = (low + high) / 2
            if BaselineRow.precedes(rows[mid], row) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// Baseline (b): what a fetched-results controller effectively does. After a change each
/// view's rows are edited in a copy (the event's old rows filtered out, its new rows
/// appended), the copy sorted again, diffed against the old array with `difference(from:)`,
/// and its sections recounted. Swift's sort finds sorted runs, so this re-sort costs about
/// one comparison per row: the baseline is as cheap as re-sorting gets.
struct ResortDiffBaseline {
    struct View {
        let spec: BaselineViewSpec
        var rows: [BaselineRow]
        var sections: [(year: Int, count: Int)]
    }

    private(set) var store: BaselineStore
    private(set) var views: [View]

    init(facts: some Sequence<Fact>) {
        let store = BaselineStore(facts: facts)
        views = BaselineViewSpec.all.map { spec in
            let rows = store.sortedRows(in: spec)
            return View(spec: spec, rows: rows, sections: Self.sections(of: rows))
        }
        self.store = store
    }

    /// Applies a command's facts, then re-sorts and diffs every view; returns the size of
    /// the differences.
    mutating func apply(_ command: Command) -> Int {
        let changes = CommandFacts.facts(of: command).flatMap { store.apply($0) }
        var size = 0
        for index in views.indices {
            let spec = views[index].spec
            var rows = views[index].rows
            for change in changes {
                rows.removeAll { $0.event == change.id }
                rows += store.rows(of: change.id, change.new, in: spec)
            }
            rows.sort(by: BaselineRow.precedes)
            size += rows.difference(from: views[index].rows).count
            if spec.byYear {
                let sections = Self.sections(of: rows)
                size += sections.map(\.year).difference(from: views[index].sections.map(\.year)).count
                views[index].sections = sections
            }
            views[index].rows = rows
        }
        return size
    }

    /// The year sections of sorted rows, by scanning them (as `sectionNameKeyPath` does).
    private static func sections(of rows: [BaselineRow]) -> [(year: Int, count: Int)] {
        var sections: [(year: Int, count: Int)] = []
        for row in rows {
            let year = row.year
            if sections.last?.year == year { sections[sections.count - 1].count += 1 } else { sections.append((year, 1)) }
        }
        return sections
    }
}

/// The replay baseline: the log split into lines, each decoded by one `JSONDecoder` into
/// a Codable struct, kept in an array as the record reader keeps its records.
enum JSONDecoderBaseline {
    /// A log line as an app would decode it: every member the store writes, but fewer
    /// checks than the record reader (no checksum, dates, or rules), in the baseline's favour.
    struct CodableRecord: Decodable {
        struct Data: Decodable {
            var event, timeline, title, name, date, start, end: String?
        }

        var seq: Int64?
        var type: String
        var data: Data
        var at: String?
        var v: Int?
        var cmd: String?
        var more: Int?
        var crc: String?
    }

    /// Decodes every line of `bytes`; returns how many records it decoded.
    static func decodeLines(_ bytes: [UInt8]) throws -> Int {
        let decoder = JSONDecoder()
        var records: [CodableRecord] = []
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var start = 0
            while start < raw.count {
                let end = memchr(base + start, 0x0A, raw.count - start).map { UnsafeRawPointer($0) - base } ?? raw.count
                if end > start {
                    records.append(try decoder.decode(CodableRecord.self, from: Data(bytes: base + start, count: end - start)))
                }
                start = end + 1
            }
        }
        return records.count
    }
}

/// The durable-append baseline: the same bytes written with one `write` and made durable
/// with `fsync`, straight through the C library — the floor for any log.
final class RawAppendFile {
    private let descriptor: Int32

    init(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        precondition(descriptor >= 0, "cannot create \(path): errno \(errno)")
    }

    deinit { close(descriptor) }

    func appendDurably(_ bytes: [UInt8]) {
        FileWriter.writeAll(bytes, to: descriptor)
        precondition(fsync(descriptor) == 0, "fsync failed: errno \(errno)")
    }
}
