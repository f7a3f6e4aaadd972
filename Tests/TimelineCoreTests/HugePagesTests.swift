import Testing
@testable import TimelineCore

/// The range a buffer asks huge pages for: the whole 2 MiB pages inside it, never a
/// byte outside it, and nothing for less than two pages.
@Suite struct HugePagesTests {
    static let page = UInt(HugePages.size)

    @Test func asksForTheWholePagesInside() throws {
        let p = Self.page
        // Aligned at both ends: all of it.
        #expect(HugePages.wholePages(in: (4 * p)..<(8 * p)) == (4 * p)..<(8 * p))
        // Unaligned: rounded inwards at both ends.
        #expect(HugePages.wholePages(in: (4 * p + 16)..<(8 * p + 100)) == (5 * p)..<(8 * p))
        #expect(HugePages.wholePages(in: (4 * p - 1)..<(7 * p - 1)) == (4 * p)..<(6 * p))
    }

    @Test func asksForNothingBelowTwoPages() {
        let p = Self.page
        #expect(HugePages.wholePages(in: (4 * p)..<(5 * p)) == nil)
        #expect(HugePages.wholePages(in: (4 * p + 16)..<(6 * p + 15)) == nil)  // one whole page inside
        #expect(HugePages.wholePages(in: 0..<(p - 1)) == nil)
        #expect(HugePages.wholePages(in: (3 * p)..<(3 * p)) == nil)
    }

    /// Advising is harmless: a large buffer advised before it is written holds what is
    /// then written to it.
    @Test func anAdvisedBufferKeepsItsContents() {
        let count = 3 * HugePages.size / MemoryLayout<UInt64>.stride
        let values = [UInt64](unsafeUninitializedCapacity: count) { buffer, initialized in
            HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
            for i in 0..<count { buffer[i] = UInt64(i) &* 0x9E37_79B9 }
            initialized = count
        }
        #expect(values.indices.allSatisfy { values[$0] == UInt64($0) &* 0x9E37_79B9 })
    }
}
