import TimelineCore

/// A section of a view: a run of rows that share a year, a month or a decade.
public struct Section: Hashable, Sendable, Identifiable {
    /// The section's name and identity: `2019`, `2019-03`, `2010s`, or `ongoing` for the
    /// ongoing rows of a view that places them first or last.
    public var id: String
    /// How many rows the section holds.
    public var count: Int

    /// Creates a section.
    public init(id: String, count: Int) {
        self.id = id
        self.count = count
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
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
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

    /// - Complexity: O(log *s*) in the number of sections, O(*s*) when a section appears.
    mutating func add(_ key: SectionKey, _ delta: Int) {
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        if lo < keys.count, keys[lo] == key {
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
    func sections(marked: Int, nowKey: SectionKey, sectioning: Sectioning) -> [(key: SectionKey, count: Int)] {
        var result: [(key: SectionKey, count: Int)] = []
        result.reserveCapacity(keys.count + 1)
        var added = marked == 0
        for (key, count) in zip(keys, counts) {
            if !added, nowKey <= key {
                if nowKey == key {
                    result.append((key, count + marked))
                    added = true
                    continue
                }
                result.append((nowKey, marked))
                added = true
            }
            result.append((key, count))
        }
        if !added { result.append((nowKey, marked)) }
        return result
    }
}
