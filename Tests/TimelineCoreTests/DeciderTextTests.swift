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

    /// Text that `isTrimmedAndShort` passes on its ends and length alone must be what
    /// walking its characters gives: already trimmed, with 1–1000 characters.
    @Test func theEndsAloneDecideOnlyWhatWalkingCharactersDecides() throws {
        let pieces = Self.pieces + ["\u{600}", "\u{600}1", "e\u{301}", "\u{A0}", "\u{2028}", "\u{85}", "😀", "é", " \u{301}"]
        var random = SplitMix64(seed: 12)
        var passed = 0
        for _ in 0..<5_000 {
            let text = (0..<random.below(7)).map { _ in pieces[random.below(pieces.count)] }.joined()
            let slow = Decider.trimmedSlice(text)
            if Decider.isTrimmedAndShort(text) {
                passed += 1
                #expect(slow == text[...], "\(text.debugDescription)")
                #expect((1...Rejection.maximumTextLength).contains(slow.count), "\(text.debugDescription)")
            }
            #expect(Decider.trimmed(text) == String(slow), "\(text.debugDescription)")
            let rule: Rejection? = slow.isEmpty ? .emptyText(field: "title")
                : slow.count > Rejection.maximumTextLength ? .textTooLong(field: "title", length: slow.count) : nil
            #expect(rejection(of: try Decider.checkText(text, field: "title")) == rule, "\(text.debugDescription)")
        }
        #expect(passed > 300)
    }

    @Test func lengthsAroundTheLimitAreCountedInCharacters() {
        let limit = Rejection.maximumTextLength
        #expect(Decider.isTrimmedAndShort(String(repeating: "a", count: limit)))
        #expect(!Decider.isTrimmedAndShort(String(repeating: "a", count: limit + 1)))
        #expect(rejection(of: try Decider.checkText(String(repeating: "a", count: limit + 1), field: "title"))
            == .textTooLong(field: "title", length: limit + 1))
        // 1,000 characters in 2,000 bytes: too long in bytes for the ends to decide, within the rule.
        #expect(rejection(of: try Decider.checkText(String(repeating: "é", count: limit), field: "title")) == nil)
        #expect(!Decider.isTrimmedAndShort(""))
        #expect(!Decider.isTrimmedAndShort(" a"))
        #expect(!Decider.isTrimmedAndShort("a\n"))
    }

    /// The rule `checkText` throws, or `nil`.
    private func rejection(of body: @autoclosure () throws(Rejection) -> Void) -> Rejection? {
        do { try body() } catch { return error }
        return nil
    }

    @Test(arguments: ["  Ünïcödé  ", "😀 party", "\u{85}x\u{A0}", "e\u{301}"])
    func otherTextIsWalkedByCharacters(_ text: String) {
        #expect(Decider.asciiTrimmedBounds(text) == nil)
        #expect(Decider.trimmedCount(text) == Decider.trimmedSlice(text).count)
        #expect(Decider.trimmed(text) == String(Decider.trimmedSlice(text)))
    }
}
