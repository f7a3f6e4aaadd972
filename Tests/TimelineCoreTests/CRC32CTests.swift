import TimelineTestSupport
import Testing
@testable import TimelineCore

/// Bit by bit, straight from the definition: the reference the tables must agree with.
private func referenceCRC32C(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
    }
    return ~crc
}

@Suite struct CRC32CTests {
    @Test func knownAnswer() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    /// The iSCSI test vectors of RFC 3720, appendix B.4.
    @Test(arguments: [
        ([UInt8](repeating: 0, count: 32), UInt32(0x8A91_36AA)),
        ([UInt8](repeating: 0xFF, count: 32), UInt32(0x62A8_AB43)),
        ((0..<32).map { UInt8($0) }, UInt32(0x46DD_794E)),
        ((0..<32).reversed().map { UInt8($0) }, UInt32(0x113F_DB5C)),
    ])
    func rfc3720Vectors(bytes: [UInt8], expected: UInt32) {
        #expect(CRC32C.checksum(bytes) == expected)
    }

    @Test func emptyAndLong() {
        #expect(CRC32C.checksum([UInt8]()) == 0)
        let long = (0..<1024).map { UInt8($0 % 256) }
        #expect(CRC32C.checksum(long) == 0x2CDF_6E8F)
    }

    /// The tables, and the checksum as computed here (by the processor's instruction
    /// where there is one).
    @Test(arguments: [false, CRC32C.hasInstruction])
    func agreesWithTheBitwiseDefinitionAtEveryLengthAndAlignment(instruction: Bool) {
        var rng = SplitMix64(seed: 0xC0FFEE)
        let pool = (0..<300).map { _ in UInt8.random(in: 0...255, using: &rng) }
        for start in 0..<9 {
            for length in 0...(pool.count - start - 9) where length < 80 || length % 37 == 0 {
                let slice = pool[start..<(start + length)]
                let crc = slice.withUnsafeBytes { CRC32C.update(0, with: $0, instruction: instruction) }
                #expect(crc == referenceCRC32C(Array(slice)), "start \(start), length \(length)")
            }
        }
    }

    /// Where the processor has the instruction, it and the tables agree on every length
    /// and alignment, and on a checksum continued from any cut.
    @Test(.enabled(if: CRC32C.hasInstruction, "the processor has no CRC-32C instruction"))
    func theInstructionAgreesWithTheTables() {
        var rng = SplitMix64(seed: 0x5EED_C3C)
        let pool = (0..<4_200).map { _ in UInt8.random(in: 0...255, using: &rng) }
        pool.withUnsafeBytes { all in
            for _ in 0..<2_000 {
                let start = Int.random(in: 0..<64, using: &rng)
                let length = Int.random(in: 0...(all.count - start), using: &rng)
                let bytes = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                let seed = UInt32.random(in: 0...UInt32.max, using: &rng)
                let byTables = CRC32C.update(seed, with: bytes, instruction: false)
                #expect(CRC32C.update(seed, with: bytes, instruction: true) == byTables, "start \(start), length \(length)")
            }
        }
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32C.update(0, with: $0, instruction: true) } == 0xE306_9283)
    }

    /// Runs of three lanes (24 KiB and more) are computed side by side and joined: the
    /// result is the tables', at lengths around each block's edge and from any start.
    @Test(.enabled(if: CRC32C.hasInstruction, "the processor has no CRC-32C instruction"))
    func longRunsComputedInLanesAgreeWithTheTables() {
        var rng = SplitMix64(seed: 0x1A4E5)
        let block = 3 * 8192
        let pool = (0..<(3 * block + 64)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        pool.withUnsafeBytes { all in
            var lengths = [0, 1, block - 1, block, block + 1, block + 7, 2 * block, 2 * block + 13, 3 * block]
            lengths += (0..<40).map { _ in Int.random(in: block...(3 * block), using: &rng) }
            for length in lengths {
                let start = Int.random(in: 0..<64, using: &rng)
                let bytes = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                let seed = UInt32.random(in: 0...UInt32.max, using: &rng)
                #expect(CRC32C.update(seed, with: bytes, instruction: true)
                        == CRC32C.update(seed, with: bytes, instruction: false), "start \(start), length \(length)")
            }
        }
    }

    /// Two parts' checksums combine into the whole's, at any cut (zero bytes, odd
    /// lengths, large counts), and a checksum in parts on several processors is the whole's.
    @Test func partsChecksummedApartCombineIntoTheWhole() {
        var rng = SplitMix64(seed: 0xC0B1)
        for _ in 0..<300 {
            let bytes = (0..<Int.random(in: 0...600, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let cut = Int.random(in: 0...bytes.count, using: &rng)
            let combined = CRC32C.combine(CRC32C.checksum(bytes[..<cut]), CRC32C.checksum(bytes[cut...]),
                                          count: bytes.count - cut)
            #expect(combined == CRC32C.checksum(bytes), "\(bytes.count) bytes cut at \(cut)")
        }
        let large = (0..<1_000_003).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        for parts in 1...5 {
            #expect(large.withUnsafeBytes { CRC32C.checksum($0, inParts: parts) } == CRC32C.checksum(large), "\(parts) parts")
        }
    }

    @Test func updateContinuesAChecksum() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0...100, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let cut = Int.random(in: 0...bytes.count, using: &rng)
            let first = CRC32C.checksum(bytes[..<cut])
            let whole = bytes[cut...].withUnsafeBytes { CRC32C.update(first, with: $0) }
            #expect(whole == CRC32C.checksum(bytes))
        }
    }
}
