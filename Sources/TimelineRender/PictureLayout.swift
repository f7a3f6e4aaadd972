import TimelineCore

/// A title placed on, after or before its item.
struct PlacedLabel: Hashable, Sendable {
    enum Placement: Hashable, Sendable {
        /// On the bar, from its start.
        case inside
        /// After the bar or mark, reading on from it.
        case after
        /// Before the bar or mark, ending where it starts (near the right edge).
        case before
    }

    /// The text drawn: the title, or its beginning and "…".
    var text: String
    var placement: Placement
    /// Where the text starts (or ends, when ``placement`` is ``Placement/before``).
    var x: Double
    var baseline: Double
    /// The estimated width of ``text``.
    var width: Double
    var elided: Bool

    /// The horizontal span the text covers.
    var span: ClosedRange<Double> { placement == .before ? (x - width)...x : x...(x + width) }
}

/// An item where the layout put it.
struct PlacedItem: Hashable, Sendable {
    enum Shape: Hashable, Sendable {
        /// A bar from `x0` to `x1`; `open` when its range goes on after now.
        case bar(open: Bool)
        /// A mark centred on `x0` (`x1` is the same).
        case mark
    }

    /// The index of the item in the input.
    var item: Int
    var lane: Int
    /// The row in the lane (0 is the top one): items of one row never overlap.
    var row: Int
    var x0: Double
    var x1: Double
    /// The top of the bar (a mark is centred in the same height).
    var y: Double
    var shape: Shape
    /// Whether the item begins before the axis does (`--from`), or ends after it (`--to`).
    var clippedBefore = false
    var clippedAfter = false
    var label: PlacedLabel?
    /// The room the item takes in its row, its title's planned room included: the next item
    /// of the row starts after it.
    var reserved: ClosedRange<Double>
    /// The title before the item instead of after it, and the room that takes: a row
    /// where the item fits only that way is taken before a new row.
    var alternative: LabelChoice?

    struct LabelChoice: Hashable, Sendable {
        var label: PlacedLabel
        var reserved: ClosedRange<Double>
    }
}

/// A lane: a timeline's heading and its rows.
struct LaneBox: Hashable, Sendable {
    var lane: Int
    var top: Double
    var bottom: Double
    var rows: Int
    var headingBaseline: Double
    /// How many items of the lane are drawn (or counted).
    var count: Int
}

/// In a picture of counts: how many events of a lane fall in (or run through) one period.
struct CountColumn: Hashable, Sendable {
    var lane: Int
    var x0: Double
    var x1: Double
    var top: Double
    var bottom: Double
    var count: Int
    /// The period, `2019` or `2019-03`.
    var period: String
}

/// A label of the time axis where it is drawn.
struct AxisLabel: Hashable, Sendable {
    var text: String
    var x: Double
    var baseline: Double
}

/// Where everything of a picture goes: a pure function of the input and the options.
///
/// Coordinates are CSS pixels from the top left. Invariants the tests hold: the items of
/// one row of a lane never overlap (nor do their titles), an open bar ends at now, every
/// label lies within the picture.
struct PictureLayout: Hashable, Sendable {
    var input: PictureInput
    var width: Double
    var height: Double
    /// The heading: the view's title, shortened to the picture's width.
    var title: String
    var subtitle: String
    /// Each lane's heading: its timeline's name, shortened to the picture's width.
    var laneNames: [String] = []
    /// A line under the subtitle: what is left out, or that the picture counts.
    var note: String?
    /// The baselines of the title, the subtitle and the note.
    var titleBaseline = margin + titleSize
    var subtitleBaseline = margin + titleSize + 10 + subtitleSize + 2
    var noteBaseline = margin + titleSize + 10 + subtitleSize + 20
    var axis: TimeAxis
    var plotTop: Double
    var plotBottom: Double
    var axisLabels: [AxisLabel]
    /// The line of "now", when now is on the axis.
    var nowX: Double?
    var nowLabel: AxisLabel?
    var lanes: [LaneBox]
    var items: [PlacedItem]
    var columns: [CountColumn]

