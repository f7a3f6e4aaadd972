#if PostgreSQL
import EventLogContract
import Foundation
import Testing
import TimelineCore
@testable import TimelinePostgres

/// The server the tests use: `$TIMELINE_TEST_POSTGRES_URL` (`.ci/postgres.sh start` starts
/// one and prints its URL). Without it, the tests are skipped and say why.
enum TestServer {
    static let url: String? = {
        guard let url = ProcessInfo.processInfo.environment["TIMELINE_TEST_POSTGRES_URL"], !url.isEmpty else { return nil }
        return url
    }()

    static let isAvailable = url != nil

    static let skipReason: Comment =
        "TIMELINE_TEST_POSTGRES_URL is not set: start a server with `.ci/postgres.sh start` and export the URL it prints"

    /// A log name of its own for one test (the database outlives a run): `prefix` and a random part.
    static func newLogName(_ prefix: String) -> String {
        String((prefix + "-" + UUID().uuidString.prefix(8)).prefix(63))
    }

    /// The URL of the log `name` on the test server.
    static func url(log name: String) -> String {
        let base = url ?? "postgresql://localhost/postgres"
        return base + (base.contains("?") ? "&" : "?") + "log=" + name
    }
}

/// A PostgreSQL log under the contract's tests; reopening connects anew.
final class PostgresFixture: EventLogFixture {
    let url: String
    private(set) var log: any EventLog

    init(_ prefix: String) throws {
        url = TestServer.url(log: TestServer.newLogName(prefix))
        log = try PostgresEventLog(url: url)
    }

    func reopen() throws {
        (log as? PostgresEventLog)?.close()
        log = try PostgresEventLog(url: url)
    }

    deinit { (log as? PostgresEventLog)?.close() }
}

/// Runs `body` on `count` threads of their own at once (not the concurrency pool, which
/// has as many threads as cores), and returns when all have finished.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread.detachNewThread {
            body(index)
            group.leave()
        }
    }
    group.wait()
}

/// Waits until `condition` holds, checking it each time `signal` is signalled (or every
/// 100 ms), for at most `seconds`; whether it holds.
func wait(for signal: DispatchSemaphore, seconds: Double = 60, until condition: () throws -> Bool) rethrows -> Bool {
    let deadline = DispatchTime.now() + seconds
    while try !condition() {
        guard DispatchTime.now() < deadline else { return false }
        _ = signal.wait(timeout: .now() + 0.1)
    }
    return true
}

/// Runs `command` with `/bin/sh` and returns its exit status (or -1). Spawned and waited
/// for directly: `Process.waitUntilExit` on a thread of its own can miss the end of a
/// command that starts a daemon (`pg_ctl start`).
func runShell(_ command: String) -> Int32 {
    var pid: pid_t = 0
    let arguments = ["/bin/sh", "-c", command]
    var pointers = arguments.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    guard posix_spawn(&pid, "/bin/sh", nil, nil, &pointers, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { return -1 }
    }
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
}

/// A connection to the test server for statements of the test's own (`pg_stat_activity`,
/// `pg_terminate_backend`).
func adminConnection() throws -> PostgresConnection {
    try PostgresConnection(PostgresLocation(url: TestServer.url(log: "admin")))
}

/// The one value of the first row of `sql`'s last result.
func value(_ connection: PostgresConnection, _ sql: String) throws -> String? {
    try connection.run(sql).last?.text(row: 0, column: 0)
}
#endif
