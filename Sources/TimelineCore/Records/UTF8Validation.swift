/// Checks that bytes are well-formed UTF-8 (RFC 3629): no overlong forms, no encoded
/// surrogates, nothing above U+10FFFF, no truncated or stray continuation bytes.
enum UTF8Validation {
    /// The offset of the first byte that does not start a well-formed sequence, or `nil`
    /// when all `count` bytes at `p` are well-formed UTF-8.
    ///
    /// - Complexity: O(*n*); runs of ASCII are checked eight bytes at a time.
    static func firstInvalidOffset(_ p: UnsafePointer<UInt8>, count n: Int) -> Int? {
        var i = 0
        while i < n {
            if i + 8 <= n {
                let word = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                    continue
                }
            }
            let lead = p[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            @inline(__always) func continuation(_ j: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
                j < n && p[j] >= low && p[j] <= high
            }
            switch lead {
            case 0xC2...0xDF:
                guard continuation(i + 1) else { return i }
                i += 2
            case 0xE0...0xEF:
                let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
                let high: UInt8 = lead == 0xED ? 0x9F : 0xBF
                guard continuation(i + 1, low, high), continuation(i + 2) else { return i }
                i += 3
            case 0xF0...0xF4:
                let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80
                let high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
                guard continuation(i + 1, low, high), continuation(i + 2), continuation(i + 3) else { return i }
                i += 4
            default:
                return i
            }
        }
        return nil
    }
}
