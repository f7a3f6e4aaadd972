import Testing
@testable import TimelineCore

@Suite struct ByteReaderTests {
    /// A byte of 0x80 or more anywhere, at every length and place (the check reads eight
    /// bytes at a time, then the rest one by one), makes the bytes not ASCII.
    @Test func everyHighByteIsFoundAtEveryLengthAndPlace() {
        for length in 0...40 {
            let ascii = [UInt8](repeating: 0x7F, count: length)
            #expect(ascii.withUnsafeBytes(ByteReader.isASCII), "length \(length)")
            for place in 0..<length {
                var bytes = ascii
                bytes[place] = 0x80
                #expect(!bytes.withUnsafeBytes(ByteReader.isASCII), "length \(length), byte \(place)")
            }
        }
    }

    /// A string that is not UTF-8 is refused, wherever its bad byte is; ASCII and other
    /// UTF-8 are read as they are.
    @Test func readUTF8RefusesBytesThatAreNotUTF8() {
        func written(_ bytes: [UInt8]) -> [UInt8] { withUnsafeBytes(of: UInt32(bytes.count).littleEndian, Array.init) + bytes }
        for text in ["", "plain ASCII text, longer than eight bytes", "Él été", "日本語のタイトル"] {
            let bytes = written(Array(text.utf8))
            let read = bytes.withUnsafeBytes { raw -> ([UInt8]?, Bool) in
                var reader = ByteReader(raw)
                let utf8 = try? reader.readUTF8()
                return (utf8.map(Array.init), reader.isAtEnd)
            }
            #expect(read.0 == Array(text.utf8))
            #expect(read.1)
        }
        for place in 0..<12 {
            var text = Array("twelve bytes".utf8)
            text[place] = 0xFF
            let refused = written(text).withUnsafeBytes { raw -> Bool in
                var reader = ByteReader(raw)
                return (try? reader.readUTF8()) == nil
            }
            #expect(refused, "byte \(place)")
        }
    }
}
