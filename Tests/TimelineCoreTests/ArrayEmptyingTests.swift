import Testing
@testable import TimelineCore

/// Emptying a working array keeps its storage and releases every element, whether it
/// holds a few elements (removed from the end) or many.
@Suite struct ArrayEmptyingTests {
    final class Element {}

    struct Weak {
        weak var element: Element?
    }

    @Test(arguments: [0, 1, 2, 4, 5, 17])
    func emptiesAndKeepsTheStorage(count: Int) {
        var array: [Element] = []
        array.reserveCapacity(32)
        for _ in 0..<count { array.append(Element()) }
        let capacity = array.capacity
        let watched = array.map { Weak(element: $0) }
        array.removeAllKeepingStorage()
        #expect(array.isEmpty)
        #expect(array.capacity == capacity)
        #expect(watched.allSatisfy { $0.element == nil })
        array.append(Element())
        #expect(array.count == 1 && array.capacity == capacity)
    }
}
