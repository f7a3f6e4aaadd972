import Testing
import TimelineCore
import TimelineProjections
import TimelineTestSupport
@testable import TimelineRender

@Suite("The picture's layout")
struct LayoutTests {
    let now = try! DateValue(parsing: "2026-11-29").instant

    // MARK: Rows

    @Test func overlappingRangesGoToRowsOfTheirOwn() throws {
        let layout = PictureLayout(input(items: [
            item("a", "School", try date("1990"), .closed(end: try date("2002"))),
            item("b", "Piano", try date("1995"), .closed(end: try date("2000"))),
            item("c", "Football", try date("1996"), .closed(end: try date("1998"))),
            item("d", "University", try date("2003"), .closed(end: try date("2008"))),
        ], now: now), options: .init())
        let rows = ["a", "b", "c", "d"].map { layout.placed($0)?.row }
        #expect(rows == [0, 1, 2, 0])
        #expect(layout.lanes.map(\.rows) == [3])
        #expect(Set(layout.items.map(\.y)).count == 3)
    }

    @Test(arguments: 0..<40)
    func itemsAndTitlesOfARowNeverOverlap(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let (input, width) = randomInput(&random)
        let layout = PictureLayout(input, options: .init(width: width))
        if !layout.columns.isEmpty { return }
        #expect(layout.items.count == input.items.count)
        for lane in layout.lanes {
            for row in 0..<lane.rows {
                let members = layout.items.filter { $0.lane == lane.lane && $0.row == row }
                    .sorted { $0.visibleStart < $1.visibleStart }
                for (a, b) in zip(members, members.dropFirst()) {
                    #expect(a.visibleEnd <= b.visibleStart, "seed \(seed): \(a) overlaps \(b)")
                }
            }
        }
        for placed in layout.items {
            #expect(placed.y >= layout.lanes[placed.lane].top)
            #expect(placed.y + PictureLayout.barHeight <= layout.lanes[placed.lane].bottom)
            guard let label = placed.label else { continue }
            #expect(label.span.lowerBound >= PictureLayout.edge - 0.001, "seed \(seed): \(label)")
            #expect(label.span.upperBound <= layout.width - PictureLayout.edge + 0.001, "seed \(seed): \(label)")
            if label.placement == .inside {
                #expect(label.x >= placed.x0 && label.span.upperBound <= placed.x1, "seed \(seed): \(label)")
            }
        }
        for (upper, lower) in zip(layout.lanes, layout.lanes.dropFirst()) {
            #expect(upper.bottom <= lower.top)
        }
    }

    /// A window under a microsecond is drawn around its instant, not with every item and
    /// "now" at the left edge.
    @Test func aWindowUnderAMicrosecondIsDrawnAroundIt() throws {
        let at = try date("2020-01-01T00:00:00.0000001Z")
        let layout = PictureLayout(input(items: [item("a", "A", at)], now: at.instant),
                                   options: .init(from: at.instant, to: try date("2020-01-01T00:00:00.0000002Z").instant))
        let placed = try #require(layout.placed("a"))
        #expect(placed.x0 > PictureLayout.margin + 1, "\(placed)")
    }

    /// Years 0001 and 9999 give no axis label outside the years a date has.
    @Test func theAxisLabelsNoYearADateCannotHave() throws {
        let layout = PictureLayout(input(items: [item("a", "First", try date("0001")), item("b", "Last", try date("9999"))],
                                         now: now), options: .init())
        for label in layout.axisLabels {
            let year = try #require(Int(label.text), "\(label.text)")
            #expect((1...9999).contains(year), "\(label.text)")
        }
    }

