/// JSON string quoting for logs written by hand: quotes, backslashes and control
/// characters escaped, everything else as raw UTF-8.
enum JSONText {
    static func quote(_ string: String, into buffer: inout [UInt8]) {
        buffer.append(0x22)
        for byte in string.utf8 {
            switch byte {
            case 0x22: buffer += [0x5C, 0x22]
            case 0x5C: buffer += [0x5C, 0x5C]
            case 0x0A: buffer += [0x5C, 0x6E]
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                buffer += [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: buffer.append(byte)
            }
        }
        buffer.append(0x22)
    }
}
