import TimelineTestSupport
import TimelineCore

/// The dates the workload uses: every year, month and day from 1900 to 2026 and a few
/// thousand timestamps with offsets, parsed once so that generating a million events costs
/// no date parsing.
///
/// A date is drawn with a realistic mix of precisions (mostly days, then months, years and
/// a few timestamps); `date(notBefore:)` draws one that can end a range.
struct DatePool {
    private let years: [DateValue]
    private let months: [DateValue]
    private let days: [DateValue]
    private let timestamps: [DateValue]
    /// Every date, ordered by instant, for drawing a range's end.
    private let byInstant: [DateValue]

    init(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        func pad(_ value: Int, _ width: Int) -> String { DecimalDigits.padded(value, width: width) }
        func parse(_ text: String) -> DateValue {
            do { return try DateValue(parsing: text) } catch { fatalError("workload date \(text): \(error)") }
        }
        let yearRange = 1900...2026
        var years: [DateValue] = [], months: [DateValue] = [], days: [DateValue] = [], timestamps: [DateValue] = []
        for year in yearRange {
            years.append(parse(pad(year, 4)))
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            for month in 1...12 {
                let monthText = pad(year, 4) + "-" + pad(month, 2)
                months.append(parse(monthText))
                for day in 1...lengths[month - 1] { days.append(parse(monthText + "-" + pad(day, 2))) }
            }
        }
        let offsets = ["Z", "Z", "+01:00", "+02:00", "-05:00", "+05:30", "-08:00"]
        for _ in 0..<4000 {
            let day = days[rng.below(days.count)].text
            var text = day + "T" + pad(rng.below(24), 2) + ":" + pad(rng.below(60), 2)
            if rng.chance(50) {
                text += ":" + pad(rng.below(60), 2)
                if rng.chance(20) { text += "." + pad(rng.below(1000), 3) }
            }
            text += offsets[rng.below(offsets.count)]
            timestamps.append(parse(text))
        }
        self.years = years
        self.months = months
        self.days = days
        self.timestamps = timestamps
        self.byInstant = (years + months + days + timestamps).sorted { $0.instant < $1.instant }
    }

    /// A date: 60 % days, 25 % months, 10 % years, 5 % timestamps.
    func date(using rng: inout SplitMix64) -> DateValue {
        switch rng.below(100) {
        case 0..<60: days[rng.below(days.count)]
        case 60..<85: months[rng.below(months.count)]
        case 85..<95: years[rng.below(years.count)]
        default: timestamps[rng.below(timestamps.count)]
        }
    }

    /// A date whose instant is not before `start`'s: a valid end for a range from `start`.
    func date(notBefore start: DateValue, using rng: inout SplitMix64) -> DateValue {
        var low = 0, high = byInstant.count
        while low < high {
            let mid = (low + high) / 2
            if byInstant[mid].instant < start.instant { low = mid + 1 } else { high = mid }
        }
        guard low < byInstant.count else { return start }
        // Mostly a nearby end (ranges of months or years), sometimes any later date.
        let span = rng.chance(80) ? min(byInstant.count - low, 4000) : byInstant.count - low
        return byInstant[low + rng.below(span)]
    }
}
