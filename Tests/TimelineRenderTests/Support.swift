import Foundation
import TimelineCore
import TimelineProjections
@testable import TimelineRender

/// The package's root directory, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The bundled example log.
let lifeLog = packageRoot.appendingPathComponent("Examples/logs/life.jsonl").path

/// The golden picture of the bundled log, at ``lifeNow``.
let lifeGolden = packageRoot.appendingPathComponent("Tests/TimelineRenderTests/Golden/life.svg")

/// The "now" of the golden picture and of the bundled log's expected outputs.
let lifeNow = try! DateValue(parsing: "2026-11-29").instant

/// The projection of the bundled log at `now`, maintaining `views`.
func lifeProjection(now: Instant = lifeNow, views: [ViewDefinition] = [ViewDefinition()]) throws -> TimelineProjection {
    let contents = try FileEventLog.read(path: lifeLog)
    return TimelineProjection(records: contents.records, views: views, now: now)
}

func date(_ text: String) throws -> DateValue { try DateValue(parsing: text) }

/// An input of one lane per name, with `items` as given.
func input(lanes: [String] = ["life"], items: [PictureItem], now: Instant) -> PictureInput {
    PictureInput(title: "Test", lanes: lanes.enumerated().map { PictureLane(id: $1, name: $1, colour: $0) },
                 items: items, now: now)
}

func item(_ event: String, lane: Int = 0, _ title: String, _ start: DateValue,
          _ extent: PictureItem.Extent = .single) -> PictureItem {
    PictureItem(event: event, lane: lane, title: title, start: start, extent: extent)
}

extension PictureLayout {
    /// The placed item of an event.
    func placed(_ event: String) -> PlacedItem? {
        items.first { input.items[$0.item].event == event }
    }
}

/// Whether `text` is well-formed XML.
func isWellFormedXML(_ text: String) -> (ok: Bool, error: String) {
    #if canImport(FoundationXML)
    let parser = FoundationXML.XMLParser(data: Data(text.utf8))
    #else
    let parser = XMLParser(data: Data(text.utf8))
    #endif
    let ok = parser.parse()
    return (ok, parser.parserError.map { "\($0)" } ?? "")
}

#if canImport(FoundationXML)
import FoundationXML
#endif
