import Testing
import TimelineTestSupport
@testable import TimelineCore

@Suite("Zero-padded decimal digits")
struct DecimalDigitsTests {
    static let cases: [(Int, Int, String)] = [
        (0, 1, "0"), (0, 4, "0000"), (7, 2, "07"), (42, 2, "42"), (123, 2, "123"), (2019, 4, "2019"),
        (999_999, 6, "999999"), (5, 6, "000005"), (-5, 4, "-0005"), (12_345, 0, "12345"),
        (Int.max, 1, "9223372036854775807"), (Int.min, 1, "-9223372036854775808"),
    ]

    @Test(arguments: cases)
    func padsOnTheLeft(_ value: Int, _ width: Int, _ expected: String) {
        #expect(DecimalDigits.padded(value, width: width) == expected)
        var bytes = Array("x".utf8)
        DecimalDigits.append(value, width: width, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x" + expected)
    }

    @Test func matchesDescriptionForEveryValueUpToTenThousand() {
        for value in 0..<10_000 {
            #expect(DecimalDigits.padded(value, width: 1) == String(value))
        }
    }

    /// Formatting straight into a string's storage writes what parsing reads back, for
    /// seeded instants of every year the parser accepts, and fills the string exactly for
    /// instants far outside them.
    @Test func formattedInstantsParseBack() throws {
        var rng = SplitMix64(seed: 0x150_8601)
        let first = try DateValue(parsing: "0001-01-01T00:00:00Z").instant.microsecondsSinceEpoch
        let last = try DateValue(parsing: "9999-12-31T23:59:59.999999Z").instant.microsecondsSinceEpoch
        for _ in 0..<10_000 {
            var micros = first + Int64(rng.next() % UInt64(last - first))
            if rng.chance(50) { micros -= micros % 1_000_000 }
            let text = InstantFormatter.iso8601(Instant(microsecondsSinceEpoch: micros))
            #expect(try DateValue(parsing: text).instant.microsecondsSinceEpoch == micros, "\(text)")
        }
        for micros in [Int64.min, Int64.min + 1, -62_135_596_800_000_001, Int64.max] {
            let text = InstantFormatter.iso8601(Instant(microsecondsSinceEpoch: micros))
            #expect(text.utf8.allSatisfy { $0 != 0 }, "\(micros): \(text)")
            #expect(text.hasSuffix("Z") && text.contains("T"), "\(micros): \(text)")
        }
    }

    @Test func formatsInstantsWithAndWithoutFractions() throws {
        #expect(Instant(microsecondsSinceEpoch: 0).description == "1970-01-01T00:00:00Z")
        #expect(Instant(microsecondsSinceEpoch: -1).description == "1969-12-31T23:59:59.999999Z")
        #expect(try DateValue(parsing: "2026-11-29T12:00:00.5Z").instant.description == "2026-11-29T12:00:00.500000Z")
    }
}
