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
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count(of: value, width: width) + (value < 0 ? 1 : 0)))
        _ = bytes.withUnsafeMutableBufferPointer { write(value, width: width, into: $0, at: start) }
    }

    /// How many digits ``append(_:width:to:)`` writes for `value` (its sign not counted).
    package static func count<I: BinaryInteger>(of value: I, width: Int) -> Int {
        var magnitude = UInt64(value.magnitude)
        var digits = 1
        while magnitude >= 10 {
            digits += 1
            magnitude /= 10
        }
        return Swift.max(digits, width)
    }

    /// Writes `value` as ``append(_:width:to:)`` does into `buffer` at `offset`; returns
    /// the offset after it. `buffer` must have room (see ``count(of:width:)``).
    package static func write<I: BinaryInteger>(
        _ value: I, width: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int
    ) -> Int {
        var at = offset
        if value < 0 {
            buffer[at] = UInt8(ascii: "-")
            at += 1
        }
        let digits = count(of: value, width: width)
        var magnitude = UInt64(value.magnitude)
        for position in stride(from: at + digits - 1, through: at, by: -1) {
            buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
        return at + digits
    }
}
