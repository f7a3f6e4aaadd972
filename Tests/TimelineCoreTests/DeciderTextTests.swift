import Testing
import TimelineTestSupport
@testable import TimelineCore

/// Titles and names are trimmed and counted in bytes when they are ASCII: the result
/// must be that of walking their characters.
@Suite("Trimming and counting titles")
struct DeciderTextTests {
    static let pieces: [String] = [" ", "\t", "\n", "\r", "\r\n", "\u{0B}", "\u{0C}", "a", "B", "7", "-", "\u{1F}", "x y"]

    @Test func asciiTextGivesWhatWalkingCharactersGives() {
        var random = SplitMix64(seed: 11)
        var trimmedSome = 0
        for _ in 0..<5_000 {
            let text = (0..<random.below(9)).map { _ in Self.pieces[random.below(Self.pieces.count)] }.joined()
            let slow = Decider.trimmedSlice(text)
            #expect(Decider.asciiTrimmedBounds(text) != nil)
            #expect(Decider.trimmedCount(text) == slow.count, "\(text.debugDescription)")
            #expect(Decider.trimmed(text) == String(slow), "\(text.debugDescription)")
            if String(slow) != text { trimmedSome += 1 }
        }
        #expect(trimmedSome > 1_000)
    }

    @Test(arguments: ["  Ünïcödé  ", "😀 party", "\u{85}x\u{A0}", "e\u{301}"])
    func otherTextIsWalkedByCharacters(_ text: String) {
        #expect(Decider.asciiTrimmedBounds(text) == nil)
        #expect(Decider.trimmedCount(text) == Decider.trimmedSlice(text).count)
        #expect(Decider.trimmed(text) == String(Decider.trimmedSlice(text)))
    }
}
