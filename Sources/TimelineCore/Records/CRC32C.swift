import CChecksum

/// CRC-32C (Castagnoli): the checksum at the end of every line the store writes.
///
/// Reflected polynomial `0x82F63B78`, initial value and final XOR `0xFFFFFFFF`, so the
/// checksum of the ASCII text `123456789` is `0xE3069283`. With the processor's CRC-32C
/// instruction (SSE 4.2 on x86-64, the CRC extension on 64-bit ARM), eight bytes per
/// instruction; without it, table-driven, slicing-by-8: eight bytes per step through
/// eight 256-entry tables.
package enum CRC32C {
    /// Whether the processor's instruction computes the checksum, asked once.
    static let hasInstruction = timeline_crc32c_available() != 0

    /// The reflected Castagnoli polynomial.
    static let polynomial: UInt32 = 0x82F6_3B78

    /// Eight tables of 256 entries, one after the other: table `k` gives the CRC of a
    /// byte followed by `k` zero bytes.
    static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
            tables[byte] = crc
        }
        for slice in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        update(0, with: bytes)
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    /// The checksum of `a + b` from `first`, the checksum of `a`, and `second`, that of the
    /// `count` bytes of `b`: parts checksummed on several processors, put together.
    ///
    /// `first` is carried past `count` zero bytes by multiplying it by x^(8·count) modulo
    /// the polynomial (squares of x, doubled per bit of the count, as zlib's
    /// `crc32_combine`), which also undoes the conditioning the two share.
    /// - Complexity: O(log *count*) multiplications of 32 steps each.
    package static func combine(_ first: UInt32, _ second: UInt32, count: Int) -> UInt32 {
        precondition((0...(Int.max / 8)).contains(count), "a part of \(count) bytes")
        // Polynomials are reflected: bit 31 is x⁰.
        func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
            var a = a, b = b, product: UInt32 = 0
            var bit: UInt32 = 1 << 31
            while a != 0 {
                if a & bit != 0 {
                    product ^= b
                    a ^= bit
                }
                bit >>= 1
                b = b & 1 == 1 ? (b >> 1) ^ polynomial : b >> 1
            }
            return product
        }
        var power: UInt32 = 1 << 30  // x¹, squared to x^(2^k) as k goes up
        var shift: UInt32 = 1 << 31  // x⁰
        var bits = UInt64(count) * 8
        while bits != 0 {
            if bits & 1 == 1 { shift = multiply(shift, power) }
            power = multiply(power, power)
            bits >>= 1
        }
        return multiply(shift, first) ^ second
    }

    /// The checksum of `bytes` computed in `parts` parts at the same time (fewer for fewer
    /// than 64 KiB a part), on every processor.
    /// - Complexity: O(*n*) in the number of bytes, divided among the processors.
    package static func checksum(_ bytes: UnsafeRawBufferPointer, inParts parts: Int) -> UInt32 {
        let parts = max(1, min(parts, bytes.count / 65_536))
        guard parts > 1 else { return checksum(bytes) }
        let shared = SharedBytes(bytes: bytes)
        let size = (bytes.count + parts - 1) / parts
        let sums = concurrentMap(parts) { part in
            let range = (part * size)..<min(shared.bytes.count, (part + 1) * size)
            return (checksum(UnsafeRawBufferPointer(rebasing: shared.bytes[range])), range.count)
        }
        return sums.dropFirst().reduce(sums[0].0) { combine($0, $1.0, count: $1.1) }
    }

    /// Extends the checksum `crc` of some bytes with the bytes that follow them, so that
    /// `update(checksum(a), with: b) == checksum(a + b)`.
    package static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
        update(crc, with: bytes, instruction: hasInstruction)
    }

    /// ``update(_:with:)`` with the processor's instruction, or with the tables.
    static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer, instruction: Bool) -> UInt32 {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return crc }
        if instruction { return ~timeline_crc32c_update(~crc, start, bytes.count) }
        return tables.withUnsafeBufferPointer { table in
            var crc = ~crc
            var p = start
            var remaining = bytes.count
            let t = table.baseAddress!
            while remaining >= 8 {
                let word = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self)) ^ UInt64(crc)
                crc = t[7 * 256 + Int(word & 0xFF)]
                    ^ t[6 * 256 + Int((word >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((word >> 16) & 0xFF)]
                    ^ t[4 * 256 + Int((word >> 24) & 0xFF)]
                    ^ t[3 * 256 + Int((word >> 32) & 0xFF)]
                    ^ t[2 * 256 + Int((word >> 40) & 0xFF)]
                    ^ t[1 * 256 + Int((word >> 48) & 0xFF)]
                    ^ t[Int(word >> 56)]
                p += 8
                remaining -= 8
            }
            while remaining > 0 {
                let byte = p.load(as: UInt8.self)
                crc = t[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
                p += 1
                remaining -= 1
            }
            return ~crc
        }
    }
}
