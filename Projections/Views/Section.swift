import TimelineCore

/// A section of a view: a run of rows that share a year, a month or a decade.
public struct RowSection: Hashable, Sendable, Identifiable {
    /// The section's identity within its view: its year, month or decade (or the ongoing
    /// rows), not its display name.
    public var id: ID
    /// How many rows the section holds.
    public var count: Int

    /// The section's display name: `2019`, `2019-03`, `2010s`, or `ongoing` for the
    /// ongoing rows of a view that places them first or last.
    public var title: String { id.description }

    /// Creates a section.
    package init(id: ID, count: Int) {
        self.id = id
        self.count = count
    }

    /// Which rows a section holds: those of a year, a month, a decade, or the ongoing rows.
    ///
    /// Ordered as the sections of an ascending view that places ongoing rows last: by
    /// time, the ongoing section after every dated one. That is not the list order of every
    /// view (a descending view lists the latest first, and a view that places ongoing rows
    /// first lists their section first): find a section's place in a list with
    /// ``SectionList/index(id:)``, not with a binary search by `<`.
    public struct ID: Hashable, Comparable, Sendable, CustomStringConvertible {
        /// How the view is sectioned (``Sectioning/none`` for the ongoing section).
        let sectioning: Sectioning
        /// The year, the month counted from year 0, or the decade (``SectionKey/bucket(of:_:)``).
        let bucket: Int32

        init(sectioning: Sectioning, bucket: Int32) {
            self.sectioning = bucket == SectionKey.ongoingBucket ? .none : sectioning
            self.bucket = bucket
        }

        /// The section of a calendar year (UTC), such as 2019.
        package static func year(_ year: Int) -> ID { ID(sectioning: .year, bucket: Int32(year)) }

        /// The section of a month (1–12) of a year (UTC), such as 2019-03.
        package static func month(year: Int, month: Int) -> ID {
            precondition((1...12).contains(month), "month \(month) is not 1–12: give the month of the year")
            return ID(sectioning: .month, bucket: Int32(year * 12 + month - 1))
        }

        /// The section of the decade that starts in `year` (a multiple of ten), such as the 2010s.
        package static func decade(startingIn year: Int) -> ID {
            precondition(year % 10 == 0, "\(year) does not start a decade: give a multiple of ten, such as 2010")
            return ID(sectioning: .decade, bucket: Int32(year / 10))
        }

        /// The section of the ongoing rows in a view that places them first or last.
        package static let ongoing = ID(sectioning: .none, bucket: SectionKey.ongoingBucket)

        /// Whether this is the section of the ongoing rows.
        public var isOngoing: Bool { bucket == SectionKey.ongoingBucket }

        /// The section's display name: `2019`, `2019-03`, `2010s` or `ongoing`.
        public var description: String { SectionKey(group: 0, bucket: bucket).name(sectioning) }

        /// Whether `lhs` comes first: the earlier period, and any period before the ongoing section.
        public static func < (lhs: ID, rhs: ID) -> Bool {
            (lhs.bucket, lhs.sectioning.order) < (rhs.bucket, rhs.sectioning.order)
        }
    }
}

extension Sectioning {
    /// A rank, to order the ids of sections of different sectionings.
    fileprivate var order: Int {
        switch self {
        case .none: 0
        case .year: 1
        case .month: 2
        case .decade: 3
        }
    }
}

/// A section's place in the row order: its group and its bucket (a year, month or decade number).
struct SectionKey: Hashable, Comparable, Sendable {
    var group: UInt8
    var bucket: Int32

    static let ongoingBucket = Int32.max

    static func < (lhs: SectionKey, rhs: SectionKey) -> Bool {
        (lhs.group, lhs.bucket) < (rhs.group, rhs.bucket)
    }

    /// The bucket of an instant: a year, a month counted from year 0, or a decade.
    static func bucket(of instant: Int64, _ sectioning: Sectioning) -> Int32 {
        let date = Instant(microsecondsSinceEpoch: instant).utcDate
        switch sectioning {
        case .none: return 0
        case .year: return Int32(date.year)
        case .month: return Int32(date.year * 12 + date.month - 1)
        case .decade: return Int32(date.year / 10)
        }
    }

