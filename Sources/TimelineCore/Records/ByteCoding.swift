/// Appends little-endian integers and length-prefixed strings to a byte buffer.
package struct ByteWriter {
    package var bytes: [UInt8] = []

    /// An empty buffer.
    package init() {}

    // One method per width, not one generic method: called from another module, the
    // generic one went unspecialized, with a metadata lookup per integer.
    package mutating func write(_ value: UInt8) { bytes.append(value) }
    package mutating func write(_ value: UInt16) { writeInteger(value) }
    package mutating func write(_ value: UInt32) { writeInteger(value) }
    package mutating func write(_ value: UInt64) { writeInteger(value) }
    package mutating func write(_ value: Int32) { writeInteger(value) }
    package mutating func write(_ value: Int64) { writeInteger(value) }

    private mutating func writeInteger<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            write(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }
}

/// Reads what ``ByteWriter`` wrote from bytes borrowed for the reader's lifetime; every
/// read checks bounds and fails with a reason.
package struct ByteReader {
    package struct Failure: Error, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
        package init(reason: String) { self.reason = reason }
    }

    package let bytes: UnsafeRawBufferPointer
    package var offset = 0

    /// A reader of `bytes`, which must stay valid while it is used.
    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    package var isAtEnd: Bool { offset == bytes.count }

    /// The bytes not read yet.
    package var remaining: Int { bytes.count - offset }

    // One method per width, not one generic method: called from another module, a
    // generic one is not specialized, and looks up metadata for every integer it reads.
    package mutating func read(_: UInt8.Type) throws(Failure) -> UInt8 { try readInteger() }
    package mutating func read(_: UInt16.Type) throws(Failure) -> UInt16 { try readInteger() }
    package mutating func read(_: UInt32.Type) throws(Failure) -> UInt32 { try readInteger() }
    package mutating func read(_: UInt64.Type) throws(Failure) -> UInt64 { try readInteger() }
    package mutating func read(_: Int32.Type) throws(Failure) -> Int32 { try readInteger() }
    package mutating func read(_: Int64.Type) throws(Failure) -> Int64 { try readInteger() }

    @inline(__always)
    private mutating func readInteger<T: FixedWidthInteger>() throws(Failure) -> T {
        let size = MemoryLayout<T>.size
        guard size <= bytes.count - offset else { throw Failure(reason: "truncated at byte \(offset)") }
        let value = bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += size
        return T(littleEndian: value)
    }

    /// A count of items that each take at least `minimumSize` bytes: a count the bytes
    /// left could not hold is refused, so that a damaged count cannot exhaust memory.
    package mutating func readCount(minimumSize: Int) throws(Failure) -> Int {
        let count = Int(try read(UInt32.self))
        guard count <= remaining / max(minimumSize, 1) else {
            throw Failure(reason: "count \(count) at byte \(offset - 4) exceeds the \(remaining) bytes left")
        }
        return count
    }

    /// An index below `limit`.
    package mutating func readIndex(below limit: Int, of what: String) throws(Failure) -> Int {
        let index = Int(try read(UInt32.self))
        guard index < limit else { throw Failure(reason: "\(what) \(index) at byte \(offset - 4) of \(limit)") }
        return index
    }

    /// Whether every byte is below 0x80, read eight at a time; the last word (or, below
    /// eight bytes, two words of four) overlaps the one before rather than going byte by
    /// byte, as most ids and titles are short.
    /// - Complexity: O(*n*) for *n* bytes.
    @inline(__always)
    @inlinable package static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count >= 8 else {
            if count >= 4 {
                let words = bytes.loadUnaligned(as: UInt32.self) | bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                return words & 0x8080_8080 == 0
            }
            var high: UInt8 = 0
            for offset in 0..<count { high |= bytes[offset] }
            return high < 0x80
        }
        var offset = 0, high: UInt64 = 0
        while offset + 8 <= count {
            high |= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        high |= bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        return high & 0x8080_8080_8080_8080 == 0
    }

    package mutating func readString() throws(Failure) -> String {
        String(decoding: try readUTF8(), as: UTF8.self)
    }

    /// A string's bytes, checked to be UTF-8, in place: for a caller that copies them
    /// elsewhere without making a `String` (an event's title goes into its snapshot).
    /// The buffer points into the reader's bytes and is valid only while they are.
    package mutating func readUTF8() throws(Failure) -> UnsafeBufferPointer<UInt8> {
        let count = Int(try read(UInt32.self))
        guard count <= bytes.count - offset else { throw Failure(reason: "truncated string at byte \(offset)") }
        defer { offset += count }
        let utf8 = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]).assumingMemoryBound(to: UInt8.self)
        guard Self.isUTF8(UnsafeRawBufferPointer(utf8)) else { throw Failure(reason: "invalid UTF-8 at byte \(offset)") }
        return utf8
    }

    /// Whether the bytes are well-formed UTF-8 (Unicode's table 3-7: no overlong form, no
    /// surrogate, nothing past U+10FFFF), ASCII runs read eight bytes at a time. Not
    /// generic, unlike `String(validating:)`, whose metadata lookup per call cost more than
    /// the check itself for a checkpoint's short titles.
    /// - Complexity: O(*n*) for *n* bytes.
    @inline(__always)
    @inlinable package static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        isASCII(bytes) || isUTF8BeyondASCII(bytes)
    }

    /// ``isUTF8(_:)`` of bytes not all ASCII.
    @usableFromInline static func isUTF8BeyondASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        let count = bytes.count
        while offset < count {
            if count - offset >= 8,
               bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                offset += 8
                continue
            }
            let lead = bytes[offset]
            if lead < 0x80 {
                offset += 1
                continue
            }
            // The sequence's length, and the range its second byte must lie in.
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard count - offset >= length, (low...high).contains(bytes[offset + 1]) else { return false }
            for next in (offset + 2)..<(offset + length) where bytes[next] & 0xC0 != 0x80 { return false }
            offset += length
        }
        return true
    }
}
