import SystemShim
import Testing
@testable import TimelineCore

@Suite struct MappedFileTests {
    @Test func aMappedFileHoldsItsBytes() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/file"
            let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try DurableFile.write(bytes, to: path)
            let mapped = try #require(try MappedFile.map(path))
            #expect(mapped.withUnsafeBytes { Array($0) } == bytes)
        }
    }

    /// A file replaced by a new one renamed into place (how checkpoints are written) leaves
    /// the mapping with the file it mapped.
    @Test func aReplacedFileLeavesTheMappingAsItWas() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/file"
            try DurableFile.write(Array("first version".utf8), to: path)
            let mapped = try #require(try MappedFile.map(path))
            try DurableFile.write(Array("the second, longer version".utf8), to: path)
            #expect(mapped.withUnsafeBytes { Array($0) } == Array("first version".utf8))
            let second = try #require(try MappedFile.map(path))
            #expect(second.withUnsafeBytes { Array($0) } == Array("the second, longer version".utf8))
        }
    }

    @Test func noFileIsNilAnEmptyFileIsNoBytesAndAFIFOIsRefused() throws {
        try withTemporaryDirectory { directory in
            #expect(try MappedFile.map(directory + "/missing") == nil)
            try DurableFile.write([], to: directory + "/empty")
            #expect(try #require(try MappedFile.map(directory + "/empty")).count == 0)
            #expect(mkfifo(directory + "/fifo", 0o644) == 0)
            #expect(throws: EventLogError.self) { try MappedFile.map(directory + "/fifo") }
        }
    }
}
