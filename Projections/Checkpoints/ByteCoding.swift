/// Appends little-endian integers and length-prefixed strings to a byte buffer.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            write(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }
}

/// Reads what ``ByteWriter`` wrote; every read checks bounds and fails with a reason.
struct ByteReader {
    struct Failure: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    /// The bytes not read yet.
    var remaining: Int { bytes.count - offset }

    mutating func read<T: FixedWidthInteger>(_: T.Type = T.self) throws(Failure) -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= bytes.count else { throw Failure(reason: "truncated at byte \(offset)") }
        var value = T.zero
        withUnsafeMutableBytes(of: &value) { target in
            bytes.withUnsafeBytes { source in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + size)]))
            }
        }
        offset += size
        return T(littleEndian: value)
    }

    mutating func readString() throws(Failure) -> String {
        let count = Int(try read(UInt32.self))
        guard offset + count <= bytes.count else { throw Failure(reason: "truncated string at byte \(offset)") }
        defer { offset += count }
        guard let string = String(validating: bytes[offset..<(offset + count)], as: UTF8.self) else {
            throw Failure(reason: "invalid UTF-8 at byte \(offset)")
        }
        return string
    }
}
