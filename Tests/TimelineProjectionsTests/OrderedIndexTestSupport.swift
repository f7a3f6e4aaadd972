import TimelineTestSupport
import Testing
@testable import TimelineProjections

/// A test element: a sort key, a serial number that makes every element distinct, and a mark.
struct TestRow: OrderedIndexElement, Equatable, Sendable, CustomStringConvertible {
    var key: Int
    var serial: Int
    var isMarked: Bool

    var description: String { "\(key)#\(serial)\(isMarked ? "*" : "")" }
}

extension SplitMix64 {
    /// A random row with a key in `0..<keys`, marked about one time in three.
    mutating func row(serial: Int, keys: Int = 1_000) -> TestRow {
        TestRow(key: Int.random(in: 0..<keys, using: &self), serial: serial, isMarked: Int.random(in: 0..<3, using: &self) == 0)
    }
}

/// Checks everything an index exposes against a plain array holding the same elements:
/// the tree invariants, counts, iteration (from the start and from a random position),
/// the subscript, `map`, `markedCount(before:)` at random positions and at both ends,
/// and `indexOfUnmarked`/`indexOfMarked` for every rank.
func expectMatches(
    _ index: OrderedIndex<TestRow>,
    _ reference: [TestRow],
    using random: inout SplitMix64,
    _ context: @autoclosure () -> String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let violations = index.invariantViolations()
    #expect(violations.isEmpty, "\(context()): \(violations.prefix(5))", sourceLocation: sourceLocation)
    #expect(index.count == reference.count, "\(context()): count", sourceLocation: sourceLocation)
    #expect(index.isEmpty == reference.isEmpty, "\(context()): isEmpty", sourceLocation: sourceLocation)
    guard index.count == reference.count else { return }

    #expect(Array(index) == reference, "\(context()): iteration", sourceLocation: sourceLocation)
    var iterated: [TestRow] = []
    for row in index { iterated.append(row) }
    #expect(iterated == reference, "\(context()): for-in", sourceLocation: sourceLocation)
    #expect(index.map(\.serial) == reference.map(\.serial), "\(context()): map", sourceLocation: sourceLocation)
    let subscripted = (0..<index.count).map { index[$0] }
    #expect(subscripted == reference, "\(context()): subscript", sourceLocation: sourceLocation)

    let start = Int.random(in: 0...reference.count, using: &random)
    var iterator = index.makeIterator(startingAt: start)
    var tail: [TestRow] = []
    while let row = iterator.next() { tail.append(row) }
    #expect(tail == Array(reference[start...]), "\(context()): iteration from \(start)", sourceLocation: sourceLocation)

    let marked = reference.indices.filter { reference[$0].isMarked }
    let unmarked = reference.indices.filter { !reference[$0].isMarked }
    #expect(index.markedCount == marked.count, "\(context()): markedCount", sourceLocation: sourceLocation)
    #expect(index.unmarkedCount == unmarked.count, "\(context()): unmarkedCount", sourceLocation: sourceLocation)

    var positions = [0, reference.count]
    for _ in 0..<8 { positions.append(Int.random(in: 0...reference.count, using: &random)) }
    for position in positions {
        let expected = reference[..<position].count(where: \.isMarked)
        #expect(index.markedCount(before: position) == expected, "\(context()): markedCount(before: \(position))", sourceLocation: sourceLocation)
        #expect(index.unmarkedCount(before: position) == position - expected, "\(context()): unmarkedCount(before: \(position))", sourceLocation: sourceLocation)
    }
    #expect(unmarked.indices.map { index.indexOfUnmarked($0) } == unmarked, "\(context()): indexOfUnmarked", sourceLocation: sourceLocation)
    #expect(marked.indices.map { index.indexOfMarked($0) } == marked, "\(context()): indexOfMarked", sourceLocation: sourceLocation)
}
