/// Where each record's line starts in a log, in order: four bytes an offset while they fit.
///
/// An open log keeps one offset per record for as long as it is open. As `Int`s they
/// would take 8 bytes a record, memory that grows with the log. They are kept as `UInt32`
/// until one does not fit (a log past 4 GiB), and as `Int` from then on.
struct RecordOffsets: Sendable {
    /// The offsets while every one fits in 32 bits.
    private var narrow: [UInt32] = []
    /// Every offset, once one does not fit in 32 bits (`narrow` is then empty).
    private var wide: [Int]?

    /// No offsets.
    init() {}

    /// The offsets in `offsets`, in order.
    init(_ offsets: [Int]) {
        append(contentsOf: offsets)
    }

    /// The number of offsets.
    /// - Complexity: O(1).
    var count: Int { wide?.count ?? narrow.count }

    /// How many offsets there is room for without reallocating (for tests).
    var capacity: Int { wide?.capacity ?? narrow.capacity }

    /// The offset at `index`.
    /// - Complexity: O(1).
    subscript(index: Int) -> Int {
        if let wide { return wide[index] }
        return Int(narrow[index])
    }

    /// Adds `offsets` after the others.
    /// - Complexity: O(*k*) for *k* offsets, amortised; O(*n*) once, when the first offset
    ///   past 4 GiB makes every offset wide.
    mutating func append(contentsOf offsets: [Int]) {
        if wide == nil, offsets.allSatisfy({ $0 >= 0 && $0 <= Int(UInt32.max) }) {
            // Grows geometrically (`reserveCapacity` to the exact count, per append of a
            // record or two, reallocated the whole array every few appends).
            narrow.append(contentsOf: offsets.lazy.map { UInt32(truncatingIfNeeded: $0) })
            return
        }
        if wide == nil {
            wide = narrow.map(Int.init)
            narrow = []
        }
        wide!.append(contentsOf: offsets)
    }

    /// `prefix`'s offsets, then `rest`'s.
    /// - Complexity: O(*n*).
    static func + (prefix: RecordOffsets, rest: RecordOffsets) -> RecordOffsets {
        var joined = prefix
        joined.append(contentsOf: rest)
        return joined
    }

    mutating func append(contentsOf other: RecordOffsets) {
        if let wide = other.wide {
            append(contentsOf: wide)
        } else if wide == nil {
            narrow.append(contentsOf: other.narrow)
        } else {
            wide!.append(contentsOf: other.narrow.lazy.map(Int.init))
        }
    }
}
