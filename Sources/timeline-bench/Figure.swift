/// A measured quantity ready for the table: its samples and how to print them.
struct Figure {
    enum Kind {
        /// Nanoseconds; lower is better.
        case duration
        /// Records per second; higher is better.
        case rate
        /// Bytes per event; lower is better.
        case bytesPerEvent
    }

    let kind: Kind
    let samples: Samples

    init(_ kind: Kind, _ samples: Samples) {
        self.kind = kind
        self.samples = samples
    }

    var median: Double { samples.median }

    func format(_ value: Double) -> String {
        switch kind {
        case .duration: Formatting.duration(nanoseconds: value)
        case .rate: Formatting.rate(perSecond: value)
        case .bytesPerEvent: Formatting.bytesPerEvent(value)
        }
    }

    var medianText: String { format(median) }

    /// The best sample: the shortest duration, the highest rate, the fewest bytes. A
    /// neighbour on a shared machine can only make a run worse, so a target on time is
    /// judged on the best of its repeated runs.
    var best: Double {
        switch kind {
        case .duration, .bytesPerEvent: samples.minimum
        case .rate: samples.maximum
        }
    }

    /// The p99 with 100 samples or more, otherwise min–max, or "1 run".
    var spreadText: String {
        if samples.supportsP99 { return "p99 " + format(samples.percentile(99)) }
        if samples.count >= 2 { return format(samples.minimum) + " – " + format(samples.maximum) }
        return "1 run"
    }

    /// How many times better this figure is than `baseline` (above 1: better).
    func advantage(over baseline: Figure) -> Double {
        switch kind {
        case .duration, .bytesPerEvent: baseline.median / median
        case .rate: median / baseline.median
        }
    }

    /// `1,234× faster`, `3.2× slower`, `2.0× smaller`.
    func comparison(with baseline: Figure) -> String {
        let factor = advantage(over: baseline)
        guard factor.isFinite, factor > 0 else { return "—" }
        let (better, worse) = kind == .bytesPerEvent ? ("smaller", "larger") : ("faster", "slower")
        return factor >= 1 ? Formatting.factor(factor) + " " + better : Formatting.factor(1 / factor) + " " + worse
    }
}
