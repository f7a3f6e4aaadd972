/// Writes strings as JSON string literals, the way the store writes them.
///
/// `"` and `\` are escaped, control characters (below U+0020) become `\n` `\t` `\r`
/// `\b` `\f` or `\u00XX` (lowercase hexadecimal); everything else, non-ASCII included,
/// is written as its raw UTF-8.
package enum JSONStringWriter {
    /// The most bytes the literal for a string of `utf8Count` bytes can take: quotes,
    /// and every byte a control character written as `\u00XX`.
    @inline(__always)
    package static func maximumLength(utf8Count: Int) -> Int { 2 + 6 * utf8Count }

    /// Writes the UTF-8 `bytes` in quotes, escaped, at `out`; returns how many bytes
    /// were written, at most ``maximumLength(utf8Count:)``.
    @inline(__always)
    package static func write(_ bytes: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var o = 0
        out[o] = 0x22
        o += 1
        for byte in bytes {
            if byte >= 0x20, byte != 0x22, byte != 0x5C {
                out[o] = byte
                o += 1
                continue
            }
            out[o] = 0x5C
            switch byte {
            case 0x22, 0x5C: out[o + 1] = byte
            case 0x0A: out[o + 1] = 0x6E
            case 0x09: out[o + 1] = 0x74
            case 0x0D: out[o + 1] = 0x72
            case 0x08: out[o + 1] = 0x62
            case 0x0C: out[o + 1] = 0x66
            default:
                out[o + 1] = 0x75
                out[o + 2] = 0x30
                out[o + 3] = 0x30
                out[o + 4] = hexDigit(byte >> 4)
                out[o + 5] = hexDigit(byte & 0xF)
                o += 4
            }
            o += 2
        }
        out[o] = 0x22
        return o + 1
    }

    /// Writes `string` in quotes, escaped, at `out`; returns how many bytes were written.
    @inline(__always)
    static func write(_ string: String, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var string = string
        return string.withUTF8 { write($0, to: out) }
    }

    @inline(__always)
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x61 + value - 10
    }

    /// `string` as a JSON string literal (for messages and the tool's JSON output).
    /// - Complexity: O(*n*) for *n* UTF-8 bytes.
    package static func quoted(_ string: String) -> String {
        let capacity = maximumLength(utf8Count: string.utf8.count)
        return String(unsafeUninitializedCapacity: capacity) { out in write(string, to: out.baseAddress!) }
    }
}
