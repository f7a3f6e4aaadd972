import Foundation

/// How figures are printed: durations with a unit that fits, rates, bytes, counts.
enum Formatting {
    /// `850 ns`, `3.42 µs`, `41.7 µs`, `12.3 ms`, `1.52 s`.
    static func duration(nanoseconds value: Double) -> String {
        guard value.isFinite else { return "—" }
        switch value {
        case ..<1_000: return String(format: "%.0f ns", value)
        case ..<10_000: return String(format: "%.2f µs", value / 1_000)
        case ..<1_000_000: return String(format: "%.1f µs", value / 1_000)
        case ..<1_000_000_000: return String(format: "%.1f ms", value / 1_000_000)
        default: return String(format: "%.2f s", value / 1_000_000_000)
        }
    }

    /// `1.23 M rec/s`, `412 k rec/s`.
    static func rate(perSecond value: Double) -> String {
        guard value.isFinite else { return "—" }
        if value >= 1_000_000 { return String(format: "%.2f M rec/s", value / 1_000_000) }
        if value >= 1_000 { return String(format: "%.0f k rec/s", value / 1_000) }
        return String(format: "%.0f rec/s", value)
    }

    /// `231 B/event`.
    static func bytesPerEvent(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        return String(format: "%.0f B/event", value)
    }

    /// `1,234×`, `5.2×`, `0.31×`.
    static func factor(_ value: Double) -> String {
        guard value.isFinite, value > 0 else { return "—" }
        if value >= 100 { return count(Int(value.rounded())) + "×" }
        if value >= 10 { return String(format: "%.0f×", value) }
        return String(format: "%.1f×", value)
    }

    /// `1,000,000`.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// `10k`, `100k`, `1M`, `20,000`.
    static func size(_ value: Int) -> String {
        if value >= 1_000_000, value % 1_000_000 == 0 { return "\(value / 1_000_000)M" }
        if value >= 1_000, value % 1_000 == 0 { return "\(value / 1_000)k" }
        return count(value)
    }

    /// `596 MB`: bytes in (decimal) megabytes.
    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.0f MB", Double(bytes) / 1e6)
    }

    /// `2.97`: two decimals.
    static func decimal(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        return String(format: "%.2f", value)
    }
}
