import Dispatch
import Foundation
import SystemShim
import TimelineKit

/// Measurement 6: processes on one log. Writers are this program run again
/// (`--writer-child`); the follower is a `TimelineStore` in this process that subscribes
/// to a view, so it learns of their appends from the system's file notifications.
///
/// - a writer's `send` returning → the change set arriving here, beside a follower that
///   re-reads the file every 10 ms (both on the monotonic clock, which processes share);
/// - a durable `send` in the writer while this process follows, beside nobody following;
/// - the commands per second of two writer processes at once, beside one alone.
struct ProcessBenchmark {
    struct Result {
        let latency: Figure
        let pollingLatency: Figure
        /// From the start of the send instead of its return: the write, the fsync and the way over.
        let fromStart: Figure
        let pollingFromStart: Figure
        /// Change sets that arrived before the writer's send had returned (counted as 0).
        let early: Int
        let pollingEarly: Int
        let followedSend: Figure
        let unfollowedSend: Figure
        let twoWriters: Figure
        let oneWriter: Figure
    }

    let directory: TemporaryDirectory
    /// Appends timed one by one, per run.
    let appends: Int
    /// Commands each writer sends back to back in the throughput runs.
    let burst: Int
    /// Throughput runs of one writer and of two.
    let rounds: Int
    let log: @Sendable (String) -> Void

    /// The pause between a paced writer's sends: long enough that each change set
    /// arrives alone, not merged with the next.
    static let pause = 3_000

    func run() async throws -> Result {
        let path = directory.file("shared.jsonl")
        let store = try TimelineStore(path: path)
        try await store.send(.createTimeline(TimelineID("t"), name: "Shared"))

        // Sends with nobody following, half before the followed ones and half after, so
        // that a slow spell of the disk is less likely to hit one side alone.
        log("processes: durable sends with nobody following")
        var alone = try await Self.writers(path, ["c"], count: appends / 2, pause: Self.pause)

        log("processes: change sets in another process")
        let arrivals = Arrivals()
        let stream = await store.changes(ViewDefinition())
        let follower = Task {
            for await change in stream where !change.isReset && change.to > change.from {
                let now = MonotonicClock.now()
                // Sends that came close together may arrive as one change set.
                for position in (change.from + 1)...change.to { arrivals.note(position, at: now) }
            }
        }
        let followed = try await Self.writers(path, ["a"], count: appends, pause: Self.pause)
        // The last change sets are on their way: wait for them, a bounded while.
        let deadline = MonotonicClock.now() + 5_000_000_000
        while arrivals.count < followed[0].sends.count, MonotonicClock.now() < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        follower.cancel()
        let (latency, fromStart, early) = Self.latencies(followed[0].sends, arrivals)
        try await store.close()
        log("processes: durable sends with nobody following, again")
        alone += try await Self.writers(path, ["c2-"], count: appends - appends / 2, pause: Self.pause)

        log("processes: a follower that re-reads the file every 10 ms")
        let poller = Poller(path: path)
        poller.start()
        let polled = try await Self.writers(path, ["b"], count: appends, pause: Self.pause)
        try await Task.sleep(for: .milliseconds(30))
        poller.stop()
        let (polling, pollingFromStart, pollingEarly) = Self.latencies(polled[0].sends, poller.arrivals)

        log("processes: one writer, then two at once")
        var one = Samples(), two = Samples()
        for round in 0..<rounds {
            let single = try await Self.writers(path, ["d\(round)"], count: burst, pause: 0)
            one.append(Self.rate(single))
            let pair = try await Self.writers(path, ["e\(round)", "f\(round)"], count: burst, pause: 0)
            two.append(Self.rate(pair))
        }
        return Result(latency: Figure(.duration, latency), pollingLatency: Figure(.duration, polling),
                      fromStart: Figure(.duration, fromStart), pollingFromStart: Figure(.duration, pollingFromStart),
                      early: early, pollingEarly: pollingEarly,
                      followedSend: Figure(.duration, Samples(followed[0].sends.map { Double($0.took) })),
                      unfollowedSend: Figure(.duration, Samples(alone.flatMap(\.sends).map { Double($0.took) })),
                      twoWriters: Figure(.rate, two), oneWriter: Figure(.rate, one))
    }

    /// The time from each send's return, and from its start, to its arrival; and how many
    /// arrived before the send returned (the follower reads at the writer's unlock, just
    /// before its call returns), counted as 0.
    static func latencies(_ sends: [WriterReport.Send], _ arrivals: Arrivals) -> (Samples, Samples, Int) {
        var fromReturn = Samples(), fromStart = Samples(), early = 0
        for send in sends {
            guard let arrived = arrivals.time(of: send.position) else { continue }
            if arrived < send.returned { early += 1 }
            fromReturn.append(nanoseconds: arrived > send.returned ? arrived - send.returned : 0)
            let started = send.returned - send.took
            fromStart.append(nanoseconds: arrived > started ? arrived - started : 0)
        }
        return (fromReturn, fromStart, early)
    }

