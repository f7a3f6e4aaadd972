import Foundation
import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineRender

/// The HTML page of the bundled log in a real browser: a screenshot whose pixels are read
/// back through a canvas (a page holding the PNG as a data URL), and the DOM once the
/// page's script has run. Skipped, saying why, where no headless Chromium is installed.
@Suite("The page in a real browser", .serialized, .enabled(if: Chromium.found != nil, Comment(rawValue: Chromium.missing)))
struct BrowserTests {
    /// Only read by tests, which run only when there is one.
    var chromium: Chromium { Chromium.found! }
    let width = 1000

    /// The page, its layout, and a scratch directory holding it as `page.html`.
    func page() throws -> (html: String, layout: PictureLayout, directory: URL) {
        let projection = try lifeProjection()
        let options = TimelinePicture.Options(format: .html, width: width)
        let html = TimelinePicture.render(ViewDefinition(), of: projection, options: options)
        let layout = PictureLayout(PictureInput(view: ViewDefinition(), projection: projection), options: options)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(html.utf8).write(to: directory.appendingPathComponent("page.html"))
        return (html, layout, directory)
    }

    @Test func theScreenshotShowsEachBarAndMarkInItsTimelinesColour() throws {
        let (html, layout, directory) = try page()
        defer { try? FileManager.default.removeItem(at: directory) }
        let windowHeight = Int(layout.height.rounded(.up)) + 40
        let origin = try pictureOrigin(html, directory: directory, height: windowHeight)

        // Points to read: the background, and a point inside each bar and mark wide enough.
        var points: [(x: Int, y: Int, lane: Int?)] = [(Int(origin.x + layout.width) - 30, Int(origin.y) + 12, nil)]
        for placed in layout.items {
            let lane = layout.input.lanes[placed.lane].colour
            let y = Int(origin.y + placed.y + PictureLayout.barHeight / 2)
            switch placed.shape {
            case .mark: points.append((Int(origin.x + placed.x0), y, lane))
            case .bar where placed.x1 - placed.x0 >= 8: points.append((Int((origin.x + placed.x0 + 3).rounded(.up)), y, lane))
            case .bar: continue
            }
        }
        #expect(points.count > 30)
        for dark in [false, true] {
            let shot = directory.appendingPathComponent(dark ? "dark.png" : "light.png")
            try chromium.screenshot(of: directory.appendingPathComponent("page.html"), width: width + 40,
                                    height: windowHeight, dark: dark, to: shot)
            let read = try pixels(of: shot, at: points.map { ($0.x, $0.y) }, directory: directory)
            #expect(read.size == "\(width + 40)x\(windowHeight)")
            #expect(read.distinctColours >= 10, "the screenshot is nearly blank")
            let scheme = dark ? Palette.darkScheme : Palette.lightScheme
            for (point, colour) in zip(points, read.colours) {
                let expected = point.lane.map { scheme.lanes[Palette.index($0)] } ?? scheme.background
                #expect(near(colour, expected), "\(dark ? "dark" : "light") pixel at \(point.x),\(point.y): \(colour), expected \(expected)")
            }
        }
    }

    @Test func titlesDoNotOverlapAsTheBrowserDrawsThem() throws {
        let (html, layout, directory) = try page()
        defer { try? FileManager.default.removeItem(at: directory) }
        let measured = try measure(html, directory: directory, height: Int(layout.height) + 40)
        #expect(dataAttribute("texts", in: measured) == String(layout.items.compactMap(\.label).count))
        #expect(dataAttribute("overlaps", in: measured) == "", "titles drawn over other items or titles")
        #expect(dataAttribute("overflows", in: measured) == "", "titles wider than their bars")
        // The estimate of a title's width is never short of the browser's.
        let widths = try #require(dataAttribute("widths", in: measured)).split(separator: ",").compactMap { Double($0) }
        let labels = layout.items.compactMap(\.label)
        #expect(widths.count == labels.count)
        for (rendered, label) in zip(widths, labels) {
            #expect(rendered <= label.width + 0.5, "\(label.text): \(rendered) px drawn, \(label.width) px planned")
        }
    }