    // MARK: Metrics

    static let margin = 24.0
    /// How near the picture's edge a title may come.
    static let edge = 8.0
    static let titleSize = 18.0
    static let subtitleSize = 12.5
    static let axisSize = 11.5
    static let headingSize = 13.0
    static let labelSize = 12.0
    static let rowPitch = 26.0
    static let barHeight = 18.0
    static let markRadius = 6.0
    /// Room between items of a row, and between an item and its title.
    static let gap = 8.0
    static let labelPadding = 6.0
    /// A title after or before its item reserves at most this much room in its row; a
    /// longer one may be shortened.
    static let maximumReservedLabel = 220.0
    static let minimumBarWidth = 3.0
    /// How far the arrow at the end of an open bar reaches past now.
    static let openTail = 7.0
    static let laneHeading = 26.0
    static let laneSpacing = 10.0
    static let countHeight = 44.0
    /// More items than this are counted, not drawn one by one.
    static let maximumDrawnItems = 2_500
    /// More rows than this in all lanes together are counted, not drawn.
    static let maximumRows = 150
    /// Lanes drawn apart in a picture of counts; the rest share one.
    static let maximumCountedLanes = 24

    init(_ input: PictureInput, options: TimelinePicture.Options) {
        self.input = input
        width = Double(max(320, options.width))
        let (first, last) = Self.span(of: input, from: options.from, to: options.to)
        axis = TimeAxis(first: first, last: last, keepFirst: options.from != nil, keepLast: options.to != nil,
                        left: Self.margin, right: width - Self.margin, unit: TickStep(input.axisUnit))
        title = input.title
        (subtitle, height, plotTop, plotBottom) = ("", 0, 0, 0)
        (axisLabels, lanes, items, columns) = ([], [], [], [])

        let visible = visibleItems()
        var notes: [String] = []
        if visible.count < input.items.count {
            notes.append("\(Self.counted(input.items.count - visible.count, "event")) outside the axis not shown")
        }
        if visible.count > Self.maximumDrawnItems || !placeItems(visible) {
            notes.append(placeColumns(visible))
        }
        note = notes.isEmpty ? nil : notes.joined(separator: " · ")
        subtitle = subtitleText(visible: visible)
        // Headings in bold take up to a tenth more room than the estimate.
        let room = width - 2 * Self.margin
        title = Self.shortened(input.title, room: room / 1.12, size: Self.titleSize)
        // The subtitle and the note are cut with "…" too, never clipped at the edge.
        subtitle = Self.shortened(subtitle, room: room, size: Self.subtitleSize)
        note = note.map { Self.shortened($0, room: room, size: Self.subtitleSize) }
        laneNames = self.input.lanes.enumerated().map { lane, info in
            let count = TextWidth.of(Self.counted(lanes.indices.contains(lane) ? lanes[lane].count : 0, "event"),
                                     size: Self.axisSize)
            return Self.shortened(info.name, room: (room - count - 8) / 1.12, size: Self.headingSize)
        }
        // The header: title, subtitle, the note if any, then the axis's labels.
        let axisTop = (note == nil ? subtitleBaseline : noteBaseline) + 12
        plotTop = axisTop + 22
        shift(by: plotTop + 16)
        plotBottom = lanes.last.map { $0.bottom + 6 } ?? plotTop + 60
        placeAxisLabels(top: axisTop)
        height = plotBottom + (axisLabels.contains { $0.baseline > plotBottom } ? 32 : 20)
    }

    // MARK: Span

