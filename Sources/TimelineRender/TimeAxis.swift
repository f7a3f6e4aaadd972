import TimelineCore
import TimelineProjections

/// A step of the time axis: a number of days, months or years, on calendar boundaries (UTC).
enum TickStep: Hashable, Sendable, Comparable {
    case days(Int)
    case months(Int)
    case years(Int)

    /// The steps the axis chooses from, shortest first.
    static let all: [TickStep] = [
        .days(1), .days(2), .days(7),
        .months(1), .months(2), .months(3), .months(6),
        .years(1), .years(2), .years(5), .years(10), .years(20), .years(50), .years(100), .years(200),
        .years(500), .years(1000),
    ]

    /// The step that a view's sections ask for.
    init?(_ sectioning: Sectioning) {
        switch sectioning {
        case .none: return nil
        case .month: self = .months(1)
        case .year: self = .years(1)
        case .decade: self = .years(10)
        }
    }

    /// The step's average length in microseconds, to compare and to space ticks.
    var approximateLength: Double {
        let day = 86_400_000_000.0
        switch self {
        case .days(let n): return Double(n) * day
        case .months(let n): return Double(n) * 30.436875 * day
        case .years(let n): return Double(n) * 365.2425 * day
        }
    }

    static func < (lhs: TickStep, rhs: TickStep) -> Bool { lhs.approximateLength < rhs.approximateLength }

    /// The boundaries of this step from the last one at or before `lo` to the first one at
    /// or after `hi`.
    func boundaries(from lo: Instant, to hi: Instant) -> [Instant] {
        var result: [Instant] = []
        var index = floorIndex(of: lo)
        while true {
            let instant = self.instant(at: index)
            result.append(instant)
            if instant >= hi { break }
            index += 1
        }
        return result
    }

    /// The index of the last boundary at or before `instant`: boundary `i` is `i` steps
    /// from the epoch of the step's unit (year 0, month 0 of year 0, or 1970-01-01 or the
    /// Monday after it).
    func floorIndex(of instant: Instant) -> Int {
        let date = instant.utcDate
        switch self {
        case .days(let n):
            let day = Int(floorDivide(instant.microsecondsSinceEpoch, 86_400_000_000))
            return floorDivide(day - Self.dayOffset(n), n)
        case .months(let n):
            return floorDivide(date.year * 12 + date.month - 1, n)
        case .years(let n):
            return floorDivide(date.year, n)
        }
    }

    /// Boundary number `index`.
    func instant(at index: Int) -> Instant {
        switch self {
        case .days(let n):
            return Instant(microsecondsSinceEpoch: Int64(index * n + Self.dayOffset(n)) * 86_400_000_000)
        case .months(let n):
            let month = index * n
            return Instant(utcYear: floorDivide(month, 12), month: month - floorDivide(month, 12) * 12 + 1)
        case .years(let n):
            return Instant(utcYear: index * n, month: 1)
        }
    }

    /// The tick's label: `1990`; `2019` at a January and `Mar` at another month; `2019`,
    /// `Mar` or `Mar 5` for days.
    func label(for instant: Instant) -> String {
        let date = instant.utcDate
        switch self {
        case .years: return String(date.year)
        case .months:
            return date.month == 1 ? String(date.year) : Self.monthNames[date.month - 1]
        case .days:
            if date.day == 1 { return date.month == 1 ? String(date.year) : Self.monthNames[date.month - 1] }
            return "\(Self.monthNames[date.month - 1]) \(date.day)"
        }
    }

    /// Weeks start on Mondays (1970-01-05 was one); other numbers of days count from 1970-01-01.
    static func dayOffset(_ days: Int) -> Int { days == 7 ? 4 : 0 }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

/// Division rounding towards minus infinity.
func floorDivide<T: BinaryInteger>(_ a: T, _ b: T) -> T {
    let quotient = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
}

/// Maps instants to x positions between two instants and two x positions.
struct TimeScale: Hashable, Sendable {
    var lo: Instant
    var hi: Instant
    var left: Double
    var right: Double

    /// The x position of `instant` (outside `left...right` for an instant outside the span).
    func x(_ instant: Instant) -> Double {
        let span = Double(hi.microsecondsSinceEpoch - lo.microsecondsSinceEpoch)
        guard span > 0 else { return left }
        return left + Double(instant.microsecondsSinceEpoch - lo.microsecondsSinceEpoch) / span * (right - left)
    }

