import Testing
import TimelineTestSupport
@testable import TimelineProjections

/// The builder's shortcuts give what its general path gives.
@Suite("Change set builder")
struct ChangeSetBuilderTests {
    typealias Builder = ChangeSetBuilder<Int>

    static func expectSame(_ a: Builder.Result, _ b: Builder.Result, _ comment: Comment) {
        #expect(a.removals == b.removals, comment)
        #expect(a.insertions == b.insertions, comment)
        #expect(a.moves == b.moves, comment)
        #expect(a.updates == b.updates, comment)
    }

    /// Every pair of rows over a small list — in, out, staying or moving, changed or not —
    /// built by the two-row path and by the general one.
    @Test func twoRowsGiveWhatTheGeneralPathGives() {
        var rng = SplitMix64(seed: 0x7A1125)
        for _ in 0..<20_000 {
            func index() -> Int? { rng.chance(20) ? nil : rng.below(6) }
            // Two rows of a batch never share an index; the paths agree even when they do.
            let first = Builder.Touched(id: 1, old: index(), new: index(), contentChanged: rng.chance(50))
            let second = Builder.Touched(id: 2, old: index(), new: index(), contentChanged: rng.chance(50))
            Self.expectSame(Builder.buildPair(first, second), Builder.buildAny([first, second]),
                            "\(first) \(second)")
            Self.expectSame(Builder.build([first, second]), Builder.buildAny([first, second]), "\(first) \(second)")
        }
    }

    /// A batch built into the lists kept from earlier batches holds its own changes only,
    /// for one row, two and more, whatever the lists held before (a list it does not use
    /// keeps what it held, unseen).
    @Test func buildingIntoEarlierListsGivesAFreshBuild() {
        var rng = SplitMix64(seed: 0x11575)
        var storage = Builder.Storage()
        for _ in 0..<5_000 {
            func index() -> Int? { rng.chance(20) ? nil : rng.below(8) }
            let touched = (0..<(1 + rng.below(4))).map { id in
                Builder.Touched(id: id, old: index(), new: index(), contentChanged: rng.chance(50))
            }
            Self.expectSame(Builder.build(touched, reusing: &storage), Builder.buildAny(touched), "\(touched)")
        }
    }
}
