#if PostgreSQL
import Dispatch
import EventLogContract
import Foundation
import Synchronization
import Testing
import TimelineCore
import TimelineTestSupport
@testable import TimelinePostgres

/// What only the PostgreSQL log has: many connections and processes on one log, logs side
/// by side in one database, followers through `LISTEN`, lost connections and clients.
@Suite(.enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresLogTests {
    @Test func anAppendCatchesUpWithWhatAnotherConnectionAppended() throws {
        let url = TestServer.url(log: TestServer.newLogName("catch-up"))
        let first = try PostgresEventLog(url: url)
        let second = try PostgresEventLog(url: url)
        let facts = try EventLogContract.storyFacts()
        let written = try first.append(Array(facts[0..<2]), options: AppendOptions()).records
        var seen: [Record] = []
        let result = try second.append(
            after: 0, options: AppendOptions(expectedPosition: 2),
            catchingUp: { (records: [Record]) throws(Never) in seen += records },
            deciding: { () throws(Never) in [facts[2]] })
        #expect(seen == written)
        #expect(result.records == [Record(position: 3, fact: facts[2])])
        #expect(second.position == 3)
        // Up to date: nothing to catch up with.
        seen = []
        _ = try second.append(after: 3, options: AppendOptions(), catchingUp: { (records: [Record]) throws(Never) in
            seen += records
        }, deciding: { () throws(Never) in [facts[3]] })
        #expect(seen.isEmpty)
    }

    /// Two connections append to one log at once while a third follows it: every
    /// acknowledged batch is in the log where its answer said, positions run 1…n, and the
    /// follower never sees a gap.
    @Test func twoConnectionsAppendingToOneLogLeaveNoGapAFollowerSees() throws {
        let url = TestServer.url(log: TestServer.newLogName("two-writers"))
        let reader = try PostgresEventLog(url: url)
        let followed = Mutex<(position: Int64, gaps: [String])>((0, []))
        let signal = DispatchSemaphore(value: 0)
        let watch = try reader.watch {
            followed.withLock { followed in
                guard let records = try? reader.records(after: followed.position) else { return }
                for record in records {
                    if record.position != followed.position + 1 {
                        followed.gaps.append("after \(followed.position) came \(record.position)")
                    }
                    followed.position = record.position
                }
            }
            signal.signal()
        }
        defer { watch.cancel() }
        let answers = Mutex<[AppendResult]>([])
        let failures = Mutex<[String]>([])
        let batches = 30
        onThreads(2) { writer in
            do {
                let log = try PostgresEventLog(url: url)
                defer { log.close() }
                for index in 0..<batches {
                    let facts = (0...(index % 3)).map { Fact.eventRemoved(event: EventID("w\(writer)-\(index)-\($0)")) }
                    let answer = try log.append(facts, options: AppendOptions(commandID: "w\(writer)-\(index)"))
                    answers.withLock { $0.append(answer) }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let stored = try reader.records(after: 0)
        let results = answers.withLock { $0 }
        #expect(results.count == 2 * batches)
        #expect(stored.map(\.position) == Array(1...Int64(stored.count)))
        #expect(stored.count == results.reduce(0) { $0 + $1.records.count })
        for result in results {
            let first = Int(result.records[0].position) - 1
            #expect(Array(stored[first..<(first + result.records.count)]) == result.records)
        }
        #expect(wait(for: signal) { followed.withLock { $0.position } == Int64(stored.count) })
        #expect(followed.withLock { $0.gaps } == [])
    }

    /// An append to one log goes through while another log's append holds its lock.
    @Test func appendsToTwoLogsDoNotWaitForEachOther() throws {
        let one = try PostgresEventLog(url: TestServer.url(log: TestServer.newLogName("one")))
        let twoURL = TestServer.url(log: TestServer.newLogName("two"))
        let two = try PostgresEventLog(url: twoURL)
        let facts = try EventLogContract.storyFacts()
        let otherFinished = DispatchSemaphore(value: 0)
        let otherResult = Mutex<AppendResult?>(nil)
        let result = try one.append(after: .max, options: AppendOptions(), catchingUp: { (_: [Record]) throws(Never) in },
                                    deciding: { () throws(Never) in
            // Log one's row is locked now; log two appends on another thread meanwhile.
            Thread.detachNewThread {
                otherResult.withLock { $0 = try? two.append([facts[0]], options: AppendOptions()) }
                otherFinished.signal()
            }
            if otherFinished.wait(timeout: .now() + 60) == .timedOut {
                Issue.record("an append to another log waited for this one's lock")
            }
            return [facts[0]]
        })
        #expect(result.records.map(\.position) == [1])
        #expect(otherResult.withLock { $0 }?.records.map(\.position) == [1])
        #expect(try PostgresEventLog(url: twoURL).records(after: 0).count == 1)
    }

    /// A follower whose connection the server drops reconnects by itself, tells its store
    /// to catch up, and goes on hearing of new records.
    @Test func aFollowerResumesAfterItsConnectionIsDropped() throws {
        let name = TestServer.newLogName("dropped")
        let url = TestServer.url(log: name) + "&application_name=\(name)"
        let follower = try PostgresEventLog(url: url)
        let writer = try PostgresEventLog(url: TestServer.url(log: name))
        let calls = Mutex(0)
        let signal = DispatchSemaphore(value: 0)
        let watch = try follower.watch {
            calls.withLock { $0 += 1 }
            signal.signal()
        }
        defer { watch.cancel() }
        let admin = try adminConnection()
        let listening = "SELECT pid FROM pg_stat_activity WHERE application_name = '\(name)' AND query LIKE 'LISTEN%'"
        let pid = try #require(try value(admin, listening))
        _ = try admin.run("SELECT pg_terminate_backend(\(pid))")
        // Reconnected: a new backend listens, and the store is told to catch up.
        #expect(wait(for: signal) { calls.withLock { $0 } >= 1 })
        #expect(try wait(for: signal) { try value(admin, listening).map { $0 != pid } ?? false })
        let before = calls.withLock { $0 }
        let facts = try EventLogContract.storyFacts()
        let appended = try writer.append([facts[0]], options: AppendOptions())
        #expect(wait(for: signal) { calls.withLock { $0 } > before })
        #expect(try follower.records(after: 0) == appended.records)
    }

    /// A connection the server dropped between two calls is made again, and the call goes
    /// through: reads, and an append (which had written nothing when it found out).
    @Test func aDroppedConnectionIsMadeAgainBeforeAnythingIsWritten() throws {
        let name = TestServer.newLogName("reconnect")
        let log = try PostgresEventLog(url: TestServer.url(log: name) + "&application_name=\(name)")
        let facts = try EventLogContract.storyFacts()
        let first = try log.append([facts[0]], options: AppendOptions())
        let admin = try adminConnection()
        func drop() throws {
            _ = try admin.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'")
            let gone = "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)'"
            #expect(try wait(for: DispatchSemaphore(value: 0)) { try value(admin, gone) == "0" })
        }
        try drop()
        let second = try log.append([facts[4]], options: AppendOptions(commandID: "after-drop"))
        #expect(second.records.map(\.position) == [2])
        try drop()
        #expect(try log.records(after: 0) == first.records + second.records)
        try drop()
        #expect(try log.records(forCommandID: "after-drop") == second.records)
    }

    /// Cancelling a watch stops its calls; the follower's connection closes.
    @Test func aCancelledWatchIsNotCalledAgain() throws {
        let name = TestServer.newLogName("cancelled")
        let log = try PostgresEventLog(url: TestServer.url(log: name) + "&application_name=\(name)")
        let calls = Mutex(0)
        let signal = DispatchSemaphore(value: 0)
        let watch = try log.watch {
            calls.withLock { $0 += 1 }
            signal.signal()
        }
        let facts = try EventLogContract.storyFacts()
        _ = try log.append([facts[0]], options: AppendOptions())
        #expect(wait(for: signal) { calls.withLock { $0 } == 1 })
        watch.cancel()
        let admin = try adminConnection()
        let listening = "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)' AND query LIKE 'LISTEN%'"
        #expect(try wait(for: signal) { try value(admin, listening) == "0" })
        _ = try log.append([facts[4]], options: AppendOptions())
        #expect(calls.withLock { $0 } == 1)
    }

    /// Watches cancelled while notifications pour in: the follower's thread may see the
    /// cancel's flag and return before the cancel wakes it (here the gap is widened to
    /// 2 ms). The wake must then not write into a pipe whose reader is closed: `SIGPIPE`
    /// would end the whole process, as it ended a test run once.
    @Test func cancellingAWatchWhileNotificationsArriveNeverBreaksItsPipe() throws {
        let url = TestServer.url(log: TestServer.newLogName("cancel-race"))
        let location = try PostgresLocation(url: url)
        let writing = Atomic(true)
        let appended = Atomic(0)
        let writer = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { writer.signal() }
            guard let other = try? PostgresEventLog(url: url) else { return }
            defer { other.close() }
            while writing.load(ordering: .relaxed) {
                guard (try? other.append([.eventRemoved(event: EventID("x"))], options: AppendOptions())) != nil else { return }
                appended.add(1, ordering: .relaxed)
            }
        }
        defer {
            writing.store(false, ordering: .relaxed)
            writer.wait()
        }
        var calledBeforeTheCancel = 0
        for _ in 0..<20 {
            let called = DispatchSemaphore(value: 0)
            let watch = try PostgresFollower.start(location: location, changed: { called.signal() },
                                                   beforeWake: { usleep(2_000) })
            if called.wait(timeout: .now() + 10) == .success { calledBeforeTheCancel += 1 }
            watch.cancel()
        }
        // Reaching here is the test (the process lives); these say the race was run.
        #expect(appended.load(ordering: .relaxed) > 20, "the writer stopped early: notifications did not flow")
        #expect(calledBeforeTheCancel == 20)
    }

    /// A client killed while its batch is in the database leaves nothing of the batch.
    @Test func killingTheClientMidBatchLeavesNothingOfIt() throws {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let tool = try #require(builtExecutable(named: "timeline", packageRoot: packageRoot))
        let name = TestServer.newLogName("killed")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-pg-\(name)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A big import: one batch, one transaction, long enough to be caught in the middle.
        var lines = #"{"type":"timelineCreated","data":{"timeline":"t","name":"T"}}"# + "\n"
        for index in 0..<200_000 {
            lines += #"{"type":"eventAdded","data":{"event":"e\#(index)","timeline":"t","title":"E","date":"2001"}}"# + "\n"
        }
        let file = directory.appendingPathComponent("big.jsonl")
        try Data(lines.utf8).write(to: file)
        let process = Process()
        process.executableURL = tool
        process.arguments = ["import", file.path, "--log", TestServer.url(log: name) + "&application_name=\(name)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let admin = try adminConnection()
        // Written rows, not yet committed: the backend's transaction has an id.
        let writing = "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)' AND backend_xid IS NOT NULL"
        let never = DispatchSemaphore(value: 0)
        let caught = try wait(for: never, seconds: 120) { try value(admin, writing) == "1" || !process.isRunning }
        #expect(caught && process.isRunning, "the import ended before it was caught writing")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let gone = "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)'"
        #expect(try wait(for: never, seconds: 120) { try value(admin, gone) == "0" })
        let log = try PostgresEventLog(url: TestServer.url(log: name))
        #expect(try log.records(after: 0).isEmpty)
        #expect(log.position == 0)
    }

    @Test func theLogParameterIsTakenOutOfTheURLAndNamesTheLog() throws {
        let location = try PostgresLocation(url: "postgresql://u@db.example:5433/app?sslmode=disable&log=user-42.v1")
        #expect(location.log == "user-42.v1")
        #expect(location.connectionString == "postgresql://u@db.example:5433/app?sslmode=disable")
        #expect(location.displayName == "postgresql://u@db.example:5433/app?sslmode=disable&log=user-42.v1")
        let plain = try PostgresLocation(url: "postgres://u@h/db")
        #expect(plain.log == "timeline")
        #expect(plain.connectionString == "postgresql://u@h/db")
        // One log, one name (and one checkpoint), however the scheme is spelt.
        for spelling in ["postgres://u@h/db", "Postgres://u@h/db", "POSTGRESQL://u@h/db"] {
            #expect(PostgresLocation.isURL(spelling))
            #expect(try PostgresLocation(url: spelling).displayName == "postgresql://u@h/db?log=timeline")
        }
        // A log named twice is refused, not the last one taken.
        // Each refusal names the URL it refuses (without its password), never "?".
        #expect(throws: EventLogError.database(log: "postgresql://u@h/db?log=a", message:
            "the URL names the log twice (log=a&log=b): give one ?log=NAME")) {
            try PostgresLocation(url: "postgresql://u:pw@h/db?log=a&log=b")
        }
        #expect(throws: EventLogError.database(log: "mysql://…", message:
            "not a PostgreSQL URL: expected postgresql://USER@HOST:PORT/DATABASE?log=NAME")) {
            try PostgresLocation(url: "mysql://u:pw@h/db")
        }
        for bad in ["", String(repeating: "a", count: 64), "a/b", "é", "a b", "a%2Fb"] {
            #expect(throws: EventLogError.self) { try PostgresLocation(url: "postgresql://u@h/db?log=\(bad)") }
        }
        #expect(PostgresLocation.isValidLogName(String(repeating: "Z", count: 63)))
        #expect(!PostgresLocation.isURL("postgresql:/x") && !PostgresLocation.isURL("log.jsonl"))
    }

    @Test func aPasswordNeverAppearsInMessages() throws {
        let location = try PostgresLocation(url: "postgresql://u:s3cr%40t@127.0.0.1:1/db?password=other-s3cret&log=x")
        #expect(!location.displayName.contains("s3cr"))
        #expect(location.displayName == "postgresql://u@127.0.0.1:1/db?log=x")
        let echoed = location.scrub("failed for \(location.connectionString): password s3cr@t or other-s3cret")
        #expect(!echoed.contains("s3cr") && !echoed.contains("other-s3cret"))
        do {
            _ = try PostgresEventLog(location: location)
            Issue.record("connected to port 1")
        } catch {
            #expect(!error.description.contains("s3cr"))
            #expect(error.description.hasPrefix("postgresql://u@127.0.0.1:1/db?log=x: cannot connect"))
        }
    }

    /// The same records as the file log, line for line: what the database holds is what a
    /// file log holds, and reads back as the records appended.
    @Test func theRowsAreTheFileLogsLines() throws {
        let log = try PostgresEventLog(url: TestServer.url(log: TestServer.newLogName("lines")))
        let facts = try EventLogContract.storyFacts()
        var records: [Record] = []
        records += try log.append(Array(facts[0..<3]), options: AppendOptions(commandID: "c",
                                                                              recordedAt: EventLogContract.recordedAt())).records
        records += try log.append(Array(facts[3...]), options: AppendOptions()).records
        var expected: [UInt8] = []
        for record in records { RecordEncoder().encode(record, into: &expected) }
        let lines = try log.jsonLines()
        #expect(lines == expected)
        #expect(try LogReader().read(lines).records == records)
    }
}

