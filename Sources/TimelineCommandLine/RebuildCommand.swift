import Foundation
import TimelineCore
import TimelineKit
import TimelineProjections

/// `timeline rebuild`: the projections and the checkpoint, from the whole log.
enum RebuildCommand: ToolCommand {
    static let spec = CommandSpec(
        name: "rebuild",
        summary: "rebuild the projections from the whole log and write the checkpoint",
        options: [log, OptionSpec(name: "--now", value: "DATE", help: "the moment taken as now (default: the system clock)")],
        details: """
            Reads the whole log once, ignoring any checkpoint, checks every record, builds \
            the date-row list of everything, of each timeline, and the timeline summaries \
            from scratch, and writes the checkpoint that the other commands open from \
            (PATH.checkpoint, with the log's permissions; for a PostgreSQL log, a file in \
            the user's cache directory). Holds the log's writer lock while it reads. A \
            record that is not valid, or that the domain rules refuse, fails with status 1 \
            naming its line, and no checkpoint is written.
            Progress goes to standard error, measured in bytes of the log read: on a \
            terminal, one line redrawn in place at most ten times a second (a bar, the \
            percent, records per second and the time left), cleared at the end; otherwise \
            a plain line at each tenth of the log. An atomic batch (an import's) is read \
            whole, so progress steps over it at once. Both end with a line of the records, \
            the time and the records per second.
            """,
        examples: ["timeline rebuild --log life.jsonl"])

    static func run(_ arguments: ParsedArguments, _ runner: Runner) async throws -> String {
        try await runner.rebuild(arguments)
    }
}

extension Runner {
    // MARK: rebuild

    /// `rebuild`: reads the whole log once (never the checkpoint), checks every record,
    /// builds the projections and writes the checkpoint that store commands open from,
    /// showing its progress on standard error.
    func rebuild(_ arguments: ParsedArguments) async throws -> String {
        let path = try logPath(arguments)
        let now = try now(arguments)
        let clock = ContextClock(read: { now })
        var meter = ProgressMeter(context: context, started: .now)
        let store: TimelineStore
        if DatabaseLogs.isURL(path) {
            let checkpoint: String
            do { checkpoint = try DatabaseLogs.location(path).checkpointPath(environment: context.environment) } catch {
                // rebuild is for writing the checkpoint: nowhere to write it is the error.
                throw CommandFailure("\(path): nowhere to keep the checkpoint: \(error)")
            }
            let log = try DatabaseLogs.open(path, ifMissing: missingLogMessage(path))
            let existed = FileManager.default.fileExists(atPath: checkpoint)
            do {
                store = try await TimelineStore.rebuild(log: log, checkpointPath: checkpoint, clock: clock,
                                                        views: [ViewDefinition()]) { meter.update($0) }
            } catch {
                meter.abandon()
                log.close()
                throw CommandFailure(checkpointNotSaved(error, path: path, checkpoint: checkpoint, existed: existed)
                    ?? message(for: error, path: path, command: arguments.command.name))
            }
        } else {
            try requireLog(path)
            let checkpoint = TimelineStore.checkpointPath(forLog: path)
            let existed = FileManager.default.fileExists(atPath: checkpoint)
            do {
                store = try await TimelineStore.rebuild(path: path, clock: clock, views: [ViewDefinition()]) {
                    meter.update($0)
                }
            } catch {
                meter.abandon()
                throw CommandFailure(checkpointNotSaved(error, path: path, checkpoint: checkpoint, existed: existed)
                    ?? message(for: error, path: path, command: arguments.command.name))
            }
            if let torn = store.openingReport.tornTail {
                context.warn(tornTailWarning(torn, path: path, outcome: store.openingReport.tornTailOutcome))
            }
        }
        let records = store.openingReport.replayedRecords
        meter.finish(records: records)
        let rows = await store.snapshot(ViewDefinition()).rows.count
        let timelines = await store.timelineSummaries.count
        await store.release()
        return "rebuilt \(path): \(count(records, "record")), \(count(rows, "row")), "
            + "\(count(timelines, "timeline")), \(count(1, "view")); checkpoint written\n"
    }

    /// What to say when the rebuild read and checked the whole log but could not save the
    /// checkpoint (a full disk); `nil` for any other failure.
    private func checkpointNotSaved(_ error: StoreError, path: String, checkpoint: String, existed: Bool) -> String? {
        guard case .log(let failure) = error, case .io(checkpoint, _, let code) = failure else { return nil }
        let before = existed && FileManager.default.fileExists(atPath: checkpoint)
            ? "the one saved before is kept (store commands read the log after it)"
            : "there is none (store commands read the whole log)"
        let remedy = code == ENOSPC || code == EDQUOT ? "Make room" : "Mend that"
        return "\(path): every record checked, but the checkpoint was not saved: \(failure); \(before). "
            + "\(remedy) and run `timeline rebuild` again"
    }
}

/// A long read's progress on standard error: on a terminal, one line redrawn in place at
/// most ten times a second; otherwise a plain line at each tenth of the log (or each
/// ``recordStep`` records when the log's size is unknown). Both end with the same line.
struct ProgressMeter {
    let context: ToolContext
    let started: ContinuousClock.Instant
    private var lastDrawn: ContinuousClock.Instant?
    private var tenthsShown = 0
    private var recordStepsShown = 0
    private var drawn = false