    func name(_ sectioning: Sectioning) -> String {
        if bucket == SectionKey.ongoingBucket { return "ongoing" }
        func pad(_ v: Int32, _ width: Int) -> String { DecimalDigits.padded(v, width: width) }
        switch sectioning {
        case .none: return ""
        case .year: return pad(bucket, 4)
        case .month: return pad(bucket / 12, 4) + "-" + pad(bucket % 12 + 1, 2)
        case .decade: return pad(bucket * 10, 4) + "s"
        }
    }
}

/// Row counts per section, kept incrementally; ongoing rows at "now" count in now's bucket.
struct SectionCounts: Sendable, Equatable {
    /// Counts of rows that are not marked (not sorting at now), ascending by key.
    private(set) var keys: [SectionKey] = []
    private(set) var counts: [Int] = []

    /// Where `key` is in `keys`, or would be inserted, and whether it is there.
    /// - Complexity: O(log *s*) in the number of sections.
    private func slot(of key: SectionKey) -> (index: Int, found: Bool) {
        let index = keys.partitioningIndex { $0 >= key }
        return (index, index < keys.count && keys[index] == key)
    }

    /// The row count of the section with `key`; 0 when there is none.
    /// - Complexity: O(log *s*) in the number of sections.
    func count(of key: SectionKey) -> Int {
        let (index, found) = slot(of: key)
        return found ? counts[index] : 0
    }

    /// - Complexity: O(log *s*) in the number of sections, O(*s*) when a section appears.
    mutating func add(_ key: SectionKey, _ delta: Int) {
        let (lo, found) = slot(of: key)
        if found {
            counts[lo] += delta
            if counts[lo] == 0 {
                keys.remove(at: lo)
                counts.remove(at: lo)
            }
        } else if delta != 0 {
            keys.insert(key, at: lo)
            counts.insert(delta, at: lo)
        }
    }

    /// The ascending sections with `marked` rows added to `nowKey`.
    /// - Complexity: O(log *s*) in the number of sections: the sections share these
    ///   counts' storage, with the rows at now added where they are read.
    func sections(marked: Int, nowKey: SectionKey) -> KeyedSections {
        guard marked > 0 else { return KeyedSections(keys: keys, counts: counts) }
        let (lo, found) = slot(of: nowKey)
        let isNew = !found
        return KeyedSections(keys: keys, counts: counts, now: .init(index: lo, key: nowKey, count: marked, isNew: isNew))
    }
}

/// Sections as keys and counts, ascending; named only when read.
///
/// The keys and counts are those of ``SectionCounts`` (shared, not copied), and the rows
/// at now are added where the sections are read, so that a batch copies no array for a
/// sectioned view.
struct KeyedSections: Sendable, Equatable {
    /// Where the rows at now go: into the section at `index`, or into a new section
    /// there (`isNew`) before the base section at `index`.
    struct Now: Sendable, Equatable {
        var index: Int
        var key: SectionKey
        var count: Int
        var isNew: Bool
    }

    private var baseKeys: [SectionKey]
    private var baseCounts: [Int]
    private var now: Now?

    init(keys: [SectionKey] = [], counts: [Int] = [], now: Now? = nil) {
        precondition(keys.count == counts.count, "a count for every section")
        baseKeys = keys
        baseCounts = counts
        self.now = now
    }

    /// The number of sections.
    var count: Int { baseKeys.count + (now?.isNew == true ? 1 : 0) }

    /// The key of the section at `index`, ascending.
    func key(at index: Int) -> SectionKey {
        guard let now else { return baseKeys[index] }
        if now.isNew {
            if index == now.index { return now.key }
            return baseKeys[index > now.index ? index - 1 : index]
        }
        return baseKeys[index]
    }

