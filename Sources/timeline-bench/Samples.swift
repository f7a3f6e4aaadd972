/// Repeated measurements of one quantity (durations in nanoseconds, or any other unit),
/// summarised by their median and spread.
struct Samples {
    private(set) var values: [Double] = []

    init() {}

    init(_ values: [Double]) { self.values = values }

    var count: Int { values.count }
    var isEmpty: Bool { values.isEmpty }

    mutating func append(_ value: Double) { values.append(value) }

    mutating func append(nanoseconds: UInt64) { values.append(Double(nanoseconds)) }

    private var sorted: [Double] { values.sorted() }

    /// The middle value (the mean of the two middle values for an even count).
    var median: Double { percentile(50) }

    var minimum: Double { values.min() ?? .nan }
    var maximum: Double { values.max() ?? .nan }

    /// The value below which `p` percent of the samples fall (nearest rank, interpolated).
    func percentile(_ p: Double) -> Double {
        let s = sorted
        guard !s.isEmpty else { return .nan }
        let rank = p / 100 * Double(s.count - 1)
        let low = Int(rank.rounded(.down)), high = Int(rank.rounded(.up))
        return s[low] + (s[high] - s[low]) * (rank - Double(low))
    }

    /// Whether there are enough samples for a 99th percentile to mean something.
    var supportsP99: Bool { values.count >= 100 }
}
