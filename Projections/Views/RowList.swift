import TimelineCore

/// The rows of a view in list order: an immutable snapshot that shares structure with the view.
///
/// Taking a snapshot is O(1); the view goes on changing without affecting it. Rows are
/// made on access from the ordered index, so the list costs a few words per row.
public struct RowList: RandomAccessCollection, Sendable {
    let index: OrderedIndex<RowEntry>
    let descending: Bool

    init(index: OrderedIndex<RowEntry>, descending: Bool) {
        self.index = index
        self.descending = descending
    }

    /// An empty list: the rows of a view before its store has any (a placeholder).
    /// - Complexity: O(1).
    public init() {
        self.init(index: OrderedIndex(), descending: false)
    }

    /// The position of the first row: always 0.
    public var startIndex: Int { 0 }

    /// One past the position of the last row: the number of rows.
    public var endIndex: Int { index.count }

    /// The row at `position` in list order.
    /// - Complexity: O(log *n*).
    public subscript(position: Int) -> Row {
        index[descending ? index.count - 1 - position : position].row
    }

    /// Iterates over the rows in list order.
    /// - Complexity: O(1) amortised per row ascending; O(log *n*) per row descending.
    public func makeIterator() -> Iterator {
        descending ? Iterator(descending: self) : Iterator(ascending: index.makeIterator())
    }

    /// What a text listing shows of a row, read in place from its event: its title's
    /// bytes without making a ``Row`` (and a `String` of the title) for each.
    package struct RowText {
        let entry: RowEntry

        /// The row's kind.
        package var kind: RowKind { entry.kind }
        /// The row's event's id.
        package var event: EventID { entry.event.id }
        /// The event's timeline.
        package var timeline: TimelineID { entry.event.timeline }
        /// The row's date: `nil` for an ongoing row.
        package var date: DateValue? { entry.date }

        /// The title's UTF-8 bytes, for the duration of `body`.
        package func withTitleBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            entry.event.withTitleBytes(body)
        }
    }

    /// Calls `body` with each row's ``RowText``, in list order, for the rows at `positions`
    /// (all of them by default).
    /// - Complexity: O(log *n* + *k*) ascending, O(*k* log *n*) descending, for *k* rows.
    package func forEachRowText(in positions: Range<Int>? = nil, _ body: (RowText) -> Void) {
        let positions = positions ?? 0..<index.count
        precondition(positions.lowerBound >= 0 && positions.upperBound <= index.count, "positions out of range")
        if descending {
            for position in positions { body(RowText(entry: index[index.count - 1 - position])) }
        } else {
            var entries = index.makeIterator(startingAt: positions.lowerBound)
            for _ in positions {
                guard let entry = entries.next() else { break }
                body(RowText(entry: entry))
            }
        }
    }

    /// An iterator over a row list.
    public struct Iterator: IteratorProtocol {
        var ascending: OrderedIndex<RowEntry>.Iterator?
        var list: RowList?
        var offset: Int = 0

        init(ascending: OrderedIndex<RowEntry>.Iterator) { self.ascending = ascending }
        init(descending list: RowList) { self.list = list }

        /// The next row, or `nil` after the last.
        public mutating func next() -> Row? {
            if ascending != nil { return ascending!.next()?.row }
            guard let list, offset < list.count else { return nil }
            defer { offset += 1 }
            return list[offset]
        }
    }
}