    /// A narrow picture cuts its subtitle with "…", never at the edge.
    @Test func aNarrowPictureCutsItsSubtitle() throws {
        let items = (0..<30).map { item("e\($0)", "Event \($0)", try! date("20\(10 + $0)")) }
        let layout = PictureLayout(input(lanes: ["life", "work", "home"], items: items, now: now), options: .init(width: 320))
        #expect(TextWidth.of(layout.subtitle, size: PictureLayout.subtitleSize) <= 320 - 2 * PictureLayout.margin + 0.001,
                "\(layout.subtitle)")
    }

    @Test func theSameInputGivesTheSameLayout() {
        var first = SplitMix64(seed: 7), second = SplitMix64(seed: 7)
        let (a, width) = randomInput(&first)
        let (b, _) = randomInput(&second)
        #expect(PictureLayout(a, options: .init(width: width)) == PictureLayout(b, options: .init(width: width)))
    }

    // MARK: Time

    @Test func anOpenRangeRunsToNow() throws {
        let layout = PictureLayout(input(items: [
            item("berlin", "Living in Berlin", try date("2012-01"), .open),
            item("born", "Born", try date("1984-07-19")),
        ], now: now), options: .init())
        let berlin = try #require(layout.placed("berlin"))
        #expect(berlin.shape == .bar(open: true))
        #expect(abs(berlin.x1 - layout.axis.scale.x(now)) < 0.001)
        #expect(abs(berlin.x0 - layout.axis.scale.x(try date("2012-01").instant)) < 0.001)
        #expect(layout.nowX == layout.axis.scale.x(now))
    }

    @Test func anOpenRangeThatStartsAfterNowIsAShortBarAtItsStart() throws {
        let layout = PictureLayout(input(items: [
            item("sabbatical", "Sabbatical", try date("2027-01"), .open),
            item("born", "Born", try date("1984-07-19")),
        ], now: now), options: .init())
        let sabbatical = try #require(layout.placed("sabbatical"))
        #expect(abs(sabbatical.x0 - layout.axis.scale.x(try date("2027-01").instant)) < 0.001)
        #expect(abs(sabbatical.x1 - sabbatical.x0 - PictureLayout.minimumBarWidth) < 0.001)
    }

    @Test func datesOfEveryPrecisionArePlacedByTheirInstant() throws {
        let texts = ["2019", "2019-01", "2019-01-01", "2019-01-01T00:00Z", "2019-01-01T01:00+01:00",
                     "2019-01-01T00:00:00.000Z"]
        let layout = PictureLayout(input(items: try texts.enumerated().map {
            item("e\($0)", "Day \($0)", try date($1))
        } + [item("later", "Later", try date("2020-06"))], now: now), options: .init())
        let xs = Set(texts.indices.compactMap { layout.placed("e\($0)")?.x0 })
        #expect(xs.count == 1)
        let march = try #require(layout.placed("later"))
        #expect(march.x0 > xs.first!)
    }

    @Test func theAxisCoversEveryItemAndStartsAndEndsOnALabelledTick() throws {
        let life = try lifeProjection()
        let layout = PictureLayout(PictureInput(view: ViewDefinition(), projection: life), options: .init())
        let scale = layout.axis.scale
        for placed in layout.items {
            #expect(placed.x0 >= scale.left && placed.x1 <= scale.right)
        }
        #expect(layout.axis.major == .years(5))
        #expect(layout.axis.ticks.first?.x == scale.left)
        #expect(layout.axis.ticks.last?.x == scale.right)
        #expect(layout.axis.ticks.first?.label == "1980")
        #expect(layout.axis.ticks.last?.label == "2030")
        #expect(layout.axis.minorTicks.count == 40)
    }

    @Test(arguments: [
        ("1990", "2030", TickStep.years(5)),
        ("1900", "2030", TickStep.years(10)),
        ("1500", "2030", TickStep.years(50)),
        ("2019", "2024", TickStep.months(6)),
        ("2024-01", "2024-07", TickStep.months(1)),
        ("2024-03-01", "2024-03-20", TickStep.days(2)),
    ])
    func ticksFitTheSpan(_ first: String, _ last: String, _ step: TickStep) throws {
        let axis = TimeAxis(first: try date(first).instant, last: try date(last).instant, keepFirst: true,
                            keepLast: true, left: 24, right: 1176, unit: nil)
        #expect(axis.major == step)
        let xs = axis.ticks.map(\.x)
        #expect(xs == xs.sorted())
        #expect(xs.allSatisfy { $0 >= 24 && $0 <= 1176 })
        for (a, b) in zip(xs, xs.dropFirst()) { #expect(b - a >= TimeAxis.minimumLabelSpacing * 0.8) }
        #expect(axis.ticks.count >= 3)
    }

    @Test func monthTicksNameTheYearInJanuary() throws {
        let axis = TimeAxis(first: try date("2023-10").instant, last: try date("2024-04").instant, keepFirst: true,
                            keepLast: true, left: 0, right: 1000, unit: nil)
        #expect(axis.ticks.compactMap(\.label) == ["Oct", "Nov", "Dec", "2024", "Feb", "Mar", "Apr"])
    }

    @Test func sectionsPutALineAtEachSectionsStart() throws {
        let yearly = try lifeProjection(views: [ViewDefinition(sections: .year)])
        let layout = PictureLayout(PictureInput(view: ViewDefinition(sections: .year), projection: yearly),
                                   options: .init())
        // Five-year labels, a line for each of the other years.
        #expect(layout.axis.major == .years(5))
        #expect(layout.axis.minorTicks.count == 40)
        let decades = PictureLayout(PictureInput(view: ViewDefinition(sections: .decade), projection: yearly),
                                    options: .init())
        #expect(decades.axis.major == .years(10))
        #expect(decades.axis.ticks.compactMap(\.label) == ["1980", "1990", "2000", "2010", "2020", "2030"])
    }

    @Test func fromAndToFixTheAxisAndLeaveOutWhatIsOutside() throws {
        let from = try date("2000").instant, to = try date("2010").instant
        let layout = PictureLayout(input(items: [
            item("early", "Early", try date("1990")),
            item("across", "Across", try date("1995"), .closed(end: try date("2005"))),
            item("inside", "Inside", try date("2004")),
            item("late", "Late", try date("2020")),
        ], now: now), options: .init(from: from, to: to))
        #expect(layout.axis.scale.lo == from && layout.axis.scale.hi == to)
        #expect(layout.placed("early") == nil && layout.placed("late") == nil)
        let across = try #require(layout.placed("across"))
        #expect(across.clippedBefore && !across.clippedAfter)
        #expect(across.x0 == layout.axis.scale.left)
        #expect(layout.note == "2 events outside the axis not shown")
        #expect(layout.nowX == nil)
    }

    // MARK: Titles

    @Test func aTitleThatFitsOnItsBarIsDrawnOnIt() throws {
        let layout = PictureLayout(input(items: [
            item("school", "School", try date("1990"), .closed(end: try date("2010"))),
        ], now: now), options: .init())
        let label = try #require(layout.placed("school")?.label)
        #expect(label.placement == .inside)
        #expect(label.text == "School")
    }

    @Test func aTitleWithoutRoomIsShortenedAndKeptWholeInTheTooltip() throws {
        let long = "A very long title that goes on and on past every item that follows it in the row"
        let layout = PictureLayout(input(items: [
            item("long", long, try date("2000")),
            item("next", "Next", try date("2008")),
        ], now: now), options: .init(width: 800, from: try date("2000").instant, to: try date("2020").instant))
        let long0 = try #require(layout.placed("long")), next = try #require(layout.placed("next"))
        #expect(long0.row == next.row)
        let label = try #require(long0.label)
        #expect(label.elided)
        #expect(label.text.hasSuffix("…"))
        #expect(long.hasPrefix(String(label.text.dropLast())))
        #expect(label.span.upperBound <= next.visibleStart)
        let svg = SVGWriter.svg(layout)
        #expect(svg.contains("<title>\(long.directionIsolated) · 2000</title>"))
        #expect(svg.contains(">\(label.text.directionIsolated)</text>"))
    }

    @Test func aTitleNearTheRightEdgeGoesBeforeItsItem() throws {
        let layout = PictureLayout(input(items: [
            item("first", "First", try date("2000")),
            item("last", "Trip to Japan", try date("2027-04")),
        ], now: now), options: .init(from: try date("2000").instant, to: try date("2027-06").instant))
        let label = try #require(layout.placed("last")?.label)
        #expect(label.placement == .before)
        #expect(label.text == "Trip to Japan")
        #expect(label.span.upperBound < layout.placed("last")!.x0)
    }

    @Test func longHeadingsAreShortenedToThePicture() throws {
        let long = String(repeating: "Very long name ", count: 40)
        var picture = input(lanes: [long], items: [item("a", "A", try date("2000"))], now: now)
        picture.title = long
        let layout = PictureLayout(picture, options: .init(width: 600))
        #expect(layout.title.hasSuffix("…") && long.hasPrefix(String(layout.title.dropLast())))
        #expect(TextWidth.of(layout.title, size: PictureLayout.titleSize) <= 600 - 2 * PictureLayout.margin)
        #expect(layout.laneNames[0].hasSuffix("…"))
        #expect(TextWidth.of(layout.laneNames[0], size: PictureLayout.headingSize) < 600 - 2 * PictureLayout.margin)
        #expect(SVGWriter.svg(layout).contains("<title id=\"tl-title\">\(long.directionIsolated) · "))
    }

    @Test func fittingATitle() {
        let size = 12.0
        let width = TextWidth.of("Graduation", size: size)
        #expect(TextWidth.fitted("Graduation", room: width, size: size)?.text == "Graduation")
        let shortened = TextWidth.fitted("Graduation", room: width * 0.7, size: size)
        #expect(shortened?.elided == true)
        #expect(shortened.map { TextWidth.of($0.text, size: size) <= width * 0.7 } == true)
        #expect(TextWidth.fitted("Graduation", room: TextWidth.of("G…", size: size), size: size) == nil)
        // Measured in Chromium with DejaVu Sans, 12 px: 144.46 px.
        #expect(TextWidth.of("Childhood home in Graz", size: 12) >= 144.46)
    }

    // MARK: Counts

    @Test func aLargeViewIsCountedPerLaneAndPeriod() throws {
        var random = SplitMix64(seed: 3)
        var items: [PictureItem] = []
        let base = try date("2000").instant.microsecondsSinceEpoch
        let year: Int64 = 365 * 86_400_000_000
        for index in 0..<(PictureLayout.maximumDrawnItems + 500) {
            let start = base + Int64(random.below(20 * 365)) * 86_400_000_000
            let extent: PictureItem.Extent = random.chance(50) ? .single
                : .closed(end: DateValue(utc: Instant(microsecondsSinceEpoch: start + Int64(random.below(3)) * year)))
            items.append(item("e\(index)", lane: index % 3, "Event \(index)",
                              DateValue(utc: Instant(microsecondsSinceEpoch: start)), extent))
        }
        let picture = input(lanes: ["a", "b", "c"], items: items, now: now)
        let layout = PictureLayout(picture, options: .init())
        #expect(layout.items.isEmpty)
        #expect(layout.note?.contains("too many to draw one by one: each column counts a timeline's events per ") == true,
                "\(layout.note ?? "")")
        #expect(layout.lanes.map(\.count) == [1000, 1000, 1000])
        // Each column's count is the number of the lane's items that touch its period.
        for column in layout.columns.prefix(40) {
            let lo = column.x0, hi = column.x1
            let expected = items.filter { item in
                guard item.lane == column.lane else { return false }
                let a = layout.axis.scale.x(item.start.instant), b = layout.axis.scale.x(item.end(now: now))
                return a < hi + 0.5 && b >= lo
            }.count
            #expect(column.count == expected, "\(column)")
        }
        #expect(SVGWriter.svg(layout).utf8.count < 200_000)
    }

    // MARK: Random input

    /// A seeded input: up to 4 lanes, up to 60 items of every kind, titles of every length
    /// (some with wide characters), and a width from 320 to 1600 pixels.
    func randomInput(_ random: inout SplitMix64) -> (PictureInput, Int) {
        let lanes = 1 + random.below(4)
        let words = ["School", "Berlin", "Trip", "東京", "Ünïcödé", "a", "Marathon", "Born", "Work at a bank"]
        var items: [PictureItem] = []
        let day: Int64 = 86_400_000_000
        let base = Instant(utcYear: 1950, month: 1).microsecondsSinceEpoch
        for index in 0..<(1 + random.below(60)) {
            let start = base + Int64(random.below(80 * 365)) * day
            let extent: PictureItem.Extent
            switch random.below(3) {
            case 0: extent = .single
            case 1: extent = .closed(end: DateValue(utc: Instant(microsecondsSinceEpoch:
                        start + Int64(random.below(random.chance(30) ? 30 : 15 * 365)) * day)))
            default: extent = .open
            }
            let title = (0...random.below(6)).map { _ in words[random.below(words.count)] }.joined(separator: " ")
            items.append(item("e\(index)", lane: random.below(lanes), title,
                              DateValue(utc: Instant(microsecondsSinceEpoch: start)), extent))
        }
        let now = Instant(microsecondsSinceEpoch: base + Int64(random.below(90 * 365)) * day)
        return (input(lanes: (0..<lanes).map { "lane\($0)" }, items: items, now: now), 320 + random.below(1281))
    }
}
