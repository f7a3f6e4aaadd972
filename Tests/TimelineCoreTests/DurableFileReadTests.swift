import Testing
@testable import TimelineCore

@Suite struct DurableFileReadTests {
    /// A file of 16 MiB or more is read in parts at the same time (with two processors or
    /// more): every byte lands in its place, whatever the size's remainder.
    @Test(arguments: [0, 1, 5, 8 << 20, (17 << 20) + 3])
    func aFileReadsWholeInParts(size: Int) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/file"
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) }
            try DurableFile.write(bytes, to: path)
            #expect(try DurableFile.read(path) == bytes)
        }
    }
}
