import TimelineTestSupport
import Foundation
import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineKit

/// The `timeline-stress` helper that `swift test` builds next to the tests.
let stressToolURL: URL? = builtExecutable(
    named: "timeline-stress",
    packageRoot: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent())

struct StressToolNotFound: Error, CustomStringConvertible {
    var description: String { "the timeline-stress executable was not found next to the tests or under .build" }
}

/// Runs `body` on a thread of its own, so that its timing does not depend on how busy the
/// test's cooperative threads are (the whole suite shares two cores).
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// A running `timeline-stress` whose standard output goes to a file, with this process's
/// environment.
struct StressProcess {
    let process: SpawnedProcess

    init(log: String, seed: UInt64, checkpointInterval: Int, scratch: String) throws {
        guard let stressToolURL else { throw StressToolNotFound() }
        process = try SpawnedProcess(stressToolURL, [log, String(seed), String(checkpointInterval)],
                                   outputPath: scratch + "/stress-\(seed).out",
                                   errorPath: scratch + "/stress-\(seed).err")
    }

    /// The positions printed so far, one per complete line.
    var acknowledged: [Int64] { process.outputLines.compactMap { Int64($0) } }

    var errors: String { process.errors }

    /// Whether the helper was ended by SIGKILL (rather than stopping by itself).
    var wasKilled: Bool { process.terminatingSignal == SIGKILL }

    /// Waits (blocking) until the helper has acknowledged a first send or has stopped; false
    /// if it acknowledged nothing within `timeout` seconds.
    func waitForFirstPosition(timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while acknowledged.isEmpty, process.isRunning, Date() < deadline { usleep(500) }
        return !acknowledged.isEmpty
    }

    /// Kills the helper with SIGKILL, unless it has stopped already, and reaps it.
    func kill() { process.killNow() }
}

@Suite("Crash test: a writer killed at random moments")
struct CrashTests {
    static let views = [
        ViewDefinition(),
        ViewDefinition(order: .descending, sections: .year),
        ViewDefinition(placement: .last),
    ]

    /// How many times to kill the helper: 50, or `TIMELINE_STRESS_KILLS`.
    static var kills: Int {
        ProcessInfo.processInfo.environment["TIMELINE_STRESS_KILLS"].flatMap(Int.init) ?? 50
    }

    @Test func everyAcknowledgedRecordSurvivesAndNothingHalfWrittenIsAccepted() async throws {
        let directory = TemporaryDirectory()
        let log = directory.path + "/stress.jsonl"
        let checkpoint = TimelineStore.checkpointPath(forLog: log)
        var random = SplitMix64(seed: 0x5EED_C0FF_EE)
        var killed = 0, tornTails = 0, fromCheckpoint = 0
        var lastAcknowledged: Int64 = 0
        for round in 0..<Self.kills {
            let seed = UInt64(1000 + round)
            let helper = try StressProcess(log: log, seed: seed, checkpointInterval: 7 + random.below(40),
                                           scratch: directory.path)
            let delay = UInt32(5 + random.below(56))
            let started = await onOwnThread {
                // Let it run 5–60 ms past its first acknowledged send, then kill it.
                let started = helper.waitForFirstPosition()
                if started { usleep(delay * 1000) }
                helper.kill()
                return started
            }
            try #require(started, "round \(round): the helper acknowledged nothing: \(helper.errors)")
            try #require(helper.wasKilled,
                         "round \(round): the helper stopped by itself: \(helper.errors)")
            killed += 1
            let acknowledged = helper.acknowledged
            #expect(acknowledged == acknowledged.sorted(), "round \(round): positions out of order")
            let last = try #require(acknowledged.last)
            #expect(last > lastAcknowledged, "round \(round): nothing new acknowledged")
            lastAcknowledged = last

            // The log opens (a torn tail cut and reported is fine) and holds every acknowledged record.
            let reopened = try FileEventLog(path: log)
            if reopened.tornTail != nil { tornTails += 1 }
            #expect(reopened.position >= last, "round \(round): log at \(reopened.position), acknowledged \(last)")
            reopened.close()
            // Every record decodes and the whole log keeps the domain rules.
            let contents = try FileEventLog.read(path: log)
            #expect(contents.tornTail == nil, "round \(round): a torn tail survived reopening")
            #expect(Int64(contents.records.count) >= last)
            #expect(contents.records.enumerated().allSatisfy { $0.element.position == Int64($0.offset + 1) })
            #expect(throws: Never.self, "round \(round)") { _ = try LogValidator.validate(contents) }

            // A store opened from the checkpoint shows what a rebuild from the log shows.
            if FileManager.default.fileExists(atPath: checkpoint) {
                let store = try TimelineStore(path: log, clock: ManualClock(fixedNow), views: Self.views)
                #expect(store.openingReport.checkpointProblem == nil, "round \(round)")
                if store.openingReport.checkpointPosition != nil { fromCheckpoint += 1 }
                let rebuilt = TimelineProjection(records: contents.records, views: Self.views, now: fixedNow)
                for view in Self.views {
                    let rows = Array(await store.rows(view))
                    #expect(rows == Array(rebuilt.rows(view) ?? RowList()), "round \(round): \(view)")
                }
                #expect(await store.position == Int64(contents.records.count))
                (store.log as? FileEventLog)?.close()  // no checkpoint of its own: the helper's stay
            }
        }
        #expect(killed == Self.kills)
        #expect(fromCheckpoint > 0, "no round opened from a checkpoint")
        // A kill during a checkpoint write leaves its temporary file behind; the next store
        // on the log removes it, so at most the last round's can be left.
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?
            .filter { $0.contains(".checkpoint.tmp-") }.count ?? 0
        print("crash test: \(killed) kills survived, \(lastAcknowledged) records acknowledged, "
              + "\(tornTails) torn tails cut, \(fromCheckpoint) stores opened from a checkpoint, "
              + "\(leftovers) temporary checkpoint files left")
        #expect(leftovers <= 1)
    }
}
