/// Finds and unescapes JSON strings in bytes already known to be well-formed UTF-8.
///
/// Shared by the general ``JSONParser`` and the record reader's fast path, so that both
/// read strings by the same rules: every escape of RFC 8259 (`\"` `\\` `\/` `\b` `\f`
/// `\n` `\r` `\t` `\uXXXX`), surrogate pairs joined, lone surrogates and unescaped
/// control characters refused.
enum JSONStringScanner {
    /// Where a string's content ends, and whether it holds escapes.
    struct Span {
        /// The offset of the closing quote.
        var end: Int
        /// Whether the content holds at least one backslash escape.
        var hasEscapes: Bool
    }

    /// Why the bytes are not a JSON string, and the offset of the offending byte.
    struct Failure: Error {
        var reason: String
        var offset: Int
    }

    /// Scans the content of a string that starts at `start`, just after its opening
    /// quote, up to its closing quote, checking every escape.
    ///
    /// - Precondition: the `count` bytes at `p` are well-formed UTF-8.
    @inline(__always)
    static func scan(_ p: UnsafePointer<UInt8>, count n: Int, from start: Int) -> Result<Span, Failure> {
        var i = start
        var hasEscapes = false
        while i < n {
            let byte = p[i]
            if byte == 0x22 { return .success(Span(end: i, hasEscapes: hasEscapes)) }
            if byte == 0x5C {
                hasEscapes = true
                if let failure = checkEscape(p, count: n, at: &i, stringStart: start) { return .failure(failure) }
                continue
            }
            if byte < 0x20 {
                return .failure(Failure(reason: "control character \(hex4(UInt16(byte))) must be escaped in a string",
                                        offset: i))
            }
            i += 1
        }
        return .failure(Failure(reason: "unterminated string", offset: start - 1))
    }

    /// Checks the escape at `i` (a backslash) and moves `i` past it.
    private static func checkEscape(
        _ p: UnsafePointer<UInt8>, count n: Int, at i: inout Int, stringStart: Int
    ) -> Failure? {
        let escapeStart = i
        guard i + 1 < n else { return Failure(reason: "unterminated string", offset: stringStart - 1) }
        switch p[i + 1] {
        case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74:
            i += 2
            return nil
        case 0x75:
            guard let unit = hexUnit(p, count: n, at: i + 2) else {
                return Failure(reason: "\\u must be followed by four hexadecimal digits", offset: escapeStart)
            }
            i += 6
            switch unit {
            case 0xD800...0xDBFF:
                guard i + 1 < n, p[i] == 0x5C, p[i + 1] == 0x75,
                      let low = hexUnit(p, count: n, at: i + 2), (0xDC00...0xDFFF).contains(low) else {
                    return Failure(reason: "lone surrogate \\u\(hex4(unit).dropFirst(2)) (a high surrogate needs a low one after it)",
                                   offset: escapeStart)
                }
                i += 6
                return nil
            case 0xDC00...0xDFFF:
                return Failure(reason: "lone surrogate \\u\(hex4(unit).dropFirst(2)) (a low surrogate needs a high one before it)",
                               offset: escapeStart)
            default:
                return nil
            }
        default:
            return Failure(reason: "invalid escape in a string (allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                           offset: escapeStart)
        }
    }

    /// The code unit of the four hexadecimal digits at `i`, or `nil`.
    @inline(__always)
    private static func hexUnit(_ p: UnsafePointer<UInt8>, count n: Int, at i: Int) -> UInt16? {
        guard i + 4 <= n else { return nil }
        var unit: UInt16 = 0
        for k in 0..<4 {
            let c = p[i + k]
            let digit: UInt8
            switch c {
            case 0x30...0x39: digit = c - 0x30
            case 0x41...0x46: digit = c - 0x41 + 10
            case 0x61...0x66: digit = c - 0x61 + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// The string whose content is the bytes from `start` to `end` (the closing quote),
    /// unescaped.
    ///
    /// - Precondition: ``scan(_:count:from:)`` accepted the bytes and gave this span.
    @inline(__always)
    static func makeString(_ p: UnsafePointer<UInt8>, from start: Int, to end: Int, hasEscapes: Bool) -> String {
        if !hasEscapes { return copyString(p + start, count: end - start) }
        return unescape(p, from: start, to: end)
    }

    /// The string whose UTF-8 is the `count` bytes at `p`.
    ///
    /// Unlike `String(decoding:as:)`, this makes no dynamic cast to look for contiguous
    /// storage: the bytes are contiguous already.
    @inline(__always)
    static func copyString(_ p: UnsafePointer<UInt8>, count: Int) -> String {
        String(unsafeUninitializedCapacity: count) { out in
            if count > 0 { UnsafeMutableRawPointer(out.baseAddress!).copyMemory(from: p, byteCount: count) }
            return count
        }
    }

    /// Unescapes checked content; an escape never takes fewer bytes than what it stands
    /// for, so the content's length is enough room.
    private static func unescape(_ p: UnsafePointer<UInt8>, from start: Int, to end: Int) -> String {
        String(unsafeUninitializedCapacity: end - start) { out in
            var o = 0
            var i = start
            while i < end {
                var run = i
                while run < end, p[run] != 0x5C { run += 1 }
                if run > i {
                    let length = run - i
                    UnsafeMutableRawPointer(out.baseAddress! + o).copyMemory(from: p + i, byteCount: length)
                    o += length
                    i = run
                    if i == end { break }
                }
                // p[i] is a backslash.
                let escaped = p[i + 1]
                i += 2
                let simple: UInt8
                switch escaped {
                case 0x62: simple = 0x08
                case 0x66: simple = 0x0C
                case 0x6E: simple = 0x0A
                case 0x72: simple = 0x0D
                case 0x74: simple = 0x09
                case 0x75:
                    var scalar = UInt32(hexUnit(p, count: end, at: i)!)
                    i += 4
                    if (0xD800...0xDBFF).contains(scalar) {
                        let low = UInt32(hexUnit(p, count: end, at: i + 2)!)
                        i += 6
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    o += writeUTF8(scalar, into: out, at: o)
                    continue
                default: simple = escaped // \" \\ \/
                }
                out[o] = simple
                o += 1
            }
            return o
        }
    }

    /// Writes the UTF-8 form of a scalar value; returns the number of bytes written.
    @inline(__always)
    private static func writeUTF8(_ scalar: UInt32, into out: UnsafeMutableBufferPointer<UInt8>, at o: Int) -> Int {
        switch scalar {
        case 0..<0x80:
            out[o] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            out[o] = UInt8(0xC0 | scalar >> 6)
            out[o + 1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            out[o] = UInt8(0xE0 | scalar >> 12)
            out[o + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[o + 2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            out[o] = UInt8(0xF0 | scalar >> 18)
            out[o + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            out[o + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[o + 3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }

    /// `U+001F`-style text for a code unit.
    static func hex4(_ unit: UInt16) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text = "U+"
        for shift in stride(from: 12, through: 0, by: -4) {
            text.unicodeScalars.append(Unicode.Scalar(digits[Int(unit >> UInt16(shift) & 0xF)]))
        }
        return text
    }
}