    /// Commands per second of writers that ran at once, from the first start to the last end.
    static func rate(_ reports: [WriterReport]) -> Double {
        let start = reports.map(\.start).min() ?? 0, end = reports.map(\.end).max() ?? 0
        let sends = reports.reduce(0) { $0 + $1.sends.count }
        return end > start ? Double(sends) / (Double(end - start) / 1e9) : 0
    }

    /// Runs one writer child per prefix at once and returns their reports.
    static func writers(_ path: String, _ prefixes: [String], count: Int, pause: Int) async throws -> [WriterReport] {
        let running = try prefixes.map { try ChildProcess.start(["--writer-child", path, $0, String(count), String(pause)]) }
        var reports: [WriterReport] = []
        for child in running {
            // Waited for on a thread of its own: the follower in this process runs meanwhile.
            let text = try await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: Swift.Result { try ChildProcess.finish(child, for: "a writer") }) }.start()
            }.get()
            guard let report = WriterReport(text) else { throw BenchFailure("a writer process printed no report: \(text)") }
            reports.append(report)
        }
        return reports
    }

    /// The writer child: sends `count` commands (`pause` µs apart) to the store on `path`;
    /// prints per send its position, when it returned and how long it took, then the
    /// first start and the last end.
    static func child(path: String, prefix: String, count: Int, pause: Int) async throws {
        let store = try TimelineStore(path: path)
        var lines = ""
        let date = try DateValue(parsing: "2001-02-03")
        let start = MonotonicClock.now()
        for index in 0..<count {
            let command = Command.addEvent(EventID("\(prefix)\(index)"), timeline: TimelineID("t"), title: "Event \(index)",
                                           dates: .single(date))
            let before = MonotonicClock.now()
            let records = try await store.send(command)
            let returned = MonotonicClock.now()
            lines += "p=\(records.last?.position ?? 0) at=\(returned) took=\(returned - before)\n"
            if pause > 0 { usleep(UInt32(pause)) }
        }
        let end = MonotonicClock.now()
        try await store.close()
        print(lines + "start=\(start) end=\(end)")
    }
}

/// What a writer child printed.
struct WriterReport {
    struct Send {
        var position: Int64
        var returned: UInt64
        var took: UInt64
    }

    var sends: [Send] = []
    var start: UInt64 = 0
    var end: UInt64 = 0

    init?(_ text: String) {
        for line in text.split(separator: "\n") {
            let fields = ChildProcess.fields(of: line)
            if let position = fields["p"], let at = fields["at"], let took = fields["took"] {
                sends.append(Send(position: Int64(position), returned: UInt64(at), took: UInt64(took)))
            } else if let start = fields["start"], let end = fields["end"] {
                self.start = UInt64(start)
                self.end = UInt64(end)
            }
        }
        guard end > 0 else { return nil }
    }
}

/// When each position arrived, noted from any thread.
final class Arrivals: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [Int64: UInt64] = [:]

    func note(_ position: Int64, at time: UInt64) {
        lock.withLock { if times[position] == nil { times[position] = time } }
    }

    func time(of position: Int64) -> UInt64? { lock.withLock { times[position] } }

    var count: Int { lock.withLock { times.count } }
}

/// The baseline follower: every 10 ms, takes the file's shared lock and reads what was
/// added to it, noting when each new line was first seen.
final class Poller: @unchecked Sendable {
    let path: String
    let arrivals = Arrivals()
    private let lock = NSLock()
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)

    init(path: String) { self.path = path }

    func start() {
        Thread { [self] in
            var offset = 0, lines: Int64 = 0
            var first = true
            while !lock.withLock({ stopped }) {
                if let handle = FileHandle(forReadingAtPath: path) {
                    // Only what is committed, as a follower must: a writer holds the
                    // exclusive lock from its write to its fsync.
                    _ = flock(handle.fileDescriptor, LOCK_SH)
                    try? handle.seek(toOffset: UInt64(offset))
                    let data = (try? handle.readToEnd()) ?? Data()
                    try? handle.close()
                    let now = MonotonicClock.now()
                    var consumed = 0
                    for (index, byte) in data.enumerated() where byte == 0x0A {
                        lines += 1
                        consumed = index + 1
                        // Lines already there when polling began are not arrivals.
                        if !first { arrivals.note(lines, at: now) }
                    }
                    offset += consumed
                    first = false
                }
                usleep(10_000)
            }
            finished.signal()
        }.start()
    }

    func stop() {
        lock.withLock { stopped = true }
        finished.wait()
    }
}
