import TimelineTestSupport
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

    /// The check of UTF-8 agrees with the standard library's on every sequence of two
    /// bytes, on scalars' encodings (every 61st and each length's edges), and on 50,000 seeded sequences of up to 12
    /// bytes drawn mostly from lead and continuation bytes.
    @Test func theUTF8CheckAgreesWithTheStandardLibrary() {
        func agrees(_ bytes: [UInt8]) -> Bool {
            let ours = bytes.withUnsafeBytes(ByteReader.isUTF8)
            return ours == (String(validating: bytes, as: UTF8.self) != nil)
        }
        var disagreements = 0
        for first in 0...255 {
            for second in 0...255 where !agrees([UInt8(first), UInt8(second)]) { disagreements += 1 }
        }
        let edges = [0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x3FFFF, 0x40000, 0x10FFFF]
        for value in Array(stride(from: 0, through: 0x10FFFF, by: 61)) + edges {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let encoded = Array(String(Character(scalar)).utf8)
            if !agrees(encoded) || !agrees([0x41] + encoded + [0x42]) { disagreements += 1 }
        }
        var random = SplitMix64(seed: 7)
        let alphabet: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
                                 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        for _ in 0..<50_000 {
            let bytes = (0..<Int.random(in: 1...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            if !agrees(bytes) { disagreements += 1 }
        }
        #expect(disagreements == 0)
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
