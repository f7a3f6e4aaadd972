import Testing
@testable import TimelineCore

/// A submission's nonce: 128 random bits as 32 lowercase hexadecimal digits, drawn in two
/// draws of the generator (the system's makes a system call for each: a send drew 32).
@Suite("A submission's nonce")
struct SubmissionNonceTests {
    /// Hands out fixed values and counts the draws.
    struct CountingGenerator: RandomNumberGenerator {
        var values: [UInt64]
        var draws = 0
        mutating func next() -> UInt64 {
            defer { draws += 1 }
            return values[draws % values.count]
        }
    }

    @Test func aNonceIsTheHexadecimalOfTwoDraws() {
        var generator = CountingGenerator(values: [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210])
        let nonce = Submission.makeNonce(using: &generator)
        #expect(nonce == "0123456789abcdeffedcba9876543210")
        #expect(generator.draws == 2)
        var zeros = CountingGenerator(values: [0, 15])
        #expect(Submission.makeNonce(using: &zeros) == "0000000000000000000000000000000f")
    }

    @Test func noncesOfTheSystemGeneratorDiffer() {
        var system = SystemRandomNumberGenerator()
        let nonces = (0..<100).map { _ in Submission.makeNonce(using: &system) }
        #expect(Set(nonces).count == 100)
        #expect(nonces.allSatisfy { $0.utf8.count == 32 && $0.utf8.allSatisfy { "0123456789abcdef".utf8.contains($0) } })
    }
}
