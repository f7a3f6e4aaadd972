import Testing
import TimelineCore
@testable import TimelineProjections

/// The bytes a checkpoint writes for its enums are a file format: each case's code is pinned
/// here by the case's name, so that reordering the cases, adding one without a code, or
/// changing a code fails a test (a changed code needs a new schema version).
struct CheckpointCodeTests {
    /// Checks that every case of `T` has the pinned code, that the codes are distinct, and
    /// that each code reads back as its case.
    private func expectPinned<T: CheckpointCoded & RawRepresentable>(_ type: T.Type, _ pinned: [String: UInt8])
    where T.RawValue == String {
        #expect(T.allCases.count == pinned.count, "\(T.self) has a case without a pinned checkpoint code")
        for value in T.allCases {
            #expect(pinned[value.rawValue] == value.checkpointCode,
                    "\(T.self).\(value.rawValue) is written as \(value.checkpointCode), pinned as \(String(describing: pinned[value.rawValue]))")
            #expect(T(checkpointCode: value.checkpointCode) == value)
        }
        #expect(Set(T.allCases.map(\.checkpointCode)).count == T.allCases.count, "two cases of \(T.self) share a code")
        #expect(T(checkpointCode: UInt8(pinned.count + 10)) == nil)
    }

    @Test func placementCodesArePinned() {
        expectPinned(OngoingPlacement.self, ["now": 0, "first": 1, "last": 2])
    }

    @Test func orderCodesArePinned() {
        expectPinned(ViewOrder.self, ["asc": 0, "desc": 1])
    }

    @Test func sectioningCodesArePinned() {
        expectPinned(Sectioning.self, ["none": 0, "year": 1, "month": 2, "decade": 3])
    }

    @Test func rowKindCodesArePinned() {
        expectPinned(RowKind.self, ["single": 0, "start": 1, "end": 2, "ongoing": 3])
    }

    @Test func schemaVersionCountsTheStatedCodes() {
        // Version 7 is the first whose enums are written as stated codes.
        #expect(TimelineProjection.schemaVersion >= 7)
    }
}