/// A server crash under load (`pg_ctl stop -m immediate`, then a start): every
/// acknowledged record is there afterwards, and followers resume. Restarting the server
/// breaks every connection, so this runs alone: `.ci/run` runs it in a `swift test` of its
/// own with `$TIMELINE_TEST_POSTGRES_RESTART`, the command that restarts the server. Its
/// tests run one at a time: each restarts the server once.
@Suite(.serialized, .enabled(if: TestServer.isAvailable && ProcessInfo.processInfo.environment["TIMELINE_TEST_POSTGRES_RESTART"] != nil,
                "needs TIMELINE_TEST_POSTGRES_URL and TIMELINE_TEST_POSTGRES_RESTART (a command that crashes and restarts the server: `.ci/postgres.sh crash-restart`); it breaks every connection, so .ci/run runs it alone"))
struct ServerCrashTests {
    @Test func everyAcknowledgedRecordSurvivesACrashAndFollowersResume() throws {
        let restart = try #require(ProcessInfo.processInfo.environment["TIMELINE_TEST_POSTGRES_RESTART"])
        let url = TestServer.url(log: TestServer.newLogName("crash"))
        let follower = try PostgresEventLog(url: url)
        let followed = Mutex<Int64>(0)
        let signal = DispatchSemaphore(value: 0)
        let watch = try follower.watch {
            if let records = try? follower.records(after: followed.withLock { $0 }), let last = records.last {
                followed.withLock { $0 = max($0, last.position) }
            }
            signal.signal()
        }
        defer { watch.cancel() }
        let answers = Mutex<[AppendResult]>([])
        let failures = Mutex<[String]>([])
        let progress = Mutex(0)
        let writers = 3, batches = 60
        onThreads(writers + 1) { index in
            guard index < writers else {
                // Crash the server once the writers are under way.
                while progress.withLock({ $0 }) < writers * 10 { usleep(5_000) }
                let status = runShell(restart)
                if status != 0 { failures.withLock { $0.append("restarting the server failed: status \(status)") } }
                return
            }
            guard let log = try? PostgresEventLog(url: url) else {
                failures.withLock { $0.append("writer \(index) could not open the log") }
                return
            }
            for batch in 0..<batches {
                let facts = (0...(batch % 4)).map { Fact.eventRemoved(event: EventID("w\(index)-\(batch)-\($0)")) }
                // Sent again, with its command id, until it is acknowledged: appended once.
                var attempts = 0
                while true {
                    do {
                        let answer = try log.append(facts, options: AppendOptions(commandID: "w\(index)-\(batch)"))
                        answers.withLock { $0.append(answer) }
                        break
                    } catch {
                        attempts += 1
                        if attempts > 600 {
                            failures.withLock { $0.append("writer \(index) batch \(batch): \(error)") }
                            return
                        }
                        usleep(100_000)
                    }
                }
                progress.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let stored = try PostgresEventLog(url: url).records(after: 0)
        #expect(stored.map(\.position) == Array(1...Int64(stored.count)))
        let results = answers.withLock { $0 }
        #expect(results.count == writers * batches)
        for result in results {
            let first = Int(result.records[0].position) - 1
            #expect(Array(stored[first..<(first + result.records.count)]) == result.records)
        }
        // Each command once: as many records as the batches hold.
        #expect(stored.count == (0..<batches).reduce(0) { $0 + ($1 % 4) + 1 } * writers)
        #expect(wait(for: signal, seconds: 120) { followed.withLock { $0 } == Int64(stored.count) })
    }

    /// Section 10 with real processes on PostgreSQL: three replica processes sending and
    /// syncing, a quarter killed by SIGKILL, the server crashed and restarted meanwhile;
    /// once healed every mirror is the stored lines byte for byte, every acknowledged send
    /// has one outcome and every rejection its notice.
    @Test func replicaProcessesSurviveKillsAndAServerRestart() async throws {
        let restart = try #require(ProcessInfo.processInfo.environment["TIMELINE_TEST_POSTGRES_RESTART"])
        let tool = try #require(builtExecutable(named: "timeline", packageRoot: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()))
        let url = TestServer.url(log: TestServer.newLogName("replicas"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-pg-w-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let workload = ReplicaWorkload(tool: tool, shared: url, directory: directory.path)
        try workload.prepareShared()
        let restarted = Mutex<Int32?>(nil)
        let acknowledged = try await workload.work {
            try? await Task.sleep(for: .milliseconds(300))
            let status = runShell(restart)
            restarted.withLock { $0 = status }
        }
        #expect(restarted.withLock { $0 } == 0, "restarting the server failed")
        try workload.heal()
        let log = try PostgresEventLog(url: url)
        defer { log.close() }
        let lines = Data(try log.jsonLines())
        #expect(try workload.problems(sharedLines: lines, acknowledged: acknowledged) == [])
        #expect(acknowledged.reduce(0, +) > 0, "no send was acknowledged: the workload tested nothing")
    }
}
#endif
