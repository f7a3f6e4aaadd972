import TimelineCore
import TimelineProjections

/// One event to draw: a single date, or a range (closed, or open until now).
struct PictureItem: Hashable, Sendable {
    /// How an item extends in time.
    enum Extent: Hashable, Sendable {
        /// One date: a mark.
        case single
        /// A range with an end: a bar from start to end.
        case closed(end: DateValue)
        /// A range without an end: a bar from start to now.
        case open
    }

    /// The event's id.
    var event: String
    /// The index of the item's lane in ``PictureInput/lanes``.
    var lane: Int
    var title: String
    /// The single date, or the range's start.
    var start: DateValue
    var extent: Extent

    /// `Title · 2002-10 – 2008-06`, the tooltip's text (the title isolated: a right-to-left
    /// title keeps the dates after it).
    var tooltip: String {
        switch extent {
        case .single: "\(title.directionIsolated) · \(start.text)"
        case .closed(let end): "\(title.directionIsolated) · \(start.text) – \(end.text)"
        case .open: "\(title.directionIsolated) · since \(start.text), ongoing"
        }
    }
}

/// A timeline drawn as one lane.
struct PictureLane: Hashable, Sendable {
    /// The timeline's id.
    var id: String
    /// The timeline's name, the lane's heading.
    var name: String
    /// The index of the lane's colour in ``Palette``: the timeline's place among all the
    /// projection's timelines, so that a timeline keeps its colour in every view.
    var colour: Int
}

/// What a picture shows, taken from a projection: lanes, items, "now", and how the view
/// wants its axis. Everything after this is a pure function of it.
struct PictureInput: Hashable, Sendable {
    var title: String
    var lanes: [PictureLane] = []
    var items: [PictureItem] = []
    var now: Instant
    /// The unit of the axis's ticks that the view's sections ask for, if any.
    var axisUnit: Sectioning = .none

    init(title: String, lanes: [PictureLane], items: [PictureItem], now: Instant, axisUnit: Sectioning = .none) {
        self.title = title
        self.lanes = lanes
        self.items = items
        self.now = now
        self.axisUnit = axisUnit
    }

    /// The items of a view: a mark per single row, a bar per range (its start row; the
    /// end or ongoing row of the same event adds nothing). Lanes come in the order of
    /// their first row in the view; a view of one timeline is that timeline's lane even
    /// when it has no rows.
    init(view: ViewDefinition, projection: TimelineProjection) {
        var projection = projection
        if projection.rows(view) == nil { projection.addView(view) }
        let rows = projection.rows(view) ?? RowList()
        let summaries = projection.timelineSummaries
        var colours: [TimelineID: Int] = [:]
        for (offset, summary) in summaries.enumerated() { colours[summary.id] = offset }
        var laneIndex: [TimelineID: Int] = [:]
        var lanes: [PictureLane] = []
        func lane(_ id: TimelineID) -> Int {
            if let index = laneIndex[id] { return index }
            let index = lanes.count
            laneIndex[id] = index
            lanes.append(PictureLane(id: id.rawValue, name: projection.timeline(id)?.name ?? id.rawValue,
                                     colour: colours[id] ?? index))
            return index
        }
        var title = "All timelines"
        if case .timeline(let id) = view.filter {
            _ = lane(id)
            title = projection.timeline(id)?.name ?? id.rawValue
        }
        var items: [PictureItem] = []
        items.reserveCapacity(rows.count / 2 + 1)
        for row in rows {
            let extent: PictureItem.Extent
            switch row.kind {
            case .single:
                extent = .single
            case .start:
                guard case .range(_, let end) = projection.eventDates(row.event) else { continue }
                extent = end.map { .closed(end: $0) } ?? .open
            case .end, .ongoing:
                continue
            }
            guard let date = row.date else { continue }
            items.append(PictureItem(event: row.event.rawValue, lane: lane(row.timeline), title: row.title,
                                     start: date, extent: extent))
        }
        self.init(title: title, lanes: lanes, items: items, now: projection.now, axisUnit: view.sections)
    }
}
