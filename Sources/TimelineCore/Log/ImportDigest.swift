/// The command id an import carries unless it is given one: a digest of the facts it
/// imports, so that importing the same facts again (after an append whose outcome was
/// unknown, or by mistake) appends nothing, as any command sent twice with one id.
package enum ImportDigest {
    /// `import-` and 16 hexadecimal digits: a 64-bit FNV-1a hash of the facts' lines, as
    /// the export layout writes them at position 0 with no time (the same facts give the
    /// same id wherever they were read from), in parts on every processor, and the number
    /// of facts.
    /// - Complexity: O(*n*) for *n* facts.
    package static func commandID(of facts: [Fact]) -> String {
        let perPart = 16_384
        let parts = max(1, (facts.count + perPart - 1) / perPart)
        let hashes = concurrentMap(parts) { part -> UInt64 in
            let encoder = RecordEncoder(layout: .plain)
            var bytes: [UInt8] = []
            var hash = offset
            for index in (part * facts.count / parts)..<((part + 1) * facts.count / parts) {
                bytes.removeAll(keepingCapacity: true)
                encoder.encode(facts[index], position: 0, into: &bytes)
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* prime }
            }
            return hash
        }
        var digest = offset
        for value in hashes + [UInt64(facts.count)] {
            for shift in stride(from: 0, to: 64, by: 8) { digest = (digest ^ (value >> UInt64(shift) & 0xFF)) &* prime }
        }
        let hex = String(digest, radix: 16)
        return "import-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static let offset: UInt64 = 0xCBF2_9CE4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01B3
}