    @Test func theDOMHasEveryItemAndTheHoverScriptRan() throws {
        let (_, layout, directory) = try page()
        defer { try? FileManager.default.removeItem(at: directory) }
        let dom = try chromium.dumpDOM(of: directory.appendingPathComponent("page.html"), width: width + 40)
        #expect(dom.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tl-picture\" width=\"1000\""))
        #expect(dom.components(separatedBy: "class=\"tl-lane\"").count - 1 == layout.input.lanes.count)
        #expect(dom.components(separatedBy: "class=\"tl-item\"").count - 1 == layout.items.count)
        // The script moved each item's tooltip from its <title> to data-tip.
        #expect(dom.components(separatedBy: " data-tip=\"").count - 1 == layout.items.count)
        #expect(dom.contains("data-tip=\"\u{2068}Living in Berlin\u{2069} · since 2012-01, ongoing\""))
        #expect(!dom.contains("<title>Living in Berlin"))
        for lane in layout.input.lanes { #expect(dom.contains(">\(lane.name.directionIsolated)</tspan>")) }
    }

    /// A heading is its timeline's name, then its count of events: the count stays after
    /// a right-to-left name (drawn without isolation, its number went before the name),
    /// also when the name holds marks of its own that a shortening cut or left unmatched.
    @Test func aRightToLeftNameKeepsItsCountAfterIt() throws {
        let cut = String(repeating: "ש", count: 60) + " \u{2068}" + String(repeating: "x", count: 100) + "\u{2069}"
        let names = ["חיים בתל אביב", "حياتي", "Life", cut, "שלום\u{2069} עולם", "\u{2067}open"]
        var items: [PictureItem] = []
        for lane in names.indices {
            for number in 1...3 { items.append(item("e\(lane)-\(number)", lane: lane, "Event \(number)", try date("200\(lane + number)"))) }
        }
        let layout = PictureLayout(input(lanes: names, items: items, now: lifeNow),
                                   options: TimelinePicture.Options(format: .html, width: width))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = """
            <script>
            addEventListener("load", () => {
              const headings = [...document.querySelectorAll("svg.tl-picture .tl-lane > text")];
              document.body.dataset.headings = headings.length;
              document.body.dataset.misplaced = headings.filter((text) => {
                const [name, count] = [...text.querySelectorAll("tspan")].map((part) => part.getBBox());
                return count.x < name.x + name.width - 0.5;
              }).map((text) => text.textContent).join("|");
            });
            </script>
            """
        let page = directory.appendingPathComponent("page.html")
        let html = HTMLPage.page(svg: SVGWriter.svg(layout), title: "Test")
        try Data(html.replacingOccurrences(of: "</body>", with: script + "\n</body>").utf8).write(to: page)
        let dom = try chromium.dumpDOM(of: page, width: width + 40, height: Int(layout.height) + 40)
        #expect(layout.laneNames[3].hasSuffix("…"), "the long name is shortened inside its own isolate")
        #expect(dataAttribute("headings", in: dom) == "6")
        #expect(dataAttribute("misplaced", in: dom) == "", "a count drawn before its name")
    }

    // MARK: Support

    /// Where the picture's top left corner is on the page, as the browser lays it out.
    func pictureOrigin(_ html: String, directory: URL, height: Int) throws -> (x: Double, y: Double) {
        let measured = try measure(html, directory: directory, height: height)
        let parts = try #require(dataAttribute("origin", in: measured)).split(separator: ",").compactMap { Double($0) }
        try #require(parts.count == 2)
        return (parts[0], parts[1])
    }

    /// The page with a script that measures it: the picture's origin, each title's drawn
    /// width, titles that overlap another item or title, titles wider than their bars.
    func measure(_ html: String, directory: URL, height: Int) throws -> String {
        let script = """
            <script>
            addEventListener("load", () => {
              const svg = document.querySelector("svg.tl-picture");
              const origin = svg.getBoundingClientRect();
              const items = [...svg.querySelectorAll(".tl-item")];
              const texts = [], shapes = [];
              items.forEach((item, owner) => {
                for (const text of item.querySelectorAll("text")) texts.push({ owner, text, box: text.getBBox() });
                for (const shape of item.querySelectorAll("rect, path")) shapes.push({ owner, box: shape.getBBox() });
              });
              const cross = (a, b) => a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5
                && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;
              const overlaps = [], overflows = [];
              texts.forEach((t, i) => {
                for (const u of texts.slice(i + 1)) if (cross(t.box, u.box)) overlaps.push(t.text.textContent + "/" + u.text.textContent);
                for (const s of shapes) if (s.owner !== t.owner && cross(t.box, s.box)) overlaps.push(t.text.textContent);
                if (t.text.classList.contains("tl-on")) {
                  const bar = items[t.owner].querySelector("rect").getBBox();
                  if (t.box.x < bar.x || t.box.x + t.box.width > bar.x + bar.width) overflows.push(t.text.textContent);
                }
              });
              const body = document.body.dataset;
              body.origin = origin.left + "," + origin.top;
              body.texts = texts.length;
              body.widths = texts.map((t) => t.text.getComputedTextLength().toFixed(2)).join(",");
              body.overlaps = overlaps.join("|");
              body.overflows = overflows.join("|");
            });
            </script>
            """
        let page = directory.appendingPathComponent("measure.html")
        try Data(html.replacingOccurrences(of: "</body>", with: script + "\n</body>").utf8).write(to: page)
        return try chromium.dumpDOM(of: page, width: width + 40, height: height)
    }

    /// The colours of a PNG at `points`, read in the browser through a canvas, its size,
    /// and how many colours a sample of its pixels has.
    func pixels(of png: URL, at points: [(Int, Int)], directory: URL) throws
        -> (colours: [String], size: String, distinctColours: Int) {
        let data = try Data(contentsOf: png).base64EncodedString()
        let list = points.map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
        let page = directory.appendingPathComponent("pixels.html")
        let html = """
            <!DOCTYPE html><html><body><img id="shot" src="data:image/png;base64,\(data)"><script>
            addEventListener("load", () => {
              const image = document.getElementById("shot");
              const canvas = document.createElement("canvas");
              canvas.width = image.naturalWidth;
              canvas.height = image.naturalHeight;
              const context = canvas.getContext("2d");
              context.drawImage(image, 0, 0);
              const hex = (d, i) => "#" + [d[i], d[i + 1], d[i + 2]].map((v) => v.toString(16).padStart(2, "0")).join("");
              const all = context.getImageData(0, 0, canvas.width, canvas.height).data;
              const seen = new Set();
              for (let i = 0; i < all.length; i += 4 * 37) seen.add(hex(all, i));
              const body = document.body.dataset;
              body.colours = [\(list)].map(([x, y]) => hex(context.getImageData(x, y, 1, 1).data, 0)).join(",");
              body.size = canvas.width + "x" + canvas.height;
              body.distinct = seen.size;
              image.remove();
            });
            </script></body></html>
            """
        try Data(html.utf8).write(to: page)
        let dom = try chromium.dumpDOM(of: page)
        let colours = try #require(dataAttribute("colours", in: dom)).split(separator: ",").map(String.init)
        try #require(colours.count == points.count, "\(dom.prefix(500))")
        return (colours, dataAttribute("size", in: dom) ?? "", Int(dataAttribute("distinct", in: dom) ?? "") ?? 0)
    }

    /// Whether two `#rrggbb` colours differ by at most `tolerance` in each channel.
    func near(_ a: String, _ b: String, tolerance: Int = 6) -> Bool {
        func channels(_ hex: String) -> [Int] {
            let digits = Array(hex.dropFirst())
            guard digits.count == 6 else { return [] }
            return stride(from: 0, to: 6, by: 2).compactMap { Int(String(digits[$0...$0 + 1]), radix: 16) }
        }
        let x = channels(a), y = channels(b)
        return x.count == 3 && y.count == 3 && zip(x, y).allSatisfy { abs($0 - $1) <= tolerance }
    }
}
