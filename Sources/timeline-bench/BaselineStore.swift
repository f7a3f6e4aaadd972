import TimelineCore

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
    let now: Int64

    init(now: Instant) { self.now = now.microsecondsSinceEpoch }

    /// Applies a fact; returns the events it changed (nothing for an unknown event).
    mutating func apply(_ fact: Fact) -> [Change] {
        switch fact {
        case .timelineCreated(let id, _):
            timelines[id.rawValue, default: []] = []
            return []
        case .timelineRenamed, .commandRejected:
            return []
        case .timelineRemoved(let id):
            let members = timelines.removeValue(forKey: id.rawValue) ?? []
            return members.compactMap { event in
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
            return update(id) { $0 = StoredEvent(timeline: $0.timeline, title: $0.title, start: date, end: nil, isRange: false) }
        case .rangeSet(let id, let start, let end):
            return update(id) { $0 = StoredEvent(timeline: $0.timeline, title: $0.title, start: start, end: end, isRange: true) }
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
        guard let event else { return [] }
        if let timeline = spec.timeline, event.timeline != timeline { return [] }
        return rows(of: id, event)
    }

    /// All rows of an event.
    func rows(of id: String, _ event: StoredEvent) -> [BaselineRow] {
        let start = event.start.instant.microsecondsSinceEpoch
        guard event.isRange else {
            return [BaselineRow(instant: start, event: id, role: 0, kind: .single, timeline: event.timeline,
                                title: event.title, date: event.start.text)]
        }
        let first = BaselineRow(instant: start, event: id, role: 0, kind: .start, timeline: event.timeline,
                                title: event.title, date: event.start.text)
        if let end = event.end {
            return [first, BaselineRow(instant: end.instant.microsecondsSinceEpoch, event: id, role: 1, kind: .end,
                                       timeline: event.timeline, title: event.title, date: end.text)]
        }
        return [first, BaselineRow(instant: max(now, start), event: id, role: 1, kind: .ongoing,
                                   timeline: event.timeline, title: event.title, date: nil)]
    }
}
