/// The index is a random-access collection with `Int` positions `0..<count`.
///
/// Its subscript is O(log *n*), not O(1): algorithms that walk positions one by one
/// (`firstIndex(where:)`, loops over `indices`, slices) cost O(log *n*) per element.
/// Iteration (`for`-`in`, `forEach`, `Array(index)`, `map`, `reduce`, `elementsEqual`)
/// uses the index's own iterator and costs O(1) amortised per element.
extension OrderedIndex: RandomAccessCollection {
    /// A position in the index.
    package typealias Index = Int

    /// The positions of the index, in order.
    package typealias Indices = Range<Int>

    /// The position of the first element: always 0.
    ///
    /// - Complexity: O(1).
    package var startIndex: Int { 0 }

    /// The position after the last element: `count`.
    ///
    /// - Complexity: O(1).
    package var endIndex: Int { count }

    /// Returns the elements transformed, in order.
    ///
    /// - Parameter transform: A function applied to each element in order.
    /// - Returns: The transformed elements.
    /// - Complexity: O(*n*) calls of `transform` (it iterates instead of using the
    ///   O(log *n*) subscript, as `Collection.map` would).
    package func map<T, E: Error>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        var result: [T] = []
        result.reserveCapacity(count)
        for element in self {
            result.append(try transform(element))
        }
        return result
    }
}