    /// The first and last instants to show: `from` and `to` when given, else the items'
    /// earliest and latest instants (an open range lasts until now; one that starts after
    /// now, until its start), else a year around now.
    static func span(of input: PictureInput, from: Instant?, to: Instant?) -> (Instant, Instant) {
        var first: Instant?, last: Instant?
        for item in input.items {
            let start = item.start.instant, end = item.end(now: input.now)
            if first.map({ start < $0 }) ?? true { first = start }
            if last.map({ end > $0 }) ?? true { last = end }
        }
        let year: Int64 = 365 * 86_400_000_000
        var lo = from ?? first ?? Instant(microsecondsSinceEpoch: input.now.microsecondsSinceEpoch - year / 2)
        var hi = to ?? last ?? Instant(microsecondsSinceEpoch: input.now.microsecondsSinceEpoch + year / 2)
        if from == nil, to != nil, lo > hi { lo = Instant(microsecondsSinceEpoch: hi.microsecondsSinceEpoch - year) }
        if to == nil, from != nil, hi < lo { hi = Instant(microsecondsSinceEpoch: lo.microsecondsSinceEpoch + year) }
        return (lo, hi)
    }

    /// The indices of the items that touch the axis's span.
    private func visibleItems() -> [Int] {
        let lo = axis.scale.lo, hi = axis.scale.hi
        return input.items.indices.filter { index in
            let item = input.items[index]
            return item.start.instant <= hi && item.end(now: input.now) >= lo
        }
    }

    // MARK: Items one by one

    /// Places every item in rows of its lane; `false` when they take too many rows.
    private mutating func placeItems(_ visible: [Int]) -> Bool {
        let scale = axis.scale
        var byLane = [[PlacedItem]](repeating: [], count: input.lanes.count)
        for index in visible {
            let item = input.items[index]
            byLane[item.lane].append(plannedItem(index, item, scale: scale))
        }
        var placed: [PlacedItem] = []
        var boxes: [LaneBox] = []
        var laneTop = 0.0
        var totalRows = 0
        for (lane, planned) in byLane.enumerated() {
            var laneItems = Self.pack(planned)
            let rows = (laneItems.map(\.row).max() ?? -1) + 1
            totalRows += rows
            if totalRows > Self.maximumRows { return false }
            let rowsTop = laneTop + Self.laneHeading
            for i in laneItems.indices {
                laneItems[i].y = rowsTop + Double(laneItems[i].row) * Self.rowPitch + 4
            }
            Self.fitLabels(&laneItems, left: Self.edge, right: width - Self.edge)
            let bottom = rowsTop + Double(max(rows, 1)) * Self.rowPitch + 4
            boxes.append(LaneBox(lane: lane, top: laneTop, bottom: bottom, rows: rows,
                                 headingBaseline: laneTop + 18, count: laneItems.count))
            placed += laneItems
            laneTop = bottom + Self.laneSpacing
        }
        lanes = boxes
        items = placed
        return true
    }

    /// An item's bar or mark, and where its title is meant to go, before it has a row.
    private func plannedItem(_ index: Int, _ item: PictureItem, scale: TimeScale) -> PlacedItem {
        let left = scale.left, right = scale.right
        let start = scale.x(item.start.instant)
        let end = scale.x(item.end(now: input.now))
        var x0 = max(left, min(right, start)), x1 = max(left, min(right, end))
        let shape: PlacedItem.Shape
        switch item.extent {
        case .single: shape = .mark
        case .closed: shape = .bar(open: false)
        case .open: shape = .bar(open: true)
        }
        var extent: ClosedRange<Double>
        if shape == .mark {
            x1 = x0
            extent = (x0 - Self.markRadius)...(x0 + Self.markRadius)
        } else {
            if x1 - x0 < Self.minimumBarWidth {
                if x0 + Self.minimumBarWidth <= right { x1 = x0 + Self.minimumBarWidth } else { x0 = x1 - Self.minimumBarWidth }
            }
            extent = x0...(x1 + (shape == .bar(open: true) ? Self.openTail : 0))
        }
        let textWidth = TextWidth.of(item.title, size: Self.labelSize)
        var label = PlacedLabel(text: item.title, placement: .after, x: extent.upperBound + Self.labelPadding,
                                baseline: 0, width: textWidth, elided: false)
        let reservedWidth = min(textWidth, Self.maximumReservedLabel)
        let before = extent.lowerBound - Self.labelPadding
        let fitsBefore = before - reservedWidth >= Self.edge
        var alternative: PlacedItem.LabelChoice?
        let body = extent
        if shape != .mark, x1 - x0 >= textWidth + 2 * Self.labelPadding {
            label.placement = .inside
            label.x = x0 + Self.labelPadding
        } else if label.x + reservedWidth <= width - Self.edge {
            extent = extent.lowerBound...(label.x + reservedWidth)
            if fitsBefore {
                var other = label
                other.placement = .before
                other.x = before
                alternative = PlacedItem.LabelChoice(label: other, reserved: (before - reservedWidth)...body.upperBound)
            }
        } else if fitsBefore {
            label.placement = .before
            label.x = before
            extent = (before - reservedWidth)...extent.upperBound
        } else {
            extent = extent.lowerBound...max(extent.upperBound, width - Self.edge)
        }
        return PlacedItem(item: index, lane: item.lane, row: 0, x0: x0, x1: x1, y: 0, shape: shape,
                          clippedBefore: start < left, clippedAfter: end > right, label: label, reserved: extent,
                          alternative: alternative)
    }

