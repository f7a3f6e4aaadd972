// Temporary array-backed stand-in with the persistent B-tree's interface; replaced by the tree.
public protocol OrderedIndexElement { var isMarked: Bool { get } }

public struct OrderedIndex<Element: OrderedIndexElement>: Sequence {
    var storage: [Element] = []
    public init() {}
    public init<S: Sequence>(_ sorted: S) where S.Element == Element { storage = Array(sorted) }
    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }
    public subscript(position: Int) -> Element { storage[position] }
    public mutating func update(at position: Int, with element: Element) { storage[position] = element }
    public mutating func insert(_ element: Element, at position: Int) { storage.insert(element, at: position) }
    @discardableResult public mutating func remove(at position: Int) -> Element { storage.remove(at: position) }
    public func partitionIndex(where belongsInSecondPartition: (Element) throws -> Bool) rethrows -> Int {
        var lo = 0, hi = storage.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if try belongsInSecondPartition(storage[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
    public func markedCount(before position: Int) -> Int { storage[..<position].filter(\.isMarked).count }
    public var markedCount: Int { storage.filter(\.isMarked).count }
    public func indexOfUnmarked(_ n: Int) -> Int {
        var seen = 0
        for (i, e) in storage.enumerated() where !e.isMarked { if seen == n { return i }; seen += 1 }
        return storage.count
    }
    public func indexOfMarked(_ n: Int) -> Int {
        var seen = 0
        for (i, e) in storage.enumerated() where e.isMarked { if seen == n { return i }; seen += 1 }
        return storage.count
    }
    public func makeIterator() -> IndexingIterator<[Element]> { storage.makeIterator() }
}
extension OrderedIndex: Sendable where Element: Sendable {}
