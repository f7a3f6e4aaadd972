import Testing
import TimelineTestSupport
@testable import TimelineCore

/// Comparing two buffers' bytes at once gives what comparing them a byte at a time gives.
@Suite struct SameBytesTests {
    @Test func agreesWithComparingByteByByte() {
        var random = SplitMix64(seed: 0x5A3E)
        var equal = 0
        for _ in 0..<2_000 {
            let a = (0..<random.below(6)).map { _ in UInt8(random.below(3)) }
            let b = random.chance(30) ? a : (0..<random.below(6)).map { _ in UInt8(random.below(3)) }
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    #expect(a.hasSameBytes(as: b) == a.elementsEqual(b), "\(Array(a)) \(Array(b))")
                    if a.hasSameBytes(as: b) { equal += 1 }
                }
            }
        }
        #expect(equal > 300)
        // Buffers without storage are empty, and equal to any empty buffer.
        let none = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        [UInt8]().withUnsafeBufferPointer { #expect(none.hasSameBytes(as: $0)) }
        [UInt8(1)].withUnsafeBufferPointer { #expect(!none.hasSameBytes(as: $0) && !$0.hasSameBytes(as: none)) }
    }
}