    /// Puts each item in the first row where it fits after (or with its title before it,
    /// when that is the only way, before) what the row holds, with a gap; a new row when
    /// none has room. Items are taken from left to right, then in input order.
    /// - Complexity: O(*n* log *n* + *n* · *r*) for *n* items in *r* rows.
    static func pack(_ planned: [PlacedItem]) -> [PlacedItem] {
        let order = planned.indices.sorted { a, b in
            let xa = planned[a].x0, xb = planned[b].x0
            return xa != xb ? xa < xb : planned[a].item < planned[b].item
        }
        // The right end of everything placed in each row so far.
        var rowEnds: [Double] = []
        var result: [PlacedItem] = []
        result.reserveCapacity(planned.count)
        for index in order {
            var item = planned[index]
            var row = rowEnds.count
            for (candidate, end) in rowEnds.enumerated() {
                if end + gap <= item.reserved.lowerBound {
                    row = candidate
                    break
                }
                if let alternative = item.alternative, end + gap <= alternative.reserved.lowerBound {
                    item.label = alternative.label
                    item.reserved = alternative.reserved
                    row = candidate
                    break
                }
            }
            item.alternative = nil
            if row == rowEnds.count { rowEnds.append(item.reserved.upperBound) }
            rowEnds[row] = max(rowEnds[row], item.reserved.upperBound)
            item.row = row
            result.append(item)
        }
        return result
    }

    /// Gives each title its baseline and the room it really has: up to the next item of its
    /// row (or back to the previous one, for a title before its item) and the picture's
    /// edges. A title longer than its room is shortened, or dropped (its tooltip stays).
    static func fitLabels(_ items: inout [PlacedItem], left: Double, right: Double) {
        var byRow: [Int: [Int]] = [:]
        for index in items.indices { byRow[items[index].row, default: []].append(index) }
        for row in byRow.keys.sorted() {
            let members = byRow[row]!.sorted { items[$0].reserved.lowerBound < items[$1].reserved.lowerBound }
            for (position, index) in members.enumerated() {
                guard var label = items[index].label else { continue }
                label.baseline = items[index].y + 13
                let room: Double
                switch label.placement {
                case .inside:
                    room = items[index].x1 - items[index].x0 - 2 * labelPadding
                case .after:
                    let next = position + 1 < members.count ? items[members[position + 1]].visibleStart - gap : right
                    room = min(next, right) - label.x
                case .before:
                    let previous = position > 0 ? items[members[position - 1]].visibleEnd + gap : left
                    room = label.x - max(previous, left)
                }
                if let fitted = TextWidth.fitted(label.text, room: room, size: labelSize) {
                    label.text = fitted.text
                    label.elided = fitted.elided
                    label.width = TextWidth.of(fitted.text, size: labelSize)
                    items[index].label = label
                } else {
                    items[index].label = nil
                }
            }
        }
    }

    // MARK: Counts

