import Testing
import TimelineCore
import TimelineTestSupport
@testable import TimelineProjections

/// A view built at once from the event table's slots holds its rows in the row order,
/// as sorting them with the order's comparison does, however many ids share their first
/// bytes and rows share their instant.
@Suite("Views built from the event table")
struct ViewBuildOrderTests {
    static let ids = ["a", "ab", "é", "event-000001", "event-000002", "event-000010", "event-0000011", "e1", "e10",
                      "e1000000", "e1000001", "zz"]
    static let dates = ["1990", "1990-01", "1990-01-01", "1990-01-01T00:00Z", "2026-11-29", "2030"].map(date)

    @Test(arguments: OngoingPlacement.allCases)
    func aBuiltViewHoldsItsRowsInTheRowOrder(placement: OngoingPlacement) {
        var rng = SplitMix64(seed: 0xB11D)
        for _ in 0..<40 {
            var table = EventTable(shardCount: 1 + rng.below(4))
            for (n, id) in Self.ids.enumerated() where rng.chance(80) {
                let start = Self.dates[rng.below(Self.dates.count)]
                let dates: EventDates = switch rng.below(3) {
                case 0: .single(start)
                case 1: .range(start: start, end: nil)
                default: .range(start: start, end: Self.dates.filter { $0.instant >= start.instant }.last!)
                }
                _ = table.apply(.eventAdded(event: EventID(id), timeline: "t", title: "E\(n)", date: start))
                if case .range(let from, let end) = dates {
                    _ = table.apply(.rangeSet(event: EventID(id), start: from, end: end))
                }
            }
            let now = date("2026-11-29T12:00Z").instant.microsecondsSinceEpoch
            let order = RowOrder(placement: placement, now: now)
            let built = order.sortedIndex(of: table) { _ in true }.map { "\($0.event.id) \($0.kind)" }
            var entries: [RowEntry] = []
            for snapshot in table.snapshots {
                entries.append(RowEntry(event: snapshot, kind: snapshot.firstRowKind, now: now, placement: placement))
                if let kind = snapshot.secondRowKind {
                    entries.append(RowEntry(event: snapshot, kind: kind, now: now, placement: placement))
                }
            }
            #expect(built == entries.sorted(by: order.precedes).map { "\($0.event.id) \($0.kind)" })
        }
    }

    /// Finding a row's place (a scan of every fourth row, then a binary search, in each
    /// node) gives the first row that does not precede it, as the order defines, in trees
    /// of any shape, with many rows sharing an instant; finding it with the row there
    /// gives that row too, whether it is in a leaf or separates two subtrees.
    @Test(arguments: [3, 5, 16, 64])
    func aRowsPlaceIsTheFirstRowThatDoesNotPrecedeIt(nodeCapacity: Int) {
        var rng = SplitMix64(seed: UInt64(nodeCapacity))
        let now = date("2026-11-29T12:00Z").instant.microsecondsSinceEpoch
        for placement in OngoingPlacement.allCases {
            let order = RowOrder(placement: placement, now: now)
            var entries: [RowEntry] = []
            for n in 0..<300 {
                let start = Self.dates[rng.below(Self.dates.count)]
                // Half the ids share their first eight bytes, so that ties read whole ids.
                let id = rng.chance(50) ? "e\(rng.below(40))-\(n)" : "event-0\(rng.below(40))-\(n)"
                let snapshot = EventSnapshot.make(id: EventID(id), timeline: "t", title: "E",
                                                  dates: rng.chance(30) ? .range(start: start, end: nil) : .single(start))
                entries.append(RowEntry(event: snapshot, kind: snapshot.firstRowKind, now: now, placement: placement))
            }
            let probes = entries
            let kept = Array(entries.shuffled(using: &rng).prefix(200)).sorted(by: order.precedes)
            let index = OrderedIndex(kept, nodeCapacity: nodeCapacity)
            for probe in probes {
                let expected = kept.firstIndex { !order.precedes($0, probe) } ?? kept.count
                #expect(order.position(of: probe, in: index) == expected)
                let found = order.find(probe, in: index)
                #expect(found.at == expected)
                #expect(found.row.map { "\($0.event.id) \($0.kind)" }
                            == (expected < kept.count ? "\(kept[expected].event.id) \(kept[expected].kind)" : nil))
            }
        }
    }
}
