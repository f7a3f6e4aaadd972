import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineCommandLine

@Suite("Row tables")
struct RowPrinterTests {
    static func projection(count: Int, views: [ViewDefinition]) throws -> TimelineProjection {
        var facts: [Fact] = [.timelineCreated(timeline: "t", name: "T"),
                             .timelineCreated(timeline: "a-much-longer-timeline-id", name: "Long")]
        for i in 0..<count {
            // The last events sort last, and only they have the long timeline and ids.
            let late = i >= count - 3
            facts.append(.eventAdded(event: EventID(late ? "event-with-a-long-id-\(i)" : "e\(i)"),
                                     timeline: late ? "a-much-longer-timeline-id" : "t",
                                     title: i % 7 == 0 ? "Zürich \"\(i)\"  " : "Title \(i)",
                                     date: try DateValue(parsing: late ? "9999-12-31T23:59:59Z" : "\(1000 + i % 9000)")))
        }
        let records = facts.enumerated().map { Record(position: Int64($0.offset + 1), facts: [$0.element]) }
        return TimelineProjection(records: records, views: views, now: Instant(microsecondsSinceEpoch: 0))
    }

    /// A long list's JSON Lines, written in parts, are each row's object in list order,
    /// with its section.
    @Test(arguments: [ViewDefinition(order: .ascending, sections: .year), ViewDefinition(order: .descending)])
    func longJSONLinesWrittenInPartsAreEachRowsObject(view: ViewDefinition) throws {
        let projection = try Self.projection(count: RowPrinter.rowsPerPart * 2 + 777, views: [view])
        let rows = try #require(projection.rows(view))
        let sections = Array(projection.sections(view))
        var names: [String?] = []
        for section in sections { names += repeatElement(String?(section.title), count: section.count) }
        if names.isEmpty { names = Array(repeating: nil, count: rows.count) }
        let expected = rows.enumerated().map { RowPrinter.jsonObject($1, section: names[$0]) + "\n" }.joined()
        #expect(RowPrinter(rows: rows, sections: sections).json() == expected)
    }

    /// A list long enough to be made in parts: its table is the one made whole (the same
    /// table fitted to a width that cuts nothing), in either order, with the widest cells
    /// in one part only.
    @Test(arguments: [ViewOrder.ascending, .descending])
    func aLongTableMadeInPartsIsTheTableMadeWhole(order: ViewOrder) throws {
        let count = RowPrinter.rowsPerPart * 2 + 777
        let view = ViewDefinition(order: order)
        let projection = try Self.projection(count: count, views: [view])
        let printer = RowPrinter(rows: try #require(projection.rows(view)), sections: [])
        let inParts = printer.table()
        let whole = printer.table(width: Int.max)
        #expect(inParts == whole)
        let lines = inParts.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == count + 2)
        // e5 is in the first part ascending and the last descending; the long ids in the other.
        let idWidth = "event-with-a-long-id-\(count - 1)".count
        let e5 = try #require(lines.first { $0.contains(" e5 ") })
        #expect(e5.hasSuffix(" e5" + String(repeating: " ", count: idWidth - 2 + 2) + "Title 5"),
                "padded to the widest id, which another part has: \(e5)")
    }
}