    /// Counts the items per lane and period; returns the note that says so.
    private mutating func placeColumns(_ visible: [Int]) -> String {
        let scale = axis.scale
        let step = TickStep.all.first { scale.pixels(per: $0) >= 4 && $0 >= .months(1) } ?? .years(1000)
        let bounds = step.boundaries(from: scale.lo, to: scale.hi)
        // Lanes beyond the limit share the last one, "n other timelines".
        var laneOf = Array(input.lanes.indices)
        var laneCount = input.lanes.count
        if laneCount > Self.maximumCountedLanes {
            laneCount = Self.maximumCountedLanes
            for lane in laneOf.indices where lane >= laneCount - 1 { laneOf[lane] = laneCount - 1 }
            let others = input.lanes.count - (laneCount - 1)
            input.lanes = Array(input.lanes.prefix(laneCount - 1))
                + [PictureLane(id: "", name: "\(others) other timelines", colour: laneCount - 1)]
        }
        // A difference array per lane: +1 where an item's first period starts, -1 after its last.
        let periods = max(1, bounds.count - 1)
        var differences = [[Int]](repeating: [Int](repeating: 0, count: periods + 1), count: laneCount)
        var totals = [Int](repeating: 0, count: laneCount)
        func period(of instant: Instant) -> Int {
            var low = 0, high = bounds.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if bounds[middle] <= instant { low = middle } else { high = middle - 1 }
            }
            return max(0, min(periods - 1, low))
        }
        for index in visible {
            let item = input.items[index]
            let lane = laneOf[item.lane]
            let first = period(of: item.start.instant), last = period(of: item.end(now: input.now))
            differences[lane][first] += 1
            differences[lane][last + 1] -= 1
            totals[lane] += 1
        }
        var laneTop = 0.0
        for lane in 0..<laneCount {
            let base = laneTop + Self.laneHeading + Self.countHeight
            var running = 0
            var counts: [Int] = []
            for p in 0..<periods {
                running += differences[lane][p]
                counts.append(running)
            }
            let highest = max(1, counts.max() ?? 1)
            for p in 0..<periods where counts[p] > 0 {
                let x0 = max(scale.left, scale.x(bounds[p])), x1 = min(scale.right, scale.x(bounds[p + 1]))
                let height = max(1.5, Self.countHeight * Double(counts[p]) / Double(highest))
                columns.append(CountColumn(lane: lane, x0: x0, x1: max(x0 + 1, x1 - 0.5), top: base - height,
                                           bottom: base, count: counts[p], period: step.periodText(bounds[p])))
            }
            let bottom = base + 6
            lanes.append(LaneBox(lane: lane, top: laneTop, bottom: bottom, rows: 0, headingBaseline: laneTop + 18,
                                 count: totals[lane]))
            laneTop = bottom + Self.laneSpacing
        }
        return "\(Self.counted(visible.count, "event")), too many to draw one by one: "
            + "each column counts a timeline's events per \(step.periodName)"
    }

    // MARK: Header and axis

    private func subtitleText(visible: [Int]) -> String {
        var parts: [String] = []
        let years = visible.map { input.items[$0].start.instant.utcDate.year }
        let lastYears = visible.map { input.items[$0].end(now: input.now).utcDate.year }
        if let first = years.min(), let last = lastYears.max() {
            parts.append(first == last ? String(first) : "\(first)–\(last)")
        }
        let timelines = input.lanes.count
        parts.append(Self.counted(visible.count, "event") + (timelines > 1 ? " in \(Self.counted(timelines, "timeline"))" : ""))
        let now = input.now.utcDate
        parts.append("now \(now.year)-\(Self.twoDigits(now.month))-\(Self.twoDigits(now.day))")
        return parts.joined(separator: " · ")
    }

    /// Moves the lanes, items and columns down.
    private mutating func shift(by offset: Double) {
        for i in lanes.indices {
            lanes[i].top += offset
            lanes[i].bottom += offset
            lanes[i].headingBaseline += offset
        }
        for i in items.indices {
            items[i].y += offset
            items[i].label?.baseline += offset
        }
        for i in columns.indices {
            columns[i].top += offset
            columns[i].bottom += offset
        }
    }

    /// The tick labels above the plot (and below it, when it is tall) and the "now" tag;
    /// a tick label that would touch the "now" tag, the next label or the edge is left out.
    private mutating func placeAxisLabels(top: Double) {
        let baseline = top + 12
        let scale = axis.scale
        let now = scale.x(input.now)
        if now >= scale.left - 0.5, now <= scale.right + 0.5 {
            nowX = now
            let text = "now"
            let half = TextWidth.of(text, size: Self.axisSize) / 2
            nowLabel = AxisLabel(text: text, x: min(max(now, Self.edge + half), width - Self.edge - half),
                                 baseline: baseline)
        }
        var taken: [ClosedRange<Double>] = []
        if let nowLabel {
            let half = TextWidth.of(nowLabel.text, size: Self.axisSize) / 2
            taken.append((nowLabel.x - half - 6)...(nowLabel.x + half + 6))
        }
        var labels: [AxisLabel] = []
        var lastEnd = -Double.infinity
        for tick in axis.ticks {
            guard let text = tick.label else { continue }
            let x = tick.x + 4
            let span = x...(x + TextWidth.of(text, size: Self.axisSize))
            guard span.upperBound <= width - Self.edge, span.lowerBound >= lastEnd + 6,
                  !taken.contains(where: { $0.overlaps(span) }) else { continue }
            labels.append(AxisLabel(text: text, x: x, baseline: baseline))
            lastEnd = span.upperBound
        }
        axisLabels = labels
        if plotBottom - plotTop > 420 {
            axisLabels += labels.map { AxisLabel(text: $0.text, x: $0.x, baseline: plotBottom + 18) }
        }
    }

    /// `text`, or its beginning and "…" when it is wider than `room`.
    static func shortened(_ text: String, room: Double, size: Double) -> String {
        TextWidth.fitted(text, room: room, size: size)?.text ?? String(text.prefix(1)) + "…"
    }

    static func counted(_ number: Int, _ noun: String) -> String {
        "\(grouped(number)) \(noun)\(number == 1 ? "" : "s")"
    }

    /// `12,345`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (number < 0 ? "-" : "") + result
    }

    static func twoDigits(_ number: Int) -> String { number < 10 ? "0\(number)" : String(number) }
}

