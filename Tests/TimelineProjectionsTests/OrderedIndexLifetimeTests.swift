import Synchronization
import Testing
import TimelineTestSupport
@testable import TimelineProjections

/// A node keeps its elements in its own storage, moving them when it grows or splits: each
/// element the index holds is freed exactly once, when no copy of the index, and no
/// iterator, holds it any more.
@Suite struct OrderedIndexLifetimeTests {
    /// How many ``Tracked`` objects are alive (one counter per test, so tests may run at once).
    final class Census: Sendable {
        let alive = Atomic<Int>(0)
    }

    final class Tracked: Sendable {
        let census: Census
        let value: Int

        init(_ value: Int, census: Census) {
            self.census = census
            self.value = value
            census.alive.add(1, ordering: .relaxed)
        }

        deinit { census.alive.subtract(1, ordering: .relaxed) }
    }

    /// An element holding a reference, marked when its value is odd.
    struct Element: OrderedIndexElement, Sendable {
        let object: Tracked
        var isMarked: Bool { object.value % 2 == 1 }
    }

    @Test(arguments: [2, 3, 5, 8, OrderedIndex<Element>.defaultNodeCapacity])
    func everyElementIsFreedOnceAndCopiesKeepTheirs(capacity: Int) {
        let census = Census()
        do {
            var random = SplitMix64(seed: 0x11FE &+ UInt64(capacity))
            var index = OrderedIndex<Element>(nodeCapacity: capacity)
            var reference: [Int] = []
            var copies: [(index: OrderedIndex<Element>, values: [Int])] = []
            var iterators: [(OrderedIndex<Element>.Iterator, [Int])] = []
            for step in 0..<3_000 {
                let value = random.below(1_000)
                switch random.below(10) {
                case 0..<5:
                    let at = random.below(index.count + 1)
                    index.insert(Element(object: Tracked(value, census: census)), at: at)
                    reference.insert(value, at: at)
                case 5..<8 where !index.isEmpty:
                    let at = random.below(index.count)
                    #expect(index.remove(at: at).object.value == reference.remove(at: at))
                case 8 where !index.isEmpty:
                    let at = random.below(index.count)
                    index.update(at: at, with: Element(object: Tracked(value, census: census)))
                    reference[at] = value
                default:
                    break
                }
                if step % 250 == 0 { copies.append((index, reference)) }
                if step % 700 == 0 { iterators.append((index.makeIterator(), reference)) }
            }
            #expect(index.map(\.object.value) == reference)
            #expect(index.invariantViolations().isEmpty)
            for (copy, values) in copies {
                #expect(copy.map(\.object.value) == values, "a copy never sees later changes")
            }
            for (iterator, values) in iterators {
                var iterator = iterator
                var seen: [Int] = []
                while let element = iterator.next() { seen.append(element.object.value) }
                #expect(seen == values)
            }
            #expect(census.alive.load(ordering: .relaxed) >= reference.count)
        }
        #expect(census.alive.load(ordering: .relaxed) == 0, "every element freed once all holders are gone")
    }
}