    /// Records between two plain lines when the log's size is unknown.
    static let recordStep = 100_000
    /// The shortest time between two redraws of the terminal line.
    static let redrawInterval = Duration.milliseconds(100)

    init(context: ToolContext, started: ContinuousClock.Instant) {
        self.context = context
        self.started = started
    }

    mutating func update(_ progress: RebuildProgress) {
        let instant = ContinuousClock.now
        let fraction = Self.fraction(progress)
        if context.errorsIsTerminal {
            if let lastDrawn, instant - lastDrawn < Self.redrawInterval { return }
            lastDrawn = instant
            drawn = true
            try? context.errors.write("\r\u{1B}[K" + Self.terminalLine(
                fraction: fraction, records: progress.records, seconds: Self.seconds(instant - started)))
            return
        }
        if let fraction {
            let tenths = Int(fraction * 10)
            // The whole log read: the final line says so, with the time it took.
            guard tenths > tenthsShown, fraction < 1 else { return }
            tenthsShown = tenths
        } else {
            let steps = progress.records / Self.recordStep
            guard steps > recordStepsShown else { return }
            recordStepsShown = steps
        }
        context.diagnose(Self.plainLine(fraction: fraction, records: progress.records,
                                        seconds: Self.seconds(instant - started)))
    }

    /// Clears the terminal line and writes the final line.
    func finish(records: Int) {
        abandon()
        context.diagnose(Self.finalLine(records: records, seconds: Self.seconds(ContinuousClock.now - started)))
    }

    /// Clears the terminal line, for an error to follow.
    func abandon() {
        if drawn { try? context.errors.write("\r\u{1B}[K") }
    }

    static func fraction(_ progress: RebuildProgress) -> Double? {
        guard let total = progress.total else { return nil }
        guard total > 0 else { return 1 }
        return min(1, max(0, Double(progress.completed) / Double(total)))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    // MARK: The lines (pure)

    /// The terminal line: `[=========>          ]  45%  612,000 records/s  0:03 left`; without
    /// a fraction, the records read and the rate.
    static func terminalLine(fraction: Double?, records: Int, seconds: Double, barWidth: Int = 30) -> String {
        let rate = rateText(records: records, seconds: seconds)
        guard let fraction else { return "rebuilding: \(grouped(records)) records  \(rate)" }
        let filled = Int((fraction * Double(barWidth)).rounded(.down))
        var bar = String(repeating: "=", count: filled)
        if filled < barWidth { bar += ">" + String(repeating: " ", count: barWidth - filled - 1) }
        return "[\(bar)] \(percent(fraction))  \(rate)  \(timeLeft(fraction: fraction, seconds: seconds))"
    }

    /// A plain line: `rebuilding: 40%, 400,000 records, 612,000 records/s, 0:03 left`.
    static func plainLine(fraction: Double?, records: Int, seconds: Double) -> String {
        var parts = ["\(grouped(records)) records", rateText(records: records, seconds: seconds)]
        if let fraction {
            parts.insert(percent(fraction).trimmingPrefix(while: { $0 == " " }).description, at: 0)
            parts.append(timeLeft(fraction: fraction, seconds: seconds))
        }
        return "rebuilding: " + parts.joined(separator: ", ")
    }

    /// The last line: `rebuilt: 100%, 1,000,000 records in 1.52 s, 657,000 records/s`.
    static func finalLine(records: Int, seconds: Double) -> String {
        "rebuilt: 100%, \(grouped(records)) records in \(formatted(seconds, decimals: 3)) s, "
            + rateText(records: records, seconds: seconds)
    }

    /// ` 45%`: a whole percent, right-aligned in four cells; 100% only at the end.
    static func percent(_ fraction: Double) -> String {
        let value = fraction >= 1 ? 100 : min(99, Int(fraction * 100))
        let text = "\(value)%"
        return String(repeating: " ", count: max(0, 4 - text.count)) + text
    }

    /// `612,000 records/s`, to three significant figures; `- records/s` before any time has passed.
    static func rateText(records: Int, seconds: Double) -> String {
        guard seconds > 0, records > 0 else { return "- records/s" }
        let rate = Double(records) / seconds
        var magnitude = 1.0
        while rate / magnitude >= 1000 { magnitude *= 10 }
        return "\(grouped(Int((rate / magnitude).rounded()) * Int(magnitude))) records/s"
    }

    /// `0:03 left`, `1:02:03 left`: the time the rest takes at the pace so far; `? left`
    /// before anything is read.
    static func timeLeft(fraction: Double, seconds: Double) -> String {
        guard fraction > 0, seconds >= 0 else { return "? left" }
        let left = Int((seconds * (1 - fraction) / fraction).rounded(.up))
        let (hours, minutes, secs) = (left / 3600, left / 60 % 60, left % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        let clock = hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
        return clock + " left"
    }

    /// `1,234,567`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return (number < 0 ? "-" : "") + text
    }

    /// `value` with `decimals` digits after the point.
    static func formatted(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let whole = String(scaled / Int(scale))
        let fraction = String(scaled % Int(scale))
        guard decimals > 0 else { return whole }
        return whole + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}
