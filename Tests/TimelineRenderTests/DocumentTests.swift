import Foundation
import Testing
import TimelineCore
import TimelineKit
import TimelineProjections
import TimelineTestSupport
@testable import TimelineRender

@Suite("The SVG and HTML documents")
struct DocumentTests {
    @Test func theBundledLogMatchesTheGoldenPicture() throws {
        let svg = TimelinePicture.render(ViewDefinition(), of: try lifeProjection())
        let golden = try String(contentsOf: lifeGolden, encoding: .utf8)
        #expect(svg == golden, """
            The picture of Examples/logs/life.jsonl differs from Tests/TimelineRenderTests/Golden/life.svg. \
            After a deliberate change, regenerate it from the package's directory with
              swift run timeline render Examples/logs/life.jsonl --now 2026-11-29 --output Tests/TimelineRenderTests/Golden/life.svg
            and look at the new picture before committing it.
            """)
    }

    /// A front end draws from its store: the same picture as from the projection the
    /// store's records make, at the store's now.
    @Test func aStoreDrawsTheGoldenPicture() async throws {
        let log = InMemoryEventLog(records: try FileEventLog.read(path: lifeLog).records)
        let store = try TimelineStore(log: log, clock: ManualClock(lifeNow))
        let svg = await TimelinePicture.render(ViewDefinition(), of: store)
        #expect(svg == (try String(contentsOf: lifeGolden, encoding: .utf8)))
    }

    @Test func theSameProjectionAndNowGiveTheSameText() throws {
        let a = try lifeProjection(), b = try lifeProjection()
        for format in TimelinePicture.Options.Format.allCases {
            let options = TimelinePicture.Options(format: format, width: 900)
            #expect(TimelinePicture.render(ViewDefinition(), of: a, options: options)
                == TimelinePicture.render(ViewDefinition(), of: b, options: options))
        }
        let later = try lifeProjection(now: try date("2030").instant)
        #expect(TimelinePicture.render(ViewDefinition(), of: a) != TimelinePicture.render(ViewDefinition(), of: later))
    }

    @Test func aViewOfOneTimelineIsOneLane() throws {
        let work = ViewDefinition(filter: .timeline("work"))
        let projection = try lifeProjection()
        let input = PictureInput(view: work, projection: projection)
        #expect(input.lanes.map(\.id) == ["work"])
        #expect(input.title == "Work")
        // The projection need not maintain the view: it is built for the picture.
        let svg = TimelinePicture.render(work, of: projection)
        #expect(svg.components(separatedBy: "class=\"tl-lane\"").count == 2)
        #expect(svg.contains("data-event=\"sabbatical\""))
        #expect(!svg.contains("data-event=\"born\""))
        // The timeline keeps its colour of the picture of all timelines.
        let all = PictureInput(view: ViewDefinition(), projection: projection)
        #expect(all.lanes.first { $0.id == "work" }?.colour == input.lanes[0].colour)
    }

    @Test func lanesComeInTheOrderOfTheirFirstRow() throws {
        let descending = ViewDefinition(order: .descending)
        let projection = try lifeProjection(views: [ViewDefinition(), descending])
        #expect(PictureInput(view: ViewDefinition(), projection: projection).lanes.map(\.id)
            == ["home", "education", "travel", "work"])
        // Latest first: the trip to Japan (2027-04), then the sabbatical (2027-01), ...
        #expect(PictureInput(view: descending, projection: projection).lanes.map(\.id)
            == ["travel", "work", "education", "home"])
    }

    @Test func everyEventOfTheViewIsDrawnOnceWithItsDatesInItsTooltip() throws {
        let projection = try lifeProjection()
        let svg = TimelinePicture.render(ViewDefinition(), of: projection)
        let events = Set(projection.rows(ViewDefinition())!.map(\.event.rawValue))
        for event in events {
            #expect(svg.components(separatedBy: "data-event=\"\(event)\"").count == 2, "\(event)")
        }
        #expect(svg.contains("<title>\u{2068}Living in Berlin\u{2069} · since 2012-01, ongoing</title>"))
        #expect(svg.contains("<title>\u{2068}Computer science, TU Wien\u{2069} · 2002-10 – 2008-06</title>"))
        #expect(svg.contains("<title>\u{2068}Lena born\u{2069} · 2017-02-03T04:12:00+01:00</title>"))
    }

    /// Names and titles are drawn isolated, their own explicit marks balanced as the
    /// bidirectional algorithm matches them, so that nothing inside reaches past the end.
    @Test func isolatedTextHasItsOwnMarksBalanced() {
        #expect("שלום".directionIsolated == "\u{2068}שלום\u{2069}")
        // A closing mark with nothing open is left out; whatever is left open is closed.
        #expect("a\u{2069}b\u{202C}".directionIsolated == "\u{2068}ab\u{2069}")
        #expect("\u{2067}open".directionIsolated == "\u{2068}\u{2067}open\u{2069}\u{2069}")
        #expect("\u{202E}x\u{2066}y".directionIsolated == "\u{2068}\u{202E}x\u{2066}y\u{2069}\u{202C}\u{2069}")
        // An isolate's end closes the embedding opened inside it; a later PDF has nothing to close.
        #expect("\u{2066}\u{202B}x\u{2069}\u{202C}".directionIsolated == "\u{2068}\u{2066}\u{202B}x\u{2069}\u{2069}")
        #expect("\u{2068}x\u{2069}".directionIsolated == "\u{2068}\u{2068}x\u{2069}\u{2069}")
    }

    @Test func textIsEscapedForXML() throws {
        let nasty = "<b>Tom & \"Jerry\"</b> 'n' \u{1}bell\u{FFFE}"
        let layout = PictureLayout(input(lanes: ["a&b"], items: [
            item("e<1>", nasty, try date("2001")),
            item("e2", "R&D", try date("1999"), .closed(end: try date("2010"))),
        ], now: try date("2020").instant), options: .init())
        let svg = SVGWriter.svg(layout)
        #expect(svg.contains("&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt; &#39;n&#39; \u{FFFD}bell\u{FFFD}"))
        #expect(svg.contains("data-event=\"e&lt;1&gt;\""))
        #expect(svg.contains("data-timeline=\"a&amp;b\""))
        #expect(!svg.contains("\u{1}"))
        let parsed = isWellFormedXML(svg)
        #expect(parsed.ok, "\(parsed.error)")
    }

    @Test(arguments: 0..<8)
    func randomPicturesAreWellFormedXML(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let alphabet = Array("ab <>&\"'é東\u{7}\u{0}\u{1F600}")
        var items: [PictureItem] = []
        for index in 0..<20 {
            let title = String((0...random.below(12)).map { _ in alphabet[random.below(alphabet.count)] })
            let start = try date(String(1950 + random.below(70)))
            items.append(item("e\(index)\(alphabet[random.below(alphabet.count)])", title, start,
                              random.chance(50) ? .single : .open))
        }
        let svg = SVGWriter.svg(PictureLayout(input(items: items, now: try date("2025").instant), options: .init()))
        let parsed = isWellFormedXML(svg)
        #expect(parsed.ok, "seed \(seed): \(parsed.error)")
    }

    @Test func theHTMLPageIsSelfContainedAndFollowsTheColourScheme() throws {
        let html = TimelinePicture.render(ViewDefinition(), of: try lifeProjection(), options: .init(format: .html))
        #expect(html.hasPrefix("<!DOCTYPE html>\n"))
        #expect(html.contains("<meta name=\"color-scheme\" content=\"light dark\">"))
        #expect(html.contains("@media (prefers-color-scheme: dark)"))
        #expect(html.contains("<title>All timelines · timeline</title>"))
        #expect(html.contains(TimelinePicture.render(ViewDefinition(), of: try lifeProjection())))
        // Nothing is fetched: no URL but the SVG namespace, no external source or link.
        let urls = html.components(separatedBy: "http").dropFirst().map { String($0.prefix(30)) }
        #expect(urls == ["://www.w3.org/2000/svg\" class="])
        #expect(!html.contains("src=") && !html.contains("<link") && !html.contains("@import"))
    }

    @Test func aPictureWithoutEventsHasItsHeaderAndAxis() throws {
        let svg = TimelinePicture.render(ViewDefinition(), of: TimelineProjection(now: try date("2026").instant))
        #expect(svg.contains("0 events"))
        #expect(svg.contains("class=\"tl-axis\""))
        #expect(isWellFormedXML(svg).ok)
    }

    @Test func coordinatesAreWrittenShort() {
        #expect(SVGWriter.number(12) == "12")
        #expect(SVGWriter.number(12.04) == "12")
        #expect(SVGWriter.number(12.05) == "12.1")
        #expect(SVGWriter.number(-3.25) == "-3.3" || SVGWriter.number(-3.25) == "-3.2")
        #expect(SVGWriter.number(-0.04) == "0")
        #expect(SVGWriter.number(0.125, places: 3) == "0.125")
        #expect(PictureLayout.grouped(1_234_567) == "1,234,567")
    }
}
