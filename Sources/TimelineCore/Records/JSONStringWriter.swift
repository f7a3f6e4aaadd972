/// Writes strings as JSON string literals, the way the store writes them.
///
/// `"` and `\` are escaped, control characters (below U+0020) become `\n` `\t` `\r`
/// `\b` `\f` or `\u00XX` (lowercase hexadecimal); everything else, non-ASCII included,
/// is written as its raw UTF-8.
enum JSONStringWriter {
    /// Appends `string` in quotes, escaped, to `buffer`.
    @inline(__always)
    static func append(_ string: String, to buffer: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in append(bytes, to: &buffer) }
    }

    /// Appends the UTF-8 `bytes` in quotes, escaped, to `buffer`.
    static func append(_ bytes: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        buffer.append(0x22)
        var runStart = 0
        var i = 0
        let n = bytes.count
        while i < n {
            let byte = bytes[i]
            if byte >= 0x20, byte != 0x22, byte != 0x5C {
                i += 1
                continue
            }
            if i > runStart { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            switch byte {
            case 0x22: buffer.append(contentsOf: [0x5C, 0x22])
            case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
            case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
            case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
            case 0x08: buffer.append(contentsOf: [0x5C, 0x62])
            case 0x0C: buffer.append(contentsOf: [0x5C, 0x66])
            default:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                buffer.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
            i += 1
            runStart = i
        }
        if n > runStart { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<n])) }
        buffer.append(0x22)
    }

    /// `string` as a JSON string literal, for quoting values in messages.
    static func quoted(_ string: String) -> String {
        var buffer: [UInt8] = []
        append(string, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
