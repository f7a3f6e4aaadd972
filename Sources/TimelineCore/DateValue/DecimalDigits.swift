/// Zero-padded decimal numbers, as dates and section names write them: `0042`, `07`.
///
/// One implementation for the formatter, the parser's messages and section names.
package enum DecimalDigits {
    /// `value` in at least `width` digits, zero-padded on the left (`padded(7, width: 2)`
    /// is `"07"`); a negative value gets its sign before the padded digits.
    package static func padded<I: BinaryInteger>(_ value: I, width: Int) -> String {
        var bytes: [UInt8] = []
        append(value, width: width, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` as UTF-8 digits, at least `width` of them, zero-padded on the left.
    /// - Complexity: O(digits), with no allocation beyond growing `bytes`.
    package static func append<I: BinaryInteger>(_ value: I, width: Int, to bytes: inout [UInt8]) {
        var magnitude = UInt64(value.magnitude)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits = 1
        var scale: UInt64 = 10
        while magnitude >= scale && digits < 20 {
            digits += 1
            if scale > UInt64.max / 10 { break }
            scale *= 10
        }
        for _ in 0..<Swift.max(0, width - digits) { bytes.append(UInt8(ascii: "0")) }
        let start = bytes.count
        for _ in 0..<digits { bytes.append(0) }
        var at = bytes.count - 1
        while at >= start {
            bytes[at] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            at -= 1
        }
    }
}
