import Foundation
import Testing
import TimelineCore
import TimelineTestSupport
@testable import TimelineCommandLine


@Suite("Tables for people")
struct TableTests {
    func context(terminal: Bool, environment: [String: String] = [:], columns: Int? = nil) -> ToolContext {
        ToolContext(output: CapturedOutput(), errors: CapturedOutput(), environment: environment,
                    outputIsTerminal: terminal, terminalColumns: columns)
    }

    @Test func theTableWidthIsTheTerminalsOrCOLUMNSOnlyOnATerminal() {
        #expect(context(terminal: false, environment: ["COLUMNS": "50"], columns: 80).tableWidth == nil)
        #expect(context(terminal: true, columns: 80).tableWidth == 80)
        #expect(context(terminal: true, environment: ["COLUMNS": "50"], columns: 80).tableWidth == 50)
        #expect(context(terminal: true, environment: ["COLUMNS": "wide"], columns: 80).tableWidth == 80)
        #expect(context(terminal: true).tableWidth == nil)
    }

    @Test func colourOnlyOnATerminalWithoutNO_COLOR() {
        #expect(context(terminal: true).usesColour)
        #expect(!context(terminal: false).usesColour)
        #expect(!context(terminal: true, environment: ["NO_COLOR": "1"]).usesColour)
        #expect(context(terminal: true, environment: ["NO_COLOR": ""]).usesColour)
        #expect(!context(terminal: true, environment: ["TERM": "dumb"]).usesColour)
    }

    @Test(arguments: [("abc", 3), ("東京に住む", 10), ("Zürich", 6), ("e\u{301}", 1), ("🎉", 2), ("👩‍👩‍👧", 2),
                      ("☺\u{FE0F}", 2), ("한국", 4), ("ＡＢ", 4), ("a\u{200B}b", 2), ("", 0)])
    func displayWidthCountsCells(_ text: String, _ width: Int) {
        #expect(DisplayWidth.of(text) == width)
    }

    @Test func wideTextKeepsColumnsAligned() {
        var table = TextTable(header: ["TITLE", "NEXT"])
        table.rows = [["東京に住む", "x"], ["Berlin", "y"]]
        #expect(table.render() == "TITLE       NEXT\n東京に住む  x\nBerlin      y\n")
    }

    @Test(arguments: [("東京に住む", 5, "東京…"), ("東京に住む", 6, "東京…"), ("Berlin", 6, "Berlin"),
                      ("Berlin", 5, "Berl…"), ("ab", 0, ""),
                      // An escape is kept whole or left out, never cut inside.
                      (#"ab\u{202e}cdefgh"#, 8, "ab…"), (#"ab\u{202e}cdefgh"#, 11, #"ab\u{202e}…"#),
                      (#"a\nbcdef"#, 3, "a…"), (#"a\nbcdef"#, 4, #"a\n…"#), (#"a\u{zz}bcdef"#, 5, #"a\u{…"#)])
    func truncationCountsCellsAndEndsInAnEllipsis(_ text: String, _ width: Int, _ expected: String) {
        #expect(DisplayWidth.truncate(text, to: width) == expected)
    }

    @Test func fittingCutsTheGivenColumnsInOrder() {
        var table = TextTable(header: ["K", "TITLE", "ID"])
        table.rows = [["a", String(repeating: "t", count: 30), "identifier-long"]]
        table.fit(to: 40, cutting: [1, 2])
        #expect(table.render().split(separator: "\n").allSatisfy { DisplayWidth.of(String($0)) <= 40 })
        #expect(table.rows[0][2] == "identifier-long", "the second column is cut only when the first is not enough")
        table.fit(to: 25, cutting: [1, 2])
        #expect(table.rows[0][1] == "ttttttttt…")
        #expect(table.rows[0][2].hasSuffix("…"))
    }

    @Test func propertyFittedTablesNeverExceedTheWidth() {
        // Seeded: random titles of mixed width, random widths; every line fits unless the
        // floors (10 cells per cut column and the fixed columns) cannot.
        var generator = SplitMix64(seed: 0x7AB1E)
        let pieces = ["a", "Z", "東", "🎉", "é", "e\u{301}", " ", "ü"]
        for _ in 0..<300 {
            var table = TextTable(header: ["KIND", "TITLE"])
            for _ in 0..<3 {
                let length = Int(generator.next() % 40)
                let title = (0..<length).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
                table.rows.append(["single", title])
            }
            let width = 18 + Int(generator.next() % 40)
            table.fit(to: width, cutting: [1])
            for line in table.render().split(separator: "\n") {
                #expect(DisplayWidth.of(String(line)) <= width, "\(line) in \(width)")
            }
        }
    }

    @Test func rowsInColourColourTheKindOnly() {
        var table = TextTable(header: ["KIND", "TITLE"])
        table.rows = [["start", "Berlin"]]
        table.rowColours = ["32"]
        table.colour = true
        #expect(table.render() == "\u{1B}[1mKIND\u{1B}[0m   \u{1B}[1mTITLE\u{1B}[0m\n\u{1B}[32mstart\u{1B}[0m  Berlin\n")
        table.colour = false
        #expect(table.render() == "KIND   TITLE\nstart  Berlin\n")
    }
}
