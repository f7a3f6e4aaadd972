/// The byte a checkpoint writes for each value of an enum it saves.
///
/// Each code is stated once, in a `switch`, so that reordering the cases of the enum
/// changes nothing on disk, and a new case cannot compile without a code of its own
/// (`CheckpointCodeTests` pins every code). A code, once written, keeps its meaning: a
/// new case takes a new code, and changing one is a new ``TimelineProjection/schemaVersion``.
package protocol CheckpointCoded: CaseIterable, Hashable {
    /// The byte that stands for this value in a checkpoint.
    var checkpointCode: UInt8 { get }
}

extension CheckpointCoded {
    /// The value that `code` stands for, or `nil` for a code no value has (a damaged file).
    /// - Complexity: O(*c*) for *c* cases (a handful).
    package init?(checkpointCode code: UInt8) {
        guard let value = Self.allCases.first(where: { $0.checkpointCode == code }) else { return nil }
        self = value
    }
}

extension OngoingPlacement: CheckpointCoded {
    /// The byte that stands for this placement in a checkpoint.
    package var checkpointCode: UInt8 {
        switch self {
        case .now: 0
        case .first: 1
        case .last: 2
        }
    }
}

extension ViewOrder: CheckpointCoded {
    /// The byte that stands for this order in a checkpoint.
    package var checkpointCode: UInt8 {
        switch self {
        case .ascending: 0
        case .descending: 1
        }
    }
}

extension Sectioning: CheckpointCoded {
    /// The byte that stands for this sectioning in a checkpoint.
    package var checkpointCode: UInt8 {
        switch self {
        case .none: 0
        case .year: 1
        case .month: 2
        case .decade: 3
        }
    }
}

extension RowKind: CheckpointCoded {
    /// The byte that stands for this kind of row in a checkpoint.
    package var checkpointCode: UInt8 {
        switch self {
        case .single: 0
        case .start: 1
        case .end: 2
        case .ongoing: 3
        }
    }
}
