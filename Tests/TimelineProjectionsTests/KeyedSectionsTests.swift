import Testing
@testable import TimelineProjections

/// Sections share their counts' storage and add the rows at now where they are read:
/// read in order and compared, they are the sections with those rows counted in.
@Suite("Sections with the rows at now")
struct KeyedSectionsTests {
    static func key(_ bucket: Int32) -> SectionKey { SectionKey(group: 0, bucket: bucket) }

    static var counts: SectionCounts {
        var counts = SectionCounts()
        for (bucket, count) in [(2010, 1), (2015, 2), (2020, 3)] { counts.add(key(Int32(bucket)), count) }
        return counts
    }

    /// The sections read one by one, as (bucket, count).
    static func read(_ sections: KeyedSections) -> [[Int]] {
        (0..<sections.count).map { [Int(sections.key(at: $0).bucket), sections.count(at: $0)] }
    }

    @Test(arguments: [
        (0, 2015, [[2010, 1], [2015, 2], [2020, 3]]),
        (4, 2015, [[2010, 1], [2015, 6], [2020, 3]]),
        (4, 2000, [[2000, 4], [2010, 1], [2015, 2], [2020, 3]]),
        (4, 2012, [[2010, 1], [2012, 4], [2015, 2], [2020, 3]]),
        (4, 2030, [[2010, 1], [2015, 2], [2020, 3], [2030, 4]]),
    ])
    func theRowsAtNowAreCountedInTheirSection(marked: Int, now: Int32, expected: [[Int]]) {
        let sections = Self.counts.sections(marked: marked, nowKey: Self.key(now))
        #expect(Self.read(sections) == expected)
        #expect(sections.keys.map { Int($0.bucket) } == expected.map { $0[0] })
    }

    /// Two lists are equal when they read the same, however their rows at now are split
    /// from the rest: an open range that starts before now instead of after, in now's year.
    @Test func sectionsAreEqualWhenTheyReadTheSame() {
        var before = Self.counts, after = Self.counts
        before.add(Self.key(2020), -1)  // 2020: 2 dated rows, 2 at now
        after.add(Self.key(2020), -2)  // 2020: 1 dated row, 3 at now
        let a = before.sections(marked: 2, nowKey: Self.key(2020)), b = after.sections(marked: 3, nowKey: Self.key(2020))
        #expect(Self.read(a) == Self.read(b))
        #expect(a == b)
        #expect(a.hasSameKeys(as: b))

        let moreAtNow = after.sections(marked: 4, nowKey: Self.key(2020))
        #expect(a != moreAtNow)
        #expect(a.hasSameKeys(as: moreAtNow))
        let newSection = Self.counts.sections(marked: 1, nowKey: Self.key(2030))
        #expect(!newSection.hasSameKeys(as: Self.counts.sections(marked: 0, nowKey: Self.key(2030))))
        #expect(newSection != Self.counts.sections(marked: 1, nowKey: Self.key(2012)))
    }
}