extension PlacedItem {
    /// Where the item or a title before it begins.
    var visibleStart: Double {
        let start = shape == .mark ? x0 - PictureLayout.markRadius : x0
        guard let label, label.placement == .before else { return start }
        return min(start, label.span.lowerBound)
    }

    /// Where the item or a title after it ends.
    var visibleEnd: Double {
        let end = shape == .mark ? x1 + PictureLayout.markRadius : x1 + (shape == .bar(open: true) ? PictureLayout.openTail : 0)
        guard let label, label.placement == .after else { return end }
        return max(end, label.span.upperBound)
    }
}

extension PictureItem {
    /// The instant the item ends at: its date, its range's end, or for an open range now
    /// (or its start, when it starts after now).
    func end(now: Instant) -> Instant {
        switch extent {
        case .single: start.instant
        case .closed(let end): end.instant
        case .open: max(now, start.instant)
        }
    }
}

extension TickStep {
    /// The text of the period that starts at `instant`: `2019`, `2019-03`, `2019-03-05`.
    func periodText(_ instant: Instant) -> String {
        let date = instant.utcDate
        switch self {
        case .years(let n): return n == 1 ? String(date.year) : "\(date.year)–\(date.year + n - 1)"
        case .months(let n):
            let first = "\(date.year)-\(PictureLayout.twoDigits(date.month))"
            return n == 1 ? first : "\(first) + \(n) months"
        case .days: return "\(date.year)-\(PictureLayout.twoDigits(date.month))-\(PictureLayout.twoDigits(date.day))"
        }
    }

    /// `year`, `month`, `10 years`.
    var periodName: String {
        switch self {
        case .years(1): "year"
        case .years(let n): "\(n) years"
        case .months(1): "month"
        case .months(let n): "\(n) months"
        case .days(1): "day"
        case .days(let n): "\(n) days"
        }
    }
}
