import Foundation
import Testing
import TimelineCore
@testable import TimelineProjections

/// Inputs the checkpoint fuzz target (Tests/Fuzz/FuzzCheckpoint.swift) found crashing; each is a
/// checkpoint body, sealed here with the magic and a valid checksum as the fuzz target does.
@Suite("Checkpoint fuzz regressions")
struct CheckpointFuzzRegressionTests {
    static func sealed(_ base64: String) throws -> [UInt8] {
        var bytes = Checkpoint.magic + Array(try #require(Data(base64Encoded: base64)))
        var crc = CRC32C.checksum(bytes).littleEndian
        withUnsafeBytes(of: &crc) { bytes.append(contentsOf: $0) }
        return bytes
    }

    @Test(arguments: [
        // An event count of 0xFFFFFFFF: reserving room for that many events exhausted memory.
        "AQAAAAAAAQAAAP//////////////////////AQAAAAAAAAH//wAAABD///////////////////8=",
    ])
    func aDamagedCountBehindAValidChecksumIsRefusedNotACrash(_ base64: String) throws {
        #expect(throws: Checkpoint.Failure.self) { _ = try Checkpoint.load(try Self.sealed(base64)) }
    }
}