    /// The row count of the section at `index`, ascending.
    func count(at index: Int) -> Int {
        guard let now else { return baseCounts[index] }
        if now.isNew {
            if index == now.index { return now.count }
            return baseCounts[index > now.index ? index - 1 : index]
        }
        return baseCounts[index] + (index == now.index ? now.count : 0)
    }

    /// Every key, ascending.
    /// - Complexity: O(*s*).
    var keys: [SectionKey] { (0..<count).map(key(at:)) }

    /// Whether `other` has the same sections, whatever their counts.
    /// - Complexity: O(*s*), O(1) for sections that share their keys' storage.
    func hasSameKeys(as other: KeyedSections) -> Bool {
        guard count == other.count else { return false }
        if now?.isNew == other.now?.isNew, now?.index == other.now?.index, now?.key == other.now?.key,
           baseKeys == other.baseKeys {
            return true
        }
        return (0..<count).allSatisfy { key(at: $0) == other.key(at: $0) }
    }

    /// Whether the two hold the same sections with the same counts.
    /// - Complexity: O(*s*).
    static func == (a: KeyedSections, b: KeyedSections) -> Bool {
        guard a.hasSameKeys(as: b) else { return false }
        // As many rows at now, in the same place (the usual case): the base counts decide.
        // Otherwise a section's rows may be split differently between the two.
        if a.now == b.now, a.baseCounts == b.baseCounts { return true }
        return (0..<a.count).allSatisfy { a.count(at: $0) == b.count(at: $0) }
    }
}

/// The sections of a view in list order; each ``RowSection`` (and its name) is made on access.
public struct SectionList: RandomAccessCollection, Sendable, Equatable {
    let keyed: KeyedSections
    let sectioning: Sectioning
    let descending: Bool

    init(keyed: KeyedSections, sectioning: Sectioning, descending: Bool) {
        self.keyed = keyed
        self.sectioning = sectioning
        self.descending = descending
    }

    /// No sections: those of a view without sections, or before its store has any rows.
    /// - Complexity: O(1).
    public init() { self.init(keyed: KeyedSections(), sectioning: .none, descending: false) }

    /// The position of the first section: 0.
    public var startIndex: Int { 0 }
    /// The number of sections.
    public var endIndex: Int { keyed.count }

    /// The section at `position` in list order.
    /// - Complexity: O(1).
    public subscript(position: Int) -> RowSection {
        let index = descending ? keyed.count - 1 - position : position
        return RowSection(id: RowSection.ID(sectioning: sectioning, bucket: keyed.key(at: index).bucket),
                          count: keyed.count(at: index))
    }

    /// The index in list order of the section with `id`, or `nil` if the list has none:
    /// a lookup that holds in every view, whatever its order and its ongoing placement.
    /// - Complexity: O(log *s*) for *s* sections.
    public func index(id: RowSection.ID) -> Int? {
        let count = keyed.count, ongoing = SectionKey.ongoingBucket
        guard count > 0 else { return nil }
        // Ascending by key, an ongoing section is first (placed first: group 0 before the
        // dated rows' group 1) or last (placed last); the dated sections between share one
        // group, so they are ascending by bucket.
        var found: Int?
        if id.isOngoing {
            if keyed.key(at: 0).bucket == ongoing { found = 0 }
            else if keyed.key(at: count - 1).bucket == ongoing { found = count - 1 }
        } else if id.sectioning == sectioning {
            let low = keyed.key(at: 0).bucket == ongoing ? 1 : 0
            let high = low < count && keyed.key(at: count - 1).bucket == ongoing ? count - 1 : count
            let index = (low..<high).partitioningIndex { keyed.key(at: $0).bucket >= id.bucket }
            if index < high && keyed.key(at: index).bucket == id.bucket { found = index }
        }
        return found.map { descending ? count - 1 - $0 : $0 }
    }

    /// The index of the section that holds the row at `row` (a row index in list order).
    /// - Complexity: O(*s*).
    package func sectionIndex(ofRow row: Int) -> Int? {
        var start = 0
        for (index, section) in enumerated() {
            if row < start + section.count { return index }
            start += section.count
        }
        return nil
    }
}