    /// Pixels per step, on average.
    func pixels(per step: TickStep) -> Double {
        let span = Double(hi.microsecondsSinceEpoch - lo.microsecondsSinceEpoch)
        guard span > 0 else { return .infinity }
        return step.approximateLength / span * (right - left)
    }
}

/// A line of the axis, with its label when it is a major tick.
struct AxisTick: Hashable, Sendable {
    var x: Double
    var label: String?
}

/// The time axis: its span, its major (labelled) and minor ticks.
struct TimeAxis: Hashable, Sendable {
    var scale: TimeScale
    var major: TickStep
    var ticks: [AxisTick]
    var minorTicks: [Double]

    /// Labelled ticks at least this far apart.
    static let minimumLabelSpacing = 64.0
    /// Minor lines (between labelled ticks) at least this far apart.
    static let minimumMinorSpacing = 12.0

    /// The axis for the instants `first...last` between x positions `left` and `right`.
    ///
    /// An end not kept grows a little and then out to the major step's boundary, so that the
    /// axis starts and ends on a labelled tick. `unit` (a view's
    /// sections) puts a line at each of its boundaries, and labels them when they are far
    /// enough apart.
    init(first: Instant, last: Instant, keepFirst: Bool, keepLast: Bool, left: Double, right: Double, unit: TickStep?) {
        var lo = first, hi = last
        // A window under a microsecond (the axis's resolution) is drawn as one microsecond
        // around it: with no span, every item and "now" would sit at the left edge.
        if hi.microsecondsSinceEpoch <= lo.microsecondsSinceEpoch {
            lo.microsecondsSinceEpoch -= 1
            hi.microsecondsSinceEpoch = lo.microsecondsSinceEpoch + 2
        }
        if hi.microsecondsSinceEpoch - lo.microsecondsSinceEpoch < 86_400_000_000 {
            if !keepFirst { lo.microsecondsSinceEpoch -= keepLast ? 86_400_000_000 : 43_200_000_000 }
            if !keepLast { hi.microsecondsSinceEpoch += keepFirst ? 86_400_000_000 : 43_200_000_000 }
        }
        let pad = (hi.microsecondsSinceEpoch - lo.microsecondsSinceEpoch) / 40
        if !keepFirst { lo.microsecondsSinceEpoch -= pad }
        if !keepLast { hi.microsecondsSinceEpoch += pad }
        func chooseStep(lo: Instant, hi: Instant) -> TickStep {
            let scale = TimeScale(lo: lo, hi: hi, left: left, right: right)
            return TickStep.all.first { scale.pixels(per: $0) >= Self.minimumLabelSpacing } ?? .years(1000)
        }
        var major = chooseStep(lo: lo, hi: hi)
        if let unit, unit > major { major = unit }
        if !keepFirst || !keepLast {
            // Out to the step's boundaries; that lengthens the span, so a step may then be
            // too dense: snap once more with the step the longer span asks for.
            let (paddedLo, paddedHi) = (lo, hi)
            for _ in 0..<2 {
                let bounds = major.boundaries(from: paddedLo, to: paddedHi)
                if !keepFirst { lo = bounds.first ?? lo }
                if !keepLast { hi = bounds.last ?? hi }
                let refined = chooseStep(lo: lo, hi: hi)
                guard refined > major, unit.map({ refined > $0 }) ?? true else { break }
                major = refined
            }
        }
        let scale = TimeScale(lo: lo, hi: hi, left: left, right: right)
        self.scale = scale
        self.major = major
        // A boundary outside the years dates have (0001-9999) keeps its line, not a label
        // no date can have (year 0, -1000, 10000).
        ticks = major.boundaries(from: lo, to: hi)
            .filter { $0 >= lo && $0 <= hi }
            .map { AxisTick(x: scale.x($0), label: (1...9999).contains($0.utcDate.year) ? major.label(for: $0) : nil) }
        let minor: TickStep?
        if let unit, unit < major {
            minor = scale.pixels(per: unit) >= 3 ? unit : nil
        } else {
            minor = TickStep.all.first {
                $0 < major && major.isMultiple(of: $0) && scale.pixels(per: $0) >= Self.minimumMinorSpacing
            }
        }
        if let minor {
            let majorXs = Set(ticks.map(\.x))
            minorTicks = minor.boundaries(from: lo, to: hi)
                .filter { $0 >= lo && $0 <= hi }
                .map { scale.x($0) }
                .filter { !majorXs.contains($0) }
        } else {
            minorTicks = []
        }
    }
}

extension TickStep {
    /// Whether every boundary of `self` is one of `other`'s: years of years, months of
    /// months, days of days, and years of months that divide a year.
    func isMultiple(of other: TickStep) -> Bool {
        switch (self, other) {
        case (.years(let a), .years(let b)): a % b == 0
        case (.years, .months(let b)): 12 % b == 0
        case (.months(let a), .months(let b)): a % b == 0
        case (.days(let a), .days(let b)): a % b == 0
        default: false
        }
    }
}
